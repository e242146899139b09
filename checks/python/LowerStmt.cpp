//===- LowerStmt.cpp - Statements into blocks and terminators -------------===//
//
// Statements of one block are lowered in a loop (a module of 100,000
// statements, an elif chain of 5,000 clauses); only nested blocks recurse,
// and the nesting budget (Nesting.h) bounds them.
//
//===----------------------------------------------------------------------===//
#include "Imports.h"
#include "LowerImpl.h"

using namespace tether;
using namespace tether::python;
using engine::Op;
using engine::VarId;

void FnLowerer::block(SyntaxNode Block) {
  std::vector<SyntaxNode> Stmts;
  eachChild(Block, true, [&](SyntaxNode S, TSFieldId) {
    if (kindOf(S) != G.Comment)
      Stmts.push_back(S);
  });
  for (size_t I = 0; I < Stmts.size(); ++I)
    stmt(Stmts[I], I + 1 < Stmts.size() ? Stmts[I + 1] : SyntaxNode{});
}

void FnLowerer::stmt(SyntaxNode S, SyntaxNode Next) {
  TSSymbol K = kindOf(S);
  if (K == G.ExprStmt) {
    eachChild(S, true, [&](SyntaxNode X, TSFieldId) {
      if (kindOf(X) != G.Comment)
        expr(X);
    });
  } else if (K == G.If) {
    ifChain(S);
  } else if (K == G.For) {
    forLoop(S);
  } else if (K == G.While) {
    whileLoop(S);
  } else if (K == G.Try) {
    tryStmt(S);
  } else if (K == G.With) {
    withStmt(S, Next);
  } else if (K == G.Return) {
    returnStmt(S);
  } else if (K == G.Raise) {
    raiseStmt(S);
  } else if (K == G.Delete) {
    deleteStmt(S);
  } else if (K == G.Break || K == G.Continue) {
    if (Loops.empty())
      return; // outside a loop: a syntax error CPython reports
    const Loop &Lp = Loops.back();
    leaveRegions(Lp.RegionDepth, loc(S));
    B.jump(K == G.Break ? Lp.Break : Lp.Continue, loc(S));
  } else if (K == G.Global) {
    eachChild(S, true, [&](SyntaxNode X, TSFieldId) {
      if (kindOf(X) == G.Identifier)
        GlobalDecl.insert(text(X));
    });
  } else if (K == G.Import || K == G.ImportFrom) {
    importStmt(S);
  } else if (K == G.Assert) {
    SyntaxNode C = firstChildOf(S);
    uint32_t Ok = B.block(), Fail = B.block();
    condition(C, Ok, Fail);
    B.setBlock(Fail);
    throwOut(loc(S));
    B.setBlock(Ok);
  } else if (K == G.FunctionDef || K == G.DecoratedDef) {
    SyntaxNode Def = K == G.DecoratedDef ? fieldOf(S, G.FDefinition) : S;
    std::string Name = text(fieldOf(Def, G.FName));
    auto It = Fn.Nested.find(Name);
    if (FnIsModule || kindOf(Def) != G.FunctionDef || It == Fn.Nested.end())
      return; // module-level definitions are resolved by name
    VarId V = local(Name);
    emit(Op::Const, S).Dst = V;
    FnRef R;
    R.Fn = It->second;
    info(V).Fns.push_back(R);
  } else if (K == G.ClassDef || K == G.FutureImport || K == L.Nonlocal ||
             K == L.Pass) {
    // Nested classes stay opaque; nonlocal names are read as unknowns.
  } else if (K == G.Match) {
    matchStmt(S);
  } else {
    // Anything else (type aliases, statements of an error): its
    // expressions, for their calls.
    eachChild(S, true, [&](SyntaxNode X, TSFieldId) {
      if (kindOf(X) != G.Block && kindOf(X) != G.Comment)
        expr(X);
    });
  }
}

