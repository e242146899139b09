//===- Sources.cpp - Finding and reading the Python files of a scan -------===//
#include "Sources.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>

using namespace tether;
using namespace tether::python;
namespace fs = llvm::sys::fs;

namespace {
struct Walker {
  Discovery &Out;
  std::set<std::string> SeenFiles;
  std::vector<std::string> Stack; // real paths of the directories being walked

  explicit Walker(Discovery &Out) : Out(Out) {}

  void problem(const std::string &Path, std::string Msg) {
    Out.Problems.push_back({Path, std::move(Msg)});
  }

  /// Real: the file's real path when the caller knows it (a plain file in
  /// a folder whose real path is known), else "" and it is resolved here.
  void addFile(const std::string &Path, std::string Real = {}) {
    if (Real.empty()) {
      llvm::SmallString<256> Resolved;
      Real = fs::real_path(Path, Resolved) ? Path : std::string(Resolved);
    }
    if (SeenFiles.insert(std::move(Real)).second)
      Out.Files.push_back(Path);
  }

  void walkDir(const std::string &Dir, bool Explicit) {
    llvm::SmallString<256> Real;
    if (std::error_code EC = fs::real_path(Dir, Real)) {
      problem(Dir, "cannot resolve directory: " + EC.message());
      return;
    }
    std::string R(Real);
    if (std::find(Stack.begin(), Stack.end(), R) != Stack.end()) {
      problem(Dir, "symlink loop: this directory leads back to '" + R +
                       "'; not followed");
      return;
    }
    Stack.push_back(R);
    std::error_code EC;
    // With the type the listing gives (d_type, not following links): a
    // plain entry needs no stat, and a plain file's real path is the
    // folder's real path and its name (resolving each file's path cost a
    // readlink per component, thousands of calls for a real package).
    std::vector<std::pair<std::string, fs::file_type>> Entries;
    for (fs::directory_iterator It(Dir, EC, /*follow_symlinks=*/false), End;
         It != End && !EC; It.increment(EC))
      Entries.emplace_back(It->path(), It->type());
    if (EC)
      problem(Dir, "cannot list directory: " + EC.message());
    std::sort(Entries.begin(), Entries.end());
    size_t Before = Out.Files.size(), ProblemsBefore = Out.Problems.size();
    for (const auto &[E, Listed] : Entries) {
      llvm::StringRef Name = llvm::sys::path::filename(E);
      // A link, or a file system that does not say: ask, following links.
      bool Plain = Listed != fs::file_type::symlink_file &&
                   Listed != fs::file_type::type_unknown;
      fs::file_type Type = Listed;
      if (!Plain) {
        fs::file_status St;
        if (std::error_code SEC = fs::status(E, St, /*follow=*/true)) {
          // Dangling links and self-referencing links (ELOOP) land here;
          // only report them when they would have been Python sources or
          // folders.
          if (Name.ends_with(".py") || !Name.contains('.'))
            problem(E, "cannot read: " + SEC.message());
          continue;
        }
        Type = St.type();
      }
      if (Type == fs::file_type::directory_file) {
        if (Name.starts_with(".") || Name == "__pycache__")
          continue;
        walkDir(E, false);
      } else if (Name.ends_with(".py")) {
        llvm::SmallString<256> RealFile;
        if (Plain) {
          RealFile = R;
          llvm::sys::path::append(RealFile, Name);
        }
        addFile(E, std::string(RealFile));
      }
    }
    // When entries could not be read, their lines already say why.
    if (Explicit && Out.Files.size() == Before &&
        Out.Problems.size() == ProblemsBefore)
      problem(Dir, "no Python files found");
    Stack.pop_back();
  }
};
} // namespace

Discovery tether::python::discover(const std::vector<std::string> &Paths) {
  Discovery D;
  Walker W(D);
  for (const std::string &P : Paths) {
    fs::file_status St;
    if (std::error_code EC = fs::status(P, St, /*follow=*/true)) {
      W.problem(P, "cannot read: " + EC.message());
      continue;
    }
    if (fs::is_directory(St))
      W.walkDir(P, true);
    else
      W.addFile(P); // named explicitly: analysed whatever its suffix
  }
  return D;
}

