//===- Checks.cpp - The capture checks over the whole package -------------===//
#include "Checks.h"
#include "common/Messages.h"

#include "llvm/ADT/StringRef.h"
#include <deque>
#include <map>
#include <set>

using namespace tether;
using namespace tether::python;

namespace {

std::string fill(const char *Fmt, const std::string &A0) {
  std::string S = Fmt;
  size_t I;
  while ((I = S.find("%0")) != std::string::npos)
    S.replace(I, 2, A0);
  return S;
}

class PackageChecker {
public:
  explicit PackageChecker(Package &P) : P(P) {}
  void run() {
    computeCaptureContext();
    collectUses();
    checkWeakStores();
    checkDanglingUses();
    checkWorkspaces();
    checkDeferredNulls();
  }

private:
  Package &P;
  /// For a function in capture through calls: the caller and its call.
  struct Via {
    int Caller = -1;
    int Call = -1;
  };
  std::vector<Via> InCapture;
  std::vector<bool> Reached;
  struct UseRef {
    int Fn;
    int Idx;
  };
  std::vector<UseRef> CaptureUses;

  std::string displayName(int Fn) const {
    const Function &F = P.Functions[Fn];
    return F.Class >= 0 ? P.Classes[F.Class].Name + "." + F.Name : F.Name;
  }

  void computeCaptureContext() {
    size_t N = P.Functions.size();
    InCapture.assign(N, Via());
    Reached.assign(N, false);
    std::deque<int> Work;
    auto Reach = [&](int Caller, int CallIdx) {
      int Callee = P.Functions[Caller].F.Calls[CallIdx].Callee;
      if (Reached[Callee])
        return;
      Reached[Callee] = true;
      InCapture[Callee] = Via{Caller, CallIdx};
      Work.push_back(Callee);
    };
    for (size_t F = 0; F < N; ++F) {
      const Facts &Fa = P.Functions[F].F;
      for (size_t C = 0; C < Fa.Calls.size(); ++C)
        if (Fa.Calls[C].C.Region >= 0 && !Fa.Calls[C].C.Excluded)
          Reach((int)F, (int)C);
    }
    while (!Work.empty()) {
      int F = Work.front();
      Work.pop_front();
      const Facts &Fa = P.Functions[F].F;
      for (size_t C = 0; C < Fa.Calls.size(); ++C)
        if (!Fa.Calls[C].C.Excluded)
          Reach(F, (int)C);
    }
  }

  bool inCapture(int Fn, const Ctx &C) const {
    if (C.Excluded)
      return false;
    return C.Region >= 0 || Reached[Fn];
  }

  /// The region a statement's capture comes from, for its notes.
  const Region *regionOf(int Fn, const Ctx &C) const {
    if (C.Region >= 0)
      return &P.Functions[Fn].F.Regions[C.Region];
    int Cur = Fn;
    for (int Guard = 0; Guard < 10000 && Reached[Cur]; ++Guard) {
      const Via &V = InCapture[Cur];
      const CallFact &CF = P.Functions[V.Caller].F.Calls[V.Call];
      if (CF.C.Region >= 0)
        return &P.Functions[V.Caller].F.Regions[CF.C.Region];
      Cur = V.Caller;
    }
    return nullptr;
  }

  void openingNotes(int Fn, const Ctx &C, std::vector<Note> &Notes) const {
    std::vector<Note> Chain;
    const Region *R = nullptr;
    if (C.Region >= 0) {
      R = &P.Functions[Fn].F.Regions[C.Region];
    } else {
      int Cur = Fn;
      for (int Guard = 0; Guard < 10000 && Reached[Cur]; ++Guard) {
        const Via &V = InCapture[Cur];
        const CallFact &CF = P.Functions[V.Caller].F.Calls[V.Call];
        Chain.push_back(Note{P.loc(CF.At),
                             fill(msg::InCaptureThroughCall, displayName(Cur))});
        if (CF.C.Region >= 0) {
          R = &P.Functions[V.Caller].F.Regions[CF.C.Region];
          break;
        }
        Cur = V.Caller;
      }
    }
    if (R)
      Notes.push_back(Note{P.loc(R->Begin), msg::CaptureBeginsHere});
    for (auto It = Chain.rbegin(); It != Chain.rend(); ++It)
      Notes.push_back(*It);
  }

  void closingNote(int Fn, const Ctx &C, std::vector<Note> &Notes) const {
    const Region *R = regionOf(Fn, C);
    if (R && R->End.valid())
      Notes.push_back(Note{P.loc(R->End), msg::CaptureEndsHere});
  }

  void report(const char *Check, std::string Message, Pos At,
              std::vector<Note> Notes) {
    Finding F;
    F.Check = Check;
    F.Loc = P.loc(At);
    F.Message = std::move(Message);
    F.Notes = std::move(Notes);
    P.Findings.push_back(std::move(F));
  }