void FnLowerer::ifChain(SyntaxNode If) {
  // `if`, then each `elif` in turn, in a loop: a chain of thousands of
  // clauses is one statement.
  std::vector<SyntaxNode> Alts;
  eachChild(If, true, [&](SyntaxNode C, TSFieldId F) {
    if (F == G.FAlternative)
      Alts.push_back(C);
  });
  uint32_t Join = B.block();
  SyntaxNode CondN = fieldOf(If, G.FCondition), Conseq = fieldOf(If, G.FConsequence);
  for (size_t AltIdx = 0;;) {
    uint32_t T = B.block(), F = B.block();
    condition(CondN, T, F);
    B.setBlock(T);
    block(Conseq);
    if (!B.terminated())
      B.jump(Join);
    B.setBlock(F);
    if (AltIdx >= Alts.size())
      break;
    SyntaxNode A = Alts[AltIdx++];
    if (kindOf(A) != G.Elif) {
      block(fieldOf(A, G.FBody));
      break;
    }
    CondN = fieldOf(A, G.FCondition);
    Conseq = fieldOf(A, G.FConsequence);
  }
  if (!B.terminated())
    B.jump(Join);
  B.setBlock(Join);
}

void FnLowerer::forLoop(SyntaxNode S) {
  VarId Iter = expr(fieldOf(S, G.FRight));
  uint32_t Head = B.block(), Body = B.block(), Exit = B.block(),
           After = B.block();
  B.jump(Head);
  B.setBlock(Head);
  VarId More = constant(S); // another element: not known here
  B.branch(More, Body, Exit, loc(S));
  B.setBlock(Body);
  SyntaxNode Target = fieldOf(S, G.FLeft);
  bindElement(Target, Iter, Target);
  Loops.push_back({Head, After, Regions.size()});
  block(fieldOf(S, G.FBody));
  Loops.pop_back();
  if (!B.terminated())
    B.jump(Head);
  B.setBlock(Exit);
  SyntaxNode Else = fieldOf(S, G.FAlternative);
  if (!isNull(Else))
    block(fieldOf(Else, G.FBody));
  if (!B.terminated())
    B.jump(After);
  B.setBlock(After);
}

void FnLowerer::whileLoop(SyntaxNode S) {
  uint32_t Head = B.block(), Body = B.block(), Exit = B.block(),
           After = B.block();
  B.jump(Head);
  B.setBlock(Head);
  condition(fieldOf(S, G.FCondition), Body, Exit);
  B.setBlock(Body);
  Loops.push_back({Head, After, Regions.size()});
  block(fieldOf(S, G.FBody));
  Loops.pop_back();
  if (!B.terminated())
    B.jump(Head);
  B.setBlock(Exit);
  SyntaxNode Else = fieldOf(S, G.FAlternative);
  if (!isNull(Else))
    block(fieldOf(Else, G.FBody));
  if (!B.terminated())
    B.jump(After);
  B.setBlock(After);
}

void FnLowerer::throwOut(engine::SrcLoc At) {
  if (!Handlers.empty()) {
    leaveRegions(Handlers.back().RegionDepth, At);
    B.jump(Handlers.back().Dispatch, At);
    return;
  }
  leaveRegions(0, At);
  B.raise(At);
}