/// Whether [B, End) is UTF-8; else B is left at the first sequence that is
/// not, as llvm::isLegalUTF8String leaves it. ASCII is skipped eight bytes
/// at a time: checking each byte as a sequence of its own took 2% of a
/// run's instructions, for text that is nearly all ASCII.
static bool isUtf8(const llvm::UTF8 *&B, const llvm::UTF8 *End) {
  constexpr uint64_t HighBits = 0x8080808080808080ULL;
  while (B != End) {
    uint64_t Word;
    while (End - B >= 8 && (memcpy(&Word, B, 8), (Word & HighBits) == 0))
      B += 8;
    while (B != End && *B < 0x80)
      ++B;
    if (B == End)
      return true;
    if (!llvm::isLegalUTF8Sequence(B, End))
      return false;
    B += llvm::getNumBytesForUTF8(*B);
  }
  return true;
}

/// The PEP 263 declaration in the first two lines, lower-cased ("" if none).
static std::string codingCookie(llvm::StringRef Text) {
  for (int Line = 0; Line < 2 && !Text.empty(); ++Line) {
    auto [L, Rest] = Text.split('\n');
    Text = Rest;
    llvm::StringRef T = L.ltrim();
    if (!T.starts_with("#"))
      continue;
    size_t At = T.find("coding");
    if (At == llvm::StringRef::npos || At + 6 >= T.size() ||
        (T[At + 6] != ':' && T[At + 6] != '='))
      continue;
    llvm::StringRef Name = T.drop_front(At + 7).ltrim();
    Name = Name.take_while(
        [](char C) { return isalnum((unsigned char)C) || C == '-' || C == '_' || C == '.'; });
    return Name.lower();
  }
  return {};
}

bool tether::python::readSource(const std::string &Path, std::string &Text,
                                std::string &Problem, SourceLayout &Layout) {
  fs::file_status St;
  if (std::error_code EC = fs::status(Path, St, /*follow=*/true)) {
    Problem = "cannot read: " + EC.message();
    return false;
  }
  if (!fs::is_regular_file(St)) {
    Problem = fs::is_directory(St) ? "is a directory, not a Python file"
                                   : "not a regular file; skipped";
    return false;
  }
  if (St.getSize() > MaxSourceBytes) {
    Problem = "file is " + std::to_string(St.getSize() >> 20) +
              " MiB, over the " + std::to_string(MaxSourceBytes >> 20) +
              " MiB limit for Python sources; skipped";
    return false;
  }
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf) {
    Problem = "cannot read: " + Buf.getError().message();
    return false;
  }
  llvm::StringRef Data = (*Buf)->getBuffer();
  if (Data.size() > MaxSourceBytes) {
    Problem = "file is over the " + std::to_string(MaxSourceBytes >> 20) +
              " MiB limit for Python sources; skipped";
    return false;
  }
  if (Data.contains('\0')) {
    Problem = "binary file (contains NUL bytes); not Python source";
    return false;
  }
  Layout = SourceLayout();
  if (Data.starts_with("\xEF\xBB\xBF")) {
    Data = Data.drop_front(3);
    Layout.BomBytes = 3;
  }
  const llvm::UTF8 *B = reinterpret_cast<const llvm::UTF8 *>(Data.data());
  if (isUtf8(B, B + Data.size())) {
    Text.assign(Data.data(), Data.size());
    normalizeLineBreaks(Text);
    return true;
  }
  std::string Cookie = codingCookie(Data);
  if (Cookie == "latin-1" || Cookie == "latin1" || Cookie == "iso-8859-1" ||
      Cookie == "iso8859-1" || Cookie == "l1") {
    Text.clear();
    Text.reserve(Data.size() + Data.size() / 8);
    for (unsigned char C : Data) {
      if (C < 0x80) {
        Text.push_back((char)C);
      } else {
        Text.push_back((char)(0xC0 | (C >> 6)));
        Text.push_back((char)(0x80 | (C & 0x3F)));
      }
    }
    Layout.Latin1 = true;
    normalizeLineBreaks(Text);
    return true;
  }
  size_t Bad = (const char *)B - Data.data();
  unsigned Line = 1 + (unsigned)Data.take_front(Bad).count('\n');
  char Hex[8];
  snprintf(Hex, sizeof Hex, "0x%02X", (unsigned char)Data[Bad]);
  Problem = "not valid UTF-8 (byte " + std::string(Hex) + " on line " +
            std::to_string(Line) + ")" +
            (Cookie.empty() ? std::string("")
                            : " and its coding '" + Cookie +
                                  "' is not supported") +
            "; skipped";
  return false;
}

void tether::python::normalizeLineBreaks(std::string &Text) {
  for (size_t I = Text.find('\r'); I != std::string::npos;
       I = Text.find('\r', I + 1))
    if (I + 1 == Text.size() || Text[I + 1] != '\n')
      Text[I] = '\n';
}