  void collectUses() {
    for (size_t F = 0; F < P.Functions.size(); ++F) {
      const Facts &Fa = P.Functions[F].F;
      for (size_t U = 0; U < Fa.Uses.size(); ++U)
        if (inCapture((int)F, Fa.Uses[U].C))
          CaptureUses.push_back({(int)F, (int)U});
    }
  }

  /// An in-capture use of Place, preferring one in function Near (the
  /// same layer's code reads it again on the next layer's call).
  const PlaceUseFact *findUse(int Place, bool NeedUnchecked, int Near) const {
    const PlaceUseFact *Any = nullptr;
    for (const UseRef &R : CaptureUses) {
      const PlaceUseFact &U = P.Functions[R.Fn].F.Uses[R.Idx];
      if (!P.samePlace(U.Place, Place) || (NeedUnchecked && U.SizeChecked))
        continue;
      if (R.Fn == Near)
        return &U;
      if (!Any)
        Any = &U;
    }
    return Any;
  }

  void checkWeakStores() {
    std::set<std::pair<int, std::pair<uint32_t, uint32_t>>> Seen;
    for (size_t F = 0; F < P.Functions.size(); ++F) {
      const Function &Fn = P.Functions[F];
      for (const WeakStoreFact &W : Fn.F.WeakStores) {
        if (!inCapture((int)F, W.C) || Fn.F.Escaped.count(W.Holder))
          continue;
        // Where the last strong reference dies before the capture ends.
        Pos Dies = W.DiesAt;
        if (!Dies.valid()) {
          bool OwnRegion =
              W.C.Region >= 0 &&
              Fn.F.Regions[W.C.Region].Kind != Region::Predicate;
          // Inside its own `with graph` the local outlives the region; in a
          // function that runs inside a capture it dies at the return.
          if (OwnRegion || Fn.ModuleBody)
            continue;
          Dies = W.ReturnAt.valid() ? W.ReturnAt : Fn.F.End;
        }
        const PlaceUseFact *Use = findUse(W.Place, false, (int)F);
        if (!Use)
          continue;
        if (!Seen.insert({W.WeakAt.Mod, {W.WeakAt.Row, W.WeakAt.Col}}).second)
          continue;
        std::vector<Note> Notes;
        openingNotes((int)F, W.C, Notes);
        Notes.push_back(Note{P.loc(W.Helper >= 0 ? W.HelperAt : W.StoreAt),
                             fill(msg::StoredInSharedPlace, W.PlaceName)});
        Notes.push_back(Note{P.loc(Dies), msg::LastStrongRefDies});
        Notes.push_back(Note{P.loc(Use->At), msg::LaterUseInCapture});
        closingNote((int)F, W.C, Notes);
        report(msg::WeakRefBeforeCaptureEnd, msg::WeakRefBeforeCaptureEndWarning,
               W.WeakAt, std::move(Notes));
      }
    }
  }

  void checkDanglingUses() {
    for (size_t F = 0; F < P.Functions.size(); ++F) {
      const Function &Fn = P.Functions[F];
      for (const DanglingUseFact &D : Fn.F.Danglings) {
        if (!inCapture((int)F, D.C) || Fn.F.Escaped.count(D.Holder))
          continue;
        std::vector<Note> Notes;
        openingNotes((int)F, D.C, Notes);
        Notes.push_back(Note{P.loc(D.DiesAt), msg::LastStrongRefDies});
        Notes.push_back(Note{P.loc(D.UseAt), msg::LaterUseInCapture});
        closingNote((int)F, D.C, Notes);
        report(msg::WeakRefBeforeCaptureEnd, msg::WeakRefBeforeCaptureEndWarning,
               D.WeakAt, std::move(Notes));
      }
    }
  }

  bool isWorkspacePlace(int Place, int Mod) const {
    const CompiledCatalog &Cat = *P.Modules[Mod]->Cat;
    std::string Name = llvm::StringRef(P.Places[Place].Name).lower();
    std::string Short = Name.substr(Name.rfind('.') + 1);
    return Cat.WorkspaceNames.matches(Short) || Cat.WorkspaceNames.matches(Name);
  }