void FnLowerer::tryStmt(SyntaxNode S) {
  // The body may raise before any of it ran and after all of it (and
  // anywhere between: the engine joins both ends); each handler may take
  // the exception; one `finally` block serves the normal and the
  // exceptional exits, and leaves by either.
  SyntaxNode Else{}, Finally{};
  std::vector<SyntaxNode> Excepts;
  eachChild(S, true, [&](SyntaxNode C, TSFieldId) {
    TSSymbol K = kindOf(C);
    if (K == G.Except || K == G.ExceptGroup)
      Excepts.push_back(C);
    else if (K == G.Else)
      Else = C;
    else if (K == G.Finally)
      Finally = C;
  });
  uint32_t Dispatch = B.block(), Fin = B.block(), Entry = B.block();
  B.branch(constant(S), Entry, Dispatch, loc(S));
  B.setBlock(Entry);
  Handlers.push_back({Dispatch, Regions.size()});
  block(fieldOf(S, G.FBody));
  Handlers.pop_back();
  if (!B.terminated()) {
    uint32_t Normal = B.block();
    B.branch(constant(S), Normal, Dispatch, loc(S));
    B.setBlock(Normal);
    if (!isNull(Else))
      block(fieldOf(Else, G.FBody));
    if (!B.terminated())
      B.jump(Fin);
  }
  B.setBlock(Dispatch);
  // A raise inside a handler (or an exception no handler takes) runs the
  // finally block on its way out.
  uint32_t Unhandled = B.block();
  if (!isNull(Finally))
    Handlers.push_back({Unhandled, Regions.size()});
  for (SyntaxNode E : Excepts) {
    uint32_t Take = B.block(), Next = B.block();
    B.branch(constant(E), Take, Next, loc(E));
    B.setBlock(Take);
    eachChild(E, true, [&](SyntaxNode X, TSFieldId) {
      TSSymbol K = kindOf(X);
      if (K == G.Block)
        block(X);
      else if (K == G.AsPattern) // except E as e: e holds no memory of ours
        assign(firstChildOf(fieldOf(X, G.FAlias)), constant(X));
    });
    if (!B.terminated())
      B.jump(Fin);
    B.setBlock(Next);
  }
  if (!isNull(Finally))
    Handlers.pop_back();
  B.jump(Unhandled);
  B.setBlock(Unhandled);
  if (isNull(Finally)) {
    throwOut(loc(S));
    B.setBlock(Fin);
    return;
  }
  // Unhandled: through the finally block, then on up.
  uint32_t FinBody = B.block();
  B.jump(FinBody);
  B.setBlock(Fin);
  B.jump(FinBody);
  B.setBlock(FinBody);
  eachChild(Finally, true, [&](SyntaxNode X, TSFieldId) {
    if (kindOf(X) == G.Block)
      block(X);
  });
  if (B.terminated())
    return;
  uint32_t Rethrow = B.block(), After = B.block();
  B.branch(constant(Finally), Rethrow, After, endLoc(Finally));
  B.setBlock(Rethrow);
  throwOut(endLoc(Finally));
  B.setBlock(After);
}

