//===- Builder.h - Building a function of the IR, one block at a time ----===//
//
// What every lowering (and every engine unit test) needs: fresh variables
// and blocks, and instructions appended to the current block. A block ends
// with exactly one terminator; instructions emitted after a terminator (dead
// code after `return`) open an unreachable block so nothing is lost.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_ENGINE_BUILDER_H
#define TETHER_ENGINE_BUILDER_H

#include "engine/Ir.h"
#include <iterator>
#include <vector>

namespace tether::engine {

class FunctionBuilder {
public:
  explicit FunctionBuilder(Function &F) : F(F) {
    F.Blocks.clear();
    Cur = block(); // the entry, 0
  }

  /// A new variable; parameters are the first ones the lowering creates.
  VarId var(std::string Name = {}) {
    F.VarNames.push_back(std::move(Name));
    return VarId(F.VarNames.size() - 1);
  }
  VarId param(std::string Name, ClassId Class = -1, ClassId Elem = -1) {
    VarId V = var(std::move(Name));
    F.NumParams = uint32_t(V + 1);
    F.ParamClass.resize(F.NumParams, -1);
    F.ParamClass[V] = Class;
    if (Elem >= 0) {
      F.ParamElemClass.resize(F.NumParams, -1);
      F.ParamElemClass[V] = Elem;
    }
    return V;
  }

  uint32_t block() {
    F.Blocks.emplace_back();
    F.Blocks.back().Term.Kind = Terminator::Goto;
    F.Blocks.back().Term.Succ[0] = kOpen;
    return uint32_t(F.Blocks.size() - 1);
  }
  void setBlock(uint32_t B) { Cur = B; Terminated = isTerminated(B); }
  uint32_t current() const { return Cur; }
  /// True once the current block has its terminator.
  bool terminated() const { return Terminated; }

  Inst &emit(Op K, SrcLoc Loc) {
    if (Terminated)
      setBlock(block()); // unreachable code keeps its instructions
    auto &Insts = F.Blocks[Cur].Insts;
    Insts.emplace_back();
    Insts.back().Kind = K;
    Insts.back().Loc = Loc;
    return Insts.back();
  }

  void jump(uint32_t To, SrcLoc Loc = {}) {
    Terminator &T = term(Loc);
    T.Kind = Terminator::Goto;
    T.Succ[0] = To;
  }
  void branch(VarId Cond, uint32_t IfTrue, uint32_t IfFalse, SrcLoc Loc) {
    Terminator &T = term(Loc);
    T.Kind = Terminator::Branch;
    T.Cond = Cond;
    T.Succ[0] = IfTrue;
    T.Succ[1] = IfFalse;
  }
  void ret(VarId Value, SrcLoc Loc) {
    Terminator &T = term(Loc);
    T.Kind = Terminator::Return;
    T.Value = Value;
  }
  void raise(SrcLoc Loc) {
    Terminator &T = term(Loc);
    T.Kind = Terminator::Raise;
  }

  /// Close the function: a block still open falls off the end (returns
  /// nothing at EndLoc). Call once, after the last statement.
  void finish() {
    if (!Terminated)
      ret(NoVar, F.EndLoc);
    for (Block &B : F.Blocks)
      if (B.Term.Kind == Terminator::Goto && B.Term.Succ[0] == kOpen) {
        B.Term.Kind = Terminator::Return; // never reached by a jump
        B.Term.Value = NoVar;
        B.Term.Loc = F.EndLoc;
      }
    // The vectors grew by doubling, and a program keeps every function's
    // IR until it is analysed: the slack was a quarter of a package's IR.
    for (Block &B : F.Blocks)
      fit(B.Insts);
    fit(F.Blocks);
    fit(F.VarNames);
  }

private:
  static constexpr uint32_t kOpen = ~0u;
  /// shrink_to_fit, which libstdc++ skips when built without exceptions.
  template <typename T> static void fit(std::vector<T> &V) {
    if (V.capacity() > V.size())
      std::vector<T>(std::make_move_iterator(V.begin()),
                     std::make_move_iterator(V.end()))
          .swap(V);
  }
  bool isTerminated(uint32_t B) const {
    const Terminator &T = F.Blocks[B].Term;
    return !(T.Kind == Terminator::Goto && T.Succ[0] == kOpen);
  }
  Terminator &term(SrcLoc Loc) {
    if (Terminated)
      setBlock(block());
    Terminated = true;
    Terminator &T = F.Blocks[Cur].Term;
    T.Loc = Loc;
    return T;
  }

  Function &F;
  uint32_t Cur = 0;
  bool Terminated = false;
};

} // namespace tether::engine

#endif
