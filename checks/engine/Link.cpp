//===- Link.cpp -----------------------------------------------------------===//
#include "engine/Link.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <unordered_map>

namespace tether::engine {
namespace {

/// Renumbers one unit's files, classes and functions into another program.
struct Renumber {
  std::vector<uint32_t> File;
  std::vector<ClassId> Cls;
  std::vector<FnId> Fn; ///< -1: not copied
  /// Put before the name of a Local global, so that the same name in
  /// another unit is another place; empty: names are kept.
  std::string LocalPrefix;

  void loc(SrcLoc &L) const {
    if (L.File < File.size())
      L.File = File[L.File];
  }
  ClassId cls(ClassId C) const {
    return C < 0 || size_t(C) >= Cls.size() ? -1 : Cls[C];
  }

  Function copy(const Function &From) const {
    Function F = From;
    loc(F.Loc);
    loc(F.EndLoc);
    F.Class = cls(F.Class);
    for (ClassId &C : F.ParamClass)
      C = cls(C);
    for (ClassId &C : F.ParamElemClass)
      C = cls(C);
    for (Block &B : F.Blocks) {
      loc(B.Term.Loc);
      for (Inst &I : B.Insts) {
        loc(I.Loc);
        if (I.P.Kind == PlaceRef::Global && I.P.Local && !LocalPrefix.empty())
          I.P.Name = LocalPrefix + I.P.Name;
        for (SrcLoc &L : I.ArgLocs)
          loc(L);
        I.Class = cls(I.Class);
        // A callee left out of the copy is unknown code: its arguments
        // escape, as for any call the lowering could not resolve.
        llvm::erase_if(I.Targets, [&](const CallTarget &T) {
          return T.Fn < 0 || size_t(T.Fn) >= Fn.size() || Fn[T.Fn] < 0;
        });
        for (CallTarget &T : I.Targets)
          T.Fn = Fn[T.Fn];
      }
    }
    return F;
  }
};

/// Files, by path, shared by every unit copied into one program.
struct FileTable {
  Program &Into;
  std::unordered_map<std::string, uint32_t> Ids;
  explicit FileTable(Program &Into) : Into(Into) {
    for (size_t I = 0; I < Into.Files.size(); ++I)
      Ids.emplace(Into.Files[I], uint32_t(I));
  }
  std::vector<uint32_t> map(const Program &From) {
    std::vector<uint32_t> Out;
    for (const std::string &Path : From.Files) {
      auto [It, New] = Ids.try_emplace(Path, uint32_t(Into.Files.size()));
      if (New)
        Into.Files.push_back(Path);
      Out.push_back(It->second);
    }
    return Out;
  }
};

/// Classes by name, when units of one program share them (the same C++
/// class in every TU that includes its header); a Local class is not.
using ClassTable = std::unordered_map<std::string, ClassId>;

Renumber start(Program &Into, const Program &From, FileTable &Files,
               ClassTable *Shared) {
  Renumber R;
  R.File = Files.map(From);
  std::vector<bool> Fresh;
  for (const Class &C : From.Classes) {
    ClassId Id = ClassId(Into.Classes.size());
    if (Shared && !C.Local) {
      auto [It, New] = Shared->try_emplace(C.Name, Id);
      if (!New) {
        R.Cls.push_back(It->second);
        Fresh.push_back(false);
        continue;
      }
    }
    Into.Classes.push_back(C);
    R.Cls.push_back(Id);
    Fresh.push_back(true);
  }
  // Bases once every class of the unit has its id (a base may come later).
  for (size_t C = 0; C < From.Classes.size(); ++C)
    if (Fresh[C])
      for (ClassId &B : Into.Classes[R.Cls[C]].Bases)
        B = R.cls(B);
  R.Fn.assign(From.Functions.size(), -1);
  return R;
}

/// Where each link name is defined, (unit, function): the first unit that
/// defines it.
class Definitions {
public:
  explicit Definitions(const std::vector<Program> &Units) {
    for (size_t U = 0; U < Units.size(); ++U)
      for (size_t F = 0; F < Units[U].Functions.size(); ++F)
        if (!Units[U].Functions[F].Link.empty())
          Map.try_emplace(Units[U].Functions[F].Link, U, FnId(F));
  }
  const std::pair<size_t, FnId> *find(const std::string &Link) const {
    auto It = Link.empty() ? Map.end() : Map.find(Link);
    return It == Map.end() ? nullptr : &It->second;
  }

private:
  std::unordered_map<std::string, std::pair<size_t, FnId>> Map;
};

/// Turn each linked Inst::Link of F into a call of its definition.
template <typename DefOfT, typename IdOfT>
void resolveLinks(Function &F, DefOfT DefOf, IdOfT IdOf) {
  for (Block &Bl : F.Blocks)
    for (Inst &I : Bl.Insts) {
      const auto *D = DefOf(I.Link);
      if (!D)
        continue;
      CallTarget T;
      T.Fn = IdOf(*D);
      T.Args = I.Args;
      I.Kind = Op::Call;
      I.Targets.push_back(std::move(T));
      I.Link.clear();
    }
}

} // namespace

const std::vector<BoundFunction> *
Library::lookup(const std::string &Qual) const {
  llvm::StringRef Q(Qual);
  auto Find = [&](llvm::StringRef Name) -> const std::vector<BoundFunction> * {
    auto It = ByName.find(Name.str());
    return It == ByName.end() ? nullptr : &It->second;
  };
  if (Q.starts_with("torch.ops.")) {
    if (const auto *Hit = Find(Q))
      return Hit;
    // torch.ops.ns.op.overload: the op.
    llvm::SmallVector<llvm::StringRef, 6> Parts;
    Q.split(Parts, '.');
    if (Parts.size() == 5)
      return Find(Q.rsplit('.').first);
    return nullptr;
  }
  auto [Head, Last] = Q.rsplit('.');
  if (Last.empty())
    return nullptr;
  llvm::StringRef Mod = Head.rsplit('.').second;
  if (Mod.empty())
    Mod = Head;
  return Find(Mod.str() + "." + Last.str());
}

namespace {

/// Copy into P the functions Keep marks, unit by unit, renumbered. A kept
/// function whose link name another unit's definition holds is that
/// definition (kept in its place); each linked Inst::Link becomes a call
/// of its definition. Returns each unit's renumbering.
std::vector<Renumber> gather(Program &P, const std::vector<Program> &Units,
                             const Definitions &Defs,
                             std::vector<std::vector<bool>> Keep) {
  auto Canonical = [&](size_t U, size_t F) {
    const auto *D = Defs.find(Units[U].Functions[F].Link);
    return !D || (D->first == U && size_t(D->second) == F);
  };
  for (size_t U = 0; U < Units.size(); ++U)
    for (size_t F = 0; F < Keep[U].size(); ++F)
      if (Keep[U][F] && !Canonical(U, F)) {
        const auto *D = Defs.find(Units[U].Functions[F].Link);
        Keep[D->first][D->second] = true;
      }
  FileTable Files(P);
  ClassTable Classes;
  std::vector<Renumber> Maps(Units.size());
  for (size_t U = 0; U < Units.size(); ++U) {
    if (llvm::none_of(Keep[U], [](bool K) { return K; }))
      continue;
    Maps[U] = start(P, Units[U], Files, &Classes);
    // Spelled as no C++ or Python name is; the last part, which messages
    // and workspace names read, is the global's own.
    Maps[U].LocalPrefix = "(unit " + std::to_string(U) + ")::";
    for (size_t F = 0; F < Keep[U].size(); ++F)
      if (Keep[U][F] && Canonical(U, F)) {
        Maps[U].Fn[F] = FnId(P.Functions.size());
        P.Functions.emplace_back();
      }
  }
  auto IdOf = [&](const std::pair<size_t, FnId> &D) {
    return Maps[D.first].Fn[D.second];
  };
  for (size_t U = 0; U < Units.size(); ++U)
    for (size_t F = 0; F < Keep[U].size(); ++F)
      if (Keep[U][F] && !Canonical(U, F))
        Maps[U].Fn[F] = IdOf(*Defs.find(Units[U].Functions[F].Link));
  auto DefOf = [&](const std::string &Link) { return Defs.find(Link); };
  for (size_t U = 0; U < Units.size(); ++U)
    for (size_t F = 0; F < Keep[U].size(); ++F) {
      if (!Keep[U][F] || !Canonical(U, F))
        continue;
      Function &To = P.Functions[Maps[U].Fn[F]];
      To = Maps[U].copy(Units[U].Functions[F]);
      resolveLinks(To, DefOf, IdOf);
    }
  return Maps;
}

} // namespace

Library link(const std::vector<Program> &Units) {
  Library L;
  Definitions Defs(Units);
  // The functions to copy from each unit: the bound ones, then all they
  // may call, in their unit or, by link name, in another.
  std::vector<std::vector<bool>> Keep(Units.size());
  for (size_t U = 0; U < Units.size(); ++U)
    Keep[U].assign(Units[U].Functions.size(), false);
  struct Entry {
    std::string Name;
    size_t Unit;
    FnId Fn;
    uint32_t FirstArg;
  };
  std::vector<Entry> Entries;
  std::vector<std::pair<size_t, FnId>> Work;
  for (size_t U = 0; U < Units.size(); ++U)
    for (const Binding &B : Units[U].Bindings) {
      std::pair<size_t, FnId> At{U, B.Fn};
      if (B.Fn < 0 || size_t(B.Fn) >= Units[U].Functions.size()) {
        const auto *D = Defs.find(B.Link);
        if (!D)
          continue;
        At = *D;
      }
      Entries.push_back({B.Name, At.first, At.second, B.FirstArg});
      Work.push_back(At);
    }
  while (!Work.empty()) {
    auto [U, Cur] = Work.back();
    Work.pop_back();
    if (Keep[U][Cur])
      continue;
    Keep[U][Cur] = true;
    for (const Block &Bl : Units[U].Functions[Cur].Blocks)
      for (const Inst &I : Bl.Insts) {
        for (const CallTarget &T : I.Targets)
          if (T.Fn >= 0 && size_t(T.Fn) < Keep[U].size() && !Keep[U][T.Fn])
            Work.push_back({U, T.Fn});
        if (const auto *D = Defs.find(I.Link); D && !Keep[D->first][D->second])
          Work.push_back(*D);
      }
  }
  std::vector<Renumber> Maps = gather(L.Code, Units, Defs, std::move(Keep));
  for (Function &F : L.Code.Functions)
    F.Foreign = true;
  for (const Entry &E : Entries) {
    std::vector<BoundFunction> &To = L.ByName[E.Name];
    BoundFunction BF{Maps[E.Unit].Fn[E.Fn], E.FirstArg};
    if (llvm::none_of(To, [&](const BoundFunction &X) { return X.Fn == BF.Fn; }))
      To.push_back(BF);
  }
  return L;
}

Program linkAll(const std::vector<Program> &Units) {
  // Everything; one definition per link name (an inline function is in
  // every TU that includes it).
  Program P;
  std::vector<std::vector<bool>> All(Units.size());
  for (size_t U = 0; U < Units.size(); ++U)
    All[U].assign(Units[U].Functions.size(), true);
  gather(P, Units, Definitions(Units), std::move(All));
  return P;
}

FnId append(Program &Into, const Program &From) {
  FileTable Files(Into);
  Renumber R = start(Into, From, Files, nullptr);
  FnId Base = FnId(Into.Functions.size());
  for (size_t F = 0; F < From.Functions.size(); ++F)
    R.Fn[F] = Base + FnId(F);
  for (const Function &F : From.Functions)
    Into.Functions.push_back(R.copy(F));
  return Base;
}

} // namespace tether::engine
