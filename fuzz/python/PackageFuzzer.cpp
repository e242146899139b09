//===- PackageFuzzer.cpp - Bytes as a package of up to three modules ------===//
//
// The input is split at \x01 bytes (which Python source holds only in
// strings and comments, if ever) into pkg/__init__.py, pkg/a.py and
// pkg/b.py (the rest of the input, further separators and all, goes to
// b.py), so that imports between the modules,
// summaries of helpers in one module used by another and capture context
// across modules are exercised, not only the parser.
//
//===----------------------------------------------------------------------===//
#include "ScratchPackage.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const char *const Names[] = {"__init__.py", "a.py", "b.py"};
  static const tether::fuzz::ScratchDir Dir("pkg");
  std::string_view In(reinterpret_cast<const char *>(Data), Size);
  std::vector<std::string> Files;
  for (size_t Part = 0; Part < 3; ++Part) {
    size_t Cut = Part == 2 ? std::string_view::npos : In.find('\x01');
    std::string_view Text = In.substr(0, Cut);
    In = Cut == std::string_view::npos ? std::string_view() : In.substr(Cut + 1);
    std::string Path = Dir.file(Names[Part]);
    tether::fuzz::writeFile(Path, Text);
    Files.push_back(std::move(Path));
  }
  tether::fuzz::analyzeFiles(Files);
  return 0;
}