void FnLowerer::withStmt(SyntaxNode S, SyntaxNode Next) {
  size_t Depth = Regions.size();
  eachChild(S, true, [&](SyntaxNode Clause, TSFieldId) {
    if (kindOf(Clause) != G.WithClause)
      return;
    eachChild(Clause, true, [&](SyntaxNode Item, TSFieldId) {
      if (kindOf(Item) != G.WithItem)
        return;
      SyntaxNode V = fieldOf(Item, G.FValue), Alias{};
      // `with a if c else b as t:` binds t to the whole conditional; the
      // nested `b as t` is lowered as b (exprKind).
      SyntaxNode As = withItemAs(V);
      if (!isNull(As)) {
        Alias = firstChildOf(fieldOf(As, G.FAlias));
        if (stripParens(V).id() == As.id())
          V = firstChildOf(As);
      }
      V = stripParens(V);
      VarId Val = engine::NoVar;
      if (kindOf(V) == G.Call) {
        SyntaxNode Fn = stripParens(fieldOf(V, G.FFunction));
        std::string D = dottedName(Fn, Src);
        std::string Q = D.empty() ? "" : resolve(D).Qual;
        // get_accelerator().capture_to_graph(g) (DeepSpeed): a method of
        // an object no name reaches is matched by its own name, which the
        // catalog's unscoped entries name in any namespace.
        if (D.empty() && kindOf(Fn) == G.Attribute) {
          D = text(fieldOf(Fn, G.FAttribute));
          Q = D;
        }
        bool Capture = !D.empty() && Cat.CaptureContexts.matches(Q);
        bool Session = !Capture && !D.empty() && Cat.SessionContexts.matches(Q);
        bool Stream = !Capture && !Session && !D.empty() &&
                      Cat.StreamSwitches.matches(Q);
        if (Capture || Session || Stream) {
          std::vector<CallArg> As = callArgs(fieldOf(V, G.FArguments));
          lowerArgs(As);
          OpenRegion R;
          R.Kind = Capture   ? engine::RegionKind::Capture
                   : Session ? engine::RegionKind::CaptureSession
                             : engine::RegionKind::Stream;
          if (Stream)
            R.Key = As.empty() ? key(V) : key(As[0].Value);
          engine::Inst &I = emit(Op::RegionBegin, S);
          I.Region = R.Kind;
          I.Key = R.Key;
          I.Name = D;
          // The graph captured into: `torch.cuda.graph(g, ...)`.
          if (Capture && firstPlain(As))
            I.A = As[0].V;
          Regions.push_back(std::move(R));
          Val = constant(V);
        }
      }
      VarId Bound = engine::NoVar;
      if (Val == engine::NoVar) {
        Val = expr(V);
        // A context manager of the program's own: its __enter__ runs here
        // and gives the `as` value, its __exit__ runs where the block is
        // left (a capture it opens or ends is its summary's, Summary::Exit).
        std::vector<FnRef> Enter = methodsOf(Val, "__enter__");
        if (!Enter.empty()) {
          std::vector<CallArg> None;
          Bound = temp();
          emitCall(Bound, Enter, None, Item, "__enter__");
          for (const FnRef &R : Enter)
            addClass(Bound, Types.returns(R.Fn));
        }
        std::vector<FnRef> Exit = methodsOf(Val, "__exit__");
        if (!Exit.empty()) {
          OpenRegion R;
          R.Exit = std::move(Exit);
          R.Item = Item;
          Regions.push_back(std::move(R));
        }
      }
      if (!isNull(Alias))
        assign(Alias, Bound != engine::NoVar ? Bound : Val);
    });
  });
  block(fieldOf(S, G.FBody));
  // Where the region ends for the notes: the next statement, or the end
  // of the `with` when it is its block's last.
  engine::SrcLoc End = isNull(Next) ? endLoc(S) : loc(Next);
  if (!B.terminated())
    leaveRegions(Depth, End);
  Regions.resize(Depth);
}

void FnLowerer::leaveRegions(size_t Depth, engine::SrcLoc At) {
  for (size_t I = Regions.size(); I-- > Depth;) {
    if (!Regions[I].Exit.empty()) {
      std::vector<CallArg> None;
      emitCall(engine::NoVar, Regions[I].Exit, None, Regions[I].Item,
               "__exit__")
          .Loc = At;
      continue;
    }
    engine::Inst &E = B.emit(Op::RegionEnd, At);
    E.Region = Regions[I].Kind;
    E.Key = Regions[I].Key;
  }
}

void FnLowerer::returnStmt(SyntaxNode S) {
  SyntaxNode X = firstChildOf(S);
  VarId V = isNull(X) || kindOf(X) == G.Comment ? engine::NoVar : expr(X);
  leaveRegions(0, loc(S));
  B.ret(V, loc(S));
}

void FnLowerer::raiseStmt(SyntaxNode S) {
  eachChild(S, true, [&](SyntaxNode X, TSFieldId) {
    if (kindOf(X) != G.Comment)
      expr(X);
  });
  throwOut(loc(S));
}

