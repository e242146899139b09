//===- Dump.cpp - The IR as text ------------------------------------------===//
#include "engine/Dump.h"

#include "llvm/Support/raw_ostream.h"

namespace tether::engine {
namespace {

class Printer {
public:
  Printer(const Program &P, const Function &F, llvm::raw_string_ostream &OS)
      : P(P), F(F), OS(OS) {}

  void run() {
    OS << "fn " << F.QualName << "(";
    for (uint32_t I = 0; I < F.NumParams; ++I) {
      OS << (I ? ", " : "") << var(VarId(I));
      if (I < F.ParamClass.size() && F.ParamClass[I] >= 0)
        OS << ": " << P.Classes[F.ParamClass[I]].Name;
    }
    OS << ")" << (F.ModuleBody ? " module" : "") << "\n";
    for (size_t B = 0; B < F.Blocks.size(); ++B) {
      OS << "bb" << B << ":\n";
      for (const Inst &I : F.Blocks[B].Insts)
        inst(I);
      term(F.Blocks[B].Term);
    }
  }

private:
  std::string var(VarId V) const {
    if (V == NoVar)
      return "_";
    std::string S = "%" + std::to_string(V);
    if (V >= 0 && size_t(V) < F.VarNames.size() && !F.VarNames[V].empty())
      S += ":" + F.VarNames[V];
    return S;
  }
  std::string place(const PlaceRef &R) const {
    switch (R.Kind) {
    case PlaceRef::Global:
      return R.Name;
    case PlaceRef::Field:
      return var(R.Base) + "." + R.Name;
    case PlaceRef::Element:
      return var(R.Base) + "[" + (R.EverySlot ? "each" : R.Key.empty() ? "*" : R.Key) + "]";
    }
    return "?";
  }
  void at(SrcLoc L) { OS << " @" << L.Line << ":" << L.Col << "\n"; }
  static const char *region(RegionKind K) {
    switch (K) {
    case RegionKind::Capture: return "capture";
    case RegionKind::TaskGroup: return "task-group";
    case RegionKind::TaskUpdate: return "task-update";
    case RegionKind::Stream: return "stream";
    case RegionKind::CaptureSession: return "capture-session";
    }
    return "?";
  }
  static const char *alloc(AllocKind K) {
    switch (K) {
    case AllocKind::Tensor: return "tensor";
    case AllocKind::Workspace: return "workspace";
    case AllocKind::Object: return "object";
    case AllocKind::Container: return "container";
    }
    return "?";
  }
  static const char *test(TestKind K) {
    switch (K) {
    case TestKind::CapturePredicate: return "capturing";
    case TestKind::SessionPredicate: return "in-session";
    case TestKind::IsNull: return "is-null";
    case TestKind::IsTensor: return "is-tensor";
    case TestKind::PlaceEmpty: return "empty";
    case TestKind::SizeCheck: return "size-check";
    }
    return "?";
  }
  void name(const Inst &I) {
    if (!I.Name.empty())
      OS << " \"" << I.Name << "\"";
  }

  void inst(const Inst &I) {
    OS << "  ";
    if (I.Dst != NoVar)
      OS << var(I.Dst) << " = ";
    switch (I.Kind) {
    case Op::Const: OS << "const"; break;
    case Op::Null: OS << "null"; break;
    case Op::Copy: OS << "copy " << var(I.A); break;
    case Op::Alloc:
      OS << "alloc " << alloc(I.Alloc);
      if (I.Class >= 0)
        OS << " " << P.Classes[I.Class].Name;
      if (I.SizedByCaller)
        OS << " sized";
      if (I.Manual)
        OS << " raw";
      name(I);
      break;
    case Op::WeakRef:
      OS << (I.Weak == WeakKind::FromBlob  ? "from-blob "
             : I.Weak == WeakKind::Address ? "address "
             : I.Weak == WeakKind::OverAddress ? "over-address "
                                           : "weak ")
         << var(I.A);
      name(I);
      break;
    case Op::Call:
      OS << "call";
      name(I);
      OS << " (";
      for (size_t A = 0; A < I.Args.size(); ++A)
        OS << (A ? ", " : "") << var(I.Args[A]);
      OS << ")";
      for (const CallTarget &T : I.Targets) {
        OS << " -> " << P.Functions[T.Fn].QualName << "(";
        for (size_t A = 0; A < T.Args.size(); ++A)
          OS << (A ? ", " : "") << var(T.Args[A]);
        OS << ")";
      }
      break;
    case Op::Read:
      OS << "read " << place(I.P) << (I.MayBeAbsent ? " may-be-absent" : "");
      if (I.Class >= 0)
        OS << " shared " << P.Classes[I.Class].Name;
      break;
    case Op::Store:
      OS << "store " << place(I.P) << " <- " << var(I.A)
         << (I.IfAbsent ? " if-absent" : "");
      break;
    case Op::Clear: OS << "clear " << place(I.P); break;
    case Op::Use:
      OS << "use " << var(I.A);
      name(I);
      break;
    case Op::Test:
      OS << "test " << test(I.Test);
      if (I.Test == TestKind::PlaceEmpty)
        OS << " " << place(I.P);
      else if (I.A != NoVar)
        OS << " " << var(I.A);
      break;
    case Op::Not: OS << "not " << var(I.A); break;
    case Op::RegionBegin:
    case Op::RegionEnd:
      OS << (I.Kind == Op::RegionBegin ? "begin " : "end ") << region(I.Region);
      if (!I.Key.empty())
        OS << " " << I.Key;
      break;
    case Op::Kill: OS << "kill " << var(I.A); break;
    case Op::Escape: OS << "escape " << var(I.A); break;
    case Op::Sync: OS << "sync"; break;
    case Op::Free: OS << "free " << var(I.A); break;
    case Op::GraphDestroy: OS << "destroy graph"; break;
    case Op::GraphLaunch: OS << "launch graph"; break;
    }
    at(I.Loc);
  }

  void term(const Terminator &T) {
    OS << "  ";
    switch (T.Kind) {
    case Terminator::Goto: OS << "goto bb" << T.Succ[0]; break;
    case Terminator::Branch:
      OS << "br " << var(T.Cond) << " bb" << T.Succ[0] << " bb" << T.Succ[1];
      break;
    case Terminator::Return: OS << "ret " << var(T.Value); break;
    case Terminator::Raise: OS << "raise"; break;
    }
    at(T.Loc);
  }

  const Program &P;
  const Function &F;
  llvm::raw_string_ostream &OS;
};

} // namespace

std::string dump(const Program &P, const Function &F) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  Printer(P, F, OS).run();
  return S;
}

std::string dump(const Program &P) {
  std::string S;
  for (const Function &F : P.Functions)
    S += dump(P, F);
  for (const Binding &B : P.Bindings) {
    S += "binding " + B.Name + " -> ";
    S += B.Fn >= 0 && size_t(B.Fn) < P.Functions.size()
             ? P.Functions[B.Fn].QualName
             : "link " + B.Link;
    if (B.FirstArg)
      S += " from parameter " + std::to_string(B.FirstArg);
    S += "\n";
  }
  return S;
}

} // namespace tether::engine