  void checkWorkspaces() {
    for (size_t F = 0; F < P.Functions.size(); ++F) {
      const Function &Fn = P.Functions[F];
      for (const SlotWriteFact &S : Fn.F.SlotWrites) {
        if (!S.Shared || !inCapture((int)F, S.C))
          continue;
        const std::string &Name = S.PlaceName;
        if (S.Kind == SlotWriteFact::Replace || S.Kind == SlotWriteFact::Clear) {
          const PlaceUseFact *Use = findUse(S.Place, false, (int)F);
          if (!Use || !Use->Shared)
            continue;
          std::vector<Note> Notes;
          openingNotes((int)F, S.C, Notes);
          Notes.push_back(Note{P.loc(Use->At), msg::WorkspaceEarlierRead});
          closingNote((int)F, S.C, Notes);
          report(msg::WorkspaceSharedAcrossLayers,
                 fill(msg::WorkspaceReplacedWarning, Name), S.At,
                 std::move(Notes));
        } else if (S.ExplicitSize) {
          const PlaceUseFact *Use = findUse(S.Place, true, (int)F);
          if (!Use || !Use->Shared)
            continue;
          std::vector<Note> Notes;
          openingNotes((int)F, S.C, Notes);
          Notes.push_back(Note{P.loc(S.SizedAt), msg::WorkspaceSizedHere});
          Notes.push_back(Note{P.loc(Use->At), msg::WorkspaceReusedUnchecked});
          closingNote((int)F, S.C, Notes);
          report(msg::WorkspaceSharedAcrossLayers,
                 fill(msg::WorkspaceUnsizedWarning, Name), S.At,
                 std::move(Notes));
        }
      }
    }
    // Layers sharing a workspace slot on different streams in one capture.
    std::map<std::string, std::vector<UseRef>> ByName;
    for (const UseRef &R : CaptureUses) {
      const PlaceUseFact &U = P.Functions[R.Fn].F.Uses[R.Idx];
      if (U.Shared && isWorkspacePlace(U.Place, P.Functions[R.Fn].Mod))
        ByName[P.Places[U.Place].Name].push_back(R);
    }
    for (auto &[Name, Refs] : ByName) {
      const UseRef *Default = nullptr, *Other = nullptr;
      for (const UseRef &R : Refs) {
        const PlaceUseFact &U = P.Functions[R.Fn].F.Uses[R.Idx];
        if (!Default)
          Default = &R;
        else if (P.Functions[Default->Fn].F.Uses[Default->Idx].C.Stream !=
                     U.C.Stream &&
                 P.samePlace(P.Functions[Default->Fn].F.Uses[Default->Idx].Place,
                             U.Place)) {
          Other = &R;
          break;
        }
      }
      if (!Other)
        continue;
      if (P.Functions[Default->Fn].F.StreamSync ||
          P.Functions[Other->Fn].F.StreamSync)
        continue;
      const PlaceUseFact &A = P.Functions[Default->Fn].F.Uses[Default->Idx];
      const PlaceUseFact &B = P.Functions[Other->Fn].F.Uses[Other->Idx];
      // Report at the use on the side stream; note the other one.
      bool BSide = B.C.Stream >= 0;
      const PlaceUseFact &At = BSide ? B : A, &Else = BSide ? A : B;
      int AtFn = BSide ? Other->Fn : Default->Fn;
      std::vector<Note> Notes;
      openingNotes(AtFn, At.C, Notes);
      Notes.push_back(Note{P.loc(Else.At), msg::WorkspaceOtherStream});
      closingNote(AtFn, At.C, Notes);
      report(msg::WorkspaceSharedAcrossLayers,
             fill(msg::WorkspaceStreamsWarning, At.PlaceName),
             At.At, std::move(Notes));
    }
  }

  void checkDeferredNulls() {
    std::vector<std::pair<int, Pos>> Inits;
    for (const Function &Fn : P.Functions)
      for (const NoneInitFact &N : Fn.F.NoneInits)
        Inits.push_back({N.Place, N.At});
    if (Inits.empty())
      return;
    for (const Function &Fn : P.Functions)
      for (const DeferredNullFact &D : Fn.F.DeferredNulls)
        for (const auto &[Place, At] : Inits) {
          if (!P.samePlace(Place, D.Place))
            continue;
          std::vector<Note> Notes{Note{P.loc(At), msg::MaybeNullSource}};
          if (D.Helper >= 0) {
            const Function &H = P.Functions[D.Helper];
            std::string PName;
            for (size_t I = 0; I < H.Sum.Params.size() && I < H.Params.size(); ++I)
              if (H.Sum.Params[I].WeakRefs && H.Sum.Params[I].ConvAt == D.HelperAt)
                PName = H.Params[I];
            std::string HName = H.Class >= 0 ? P.Classes[H.Class].Name + "." + H.Name
                                             : H.Name;
            std::string M = msg::WeakRefHelperConverts;
            M.replace(M.find("%0"), 2, HName);
            M.replace(M.find("%1"), 2, PName);
            Notes.push_back(Note{P.loc(D.HelperAt), M});
          }
          report(msg::WeakRefOfMaybeNull, msg::WeakRefOfMaybeNullWarning, D.At,
                 std::move(Notes));
          break;
        }
  }
};

} // namespace

void tether::python::runPackageChecks(Package &P) { PackageChecker(P).run(); }