void FnLowerer::deleteStmt(SyntaxNode S) {
  std::vector<SyntaxNode> Targets;
  eachChild(S, true, [&](SyntaxNode C, TSFieldId) {
    if (kindOf(C) == G.ExpressionList)
      eachChild(C, true, [&](SyntaxNode D, TSFieldId) { Targets.push_back(D); });
    else if (kindOf(C) != G.Comment)
      Targets.push_back(C);
  });
  for (SyntaxNode T : Targets) {
    T = stripParens(T);
    TSSymbol K = kindOf(T);
    if (K == G.Identifier) {
      std::string N = text(T);
      if (isLocalName(N)) {
        emit(Op::Kill, S).A = local(N);
      } else if (FnIsModule || GlobalDecl.count(N)) {
        engine::Inst &I = emit(Op::Clear, S);
        I.P.Kind = engine::PlaceRef::Global;
        I.P.Name = M.Name + "." + N;
        I.P.Spelling = N;
      }
    } else if (K == G.Subscript) {
      VarId Base = expr(fieldOf(T, G.FValue));
      std::string Key;
      SyntaxNode Sub = fieldOf(T, G.FSubscript);
      Key = constKey(Sub);
      if (Key.empty())
        expr(Sub);
      engine::Inst &I = emit(Op::Clear, S);
      I.P.Kind = engine::PlaceRef::Element;
      I.P.Base = Base;
      I.P.Key = Key;
      I.P.Spelling = key(T);
    } else if (K == G.Attribute) {
      VarId Base = expr(fieldOf(T, G.FObject));
      engine::Inst &I = emit(Op::Clear, S);
      I.P.Kind = engine::PlaceRef::Field;
      I.P.Base = Base;
      I.P.Name = text(fieldOf(T, G.FAttribute));
      I.P.Spelling = key(T);
    }
  }
}

void FnLowerer::importStmt(SyntaxNode S) {
  if (FnIsModule)
    return; // the module's imports are its index's (Package::resolve)
  // A function-level import binds names for this function only (vLLM
  // Ascend imports lazily).
  if (kindOf(S) == G.Import) {
    eachChild(S, true, [&](SyntaxNode N, TSFieldId F) {
      if (F != G.FName)
        return;
      if (kindOf(N) == G.AliasedImport) {
        LocalImports[text(fieldOf(N, G.FAlias))] = text(fieldOf(N, G.FName));
      } else {
        std::string D = text(N);
        std::string Head = D.substr(0, D.find('.'));
        LocalImports[Head] = Head;
      }
    });
    return;
  }
  std::string Base = importFromModule(S, Src, M.Name, M.IsPackage);
  eachChild(S, true, [&](SyntaxNode N, TSFieldId F) {
    if (F != G.FName)
      return;
    if (kindOf(N) == G.AliasedImport)
      LocalImports[text(fieldOf(N, G.FAlias))] =
          Base + "." + text(fieldOf(N, G.FName));
    else
      LocalImports[text(N)] = Base + "." + text(N);
  });
}

void FnLowerer::matchStmt(SyntaxNode S) {
  // Each case may be the one taken; patterns bind nothing we follow.
  std::vector<SyntaxNode> Cases;
  eachChild(S, true, [&](SyntaxNode C, TSFieldId F) {
    if (F == G.FBody || kindOf(C) == G.Block)
      eachChild(C, true, [&](SyntaxNode X, TSFieldId) {
        if (kindOf(X) != G.Comment)
          Cases.push_back(X);
      });
    else if (kindOf(C) != G.Comment)
      expr(C); // the subject
  });
  uint32_t Join = B.block();
  for (SyntaxNode C : Cases) {
    uint32_t Take = B.block(), Next = B.block();
    B.branch(constant(C), Take, Next, loc(C));
    B.setBlock(Take);
    eachChild(C, true, [&](SyntaxNode X, TSFieldId) {
      if (kindOf(X) == G.Block)
        block(X);
    });
    if (!B.terminated())
      B.jump(Join);
    B.setBlock(Next);
  }
  B.jump(Join);
  B.setBlock(Join);
}
