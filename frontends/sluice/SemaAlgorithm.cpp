//===- SemaAlgorithm.cpp - Checking algorithms and statements -------------===//
//
// Algorithm declarations and the statements of algorithm bodies and walk
// update blocks: vertex properties, frontiers, locals, loops over vertices
// and edges with their labels, assignments and reductions, outputs. The
// rules are listed in Sema.cpp.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

using namespace sluice;
using namespace sluice::sema;
using ast::Type;
using K = ast::Type::Kind;

namespace {

llvm::StringRef spellAssign(ast::AssignOp op) {
  switch (op) {
  case ast::AssignOp::Set:
    return "=";
  case ast::AssignOp::Add:
    return "+=";
  case ast::AssignOp::Sub:
    return "-=";
  case ast::AssignOp::Mul:
    return "*=";
  case ast::AssignOp::Min:
    return "min=";
  case ast::AssignOp::Max:
    return "max=";
  }
  llvm_unreachable("unknown assignment operator");
}

llvm::StringRef keyword(ast::Stmt::Kind kind) {
  switch (kind) {
  case ast::Stmt::Kind::VertexProp:
    return "vertex";
  case ast::Stmt::Kind::Frontier:
    return "frontier";
  case ast::Stmt::Kind::Let:
    return "let";
  case ast::Stmt::Kind::Repeat:
    return "repeat";
  case ast::Stmt::Kind::While:
    return "while";
  case ast::Stmt::Kind::If:
    return "if";
  case ast::Stmt::Kind::Vertices:
    return "vertices";
  case ast::Stmt::Kind::Edges:
    return "edges";
  case ast::Stmt::Kind::Output:
    return "output";
  case ast::Stmt::Kind::Assign:
    return "assignment";
  }
  llvm_unreachable("unknown statement kind");
}

class StmtChecker {
public:
  StmtChecker(Sema &s, Sema::StmtMode mode) : s(s), mode(mode) {}
  void checkBlock(ast::Block &block, bool topLevel);

private:
  void checkStmt(ast::Stmt &stmt, bool topLevel);
  void checkNested(ast::Block &block) {
    Sema::ScopeGuard scope(s);
    checkBlock(block, /*topLevel=*/false);
  }
  void declareLabel(const std::string &label, const ast::SourceRange &range,
                    bool isEdges);
  void bindLoopBinders(std::vector<ast::Binder> &binders,
                       llvm::ArrayRef<Type> types, size_t minCount,
                       const ast::SourceRange &range, llvm::StringRef what,
                       llvm::StringRef spelling);
  /// A symbol declared in a local scope (not a global).
  Symbol *lookupLocal(llvm::StringRef name);
  void unknownName(llvm::StringRef name, const ast::SourceRange &range);
  void checkAssign(ast::AssignStmt &a);
  void checkOutput(ast::OutputStmt &o);
  void checkEdges(ast::EdgesStmt &e);
  /// A loop's `where` condition (Sema::inLoopCondition while it is checked).
  void checkLoopCondition(ast::Expr *cond) {
    bool saved = s.inLoopCondition;
    s.inLoopCondition = true;
    s.checkCondition(cond);
    s.inLoopCondition = saved;
  }
  /// Enters the body of a loop over vertices or edges (`keyword`) whose
  /// binder scope is the innermost one; reports a loop nested in another.
  /// Returns what to restore with leaveLoop.
  std::pair<size_t, llvm::StringRef> enterLoop(llvm::StringRef keyword,
                                               const ast::SourceRange &range);
  void leaveLoop(std::pair<size_t, llvm::StringRef> saved) {
    std::tie(loopScope, loopKeyword) = saved;
  }
  /// Reports an assignment to `sym` (a local or frontier), inside a loop
  /// over vertices or edges, when it is declared outside that loop.
  void checkLoopAssign(llvm::StringRef name, const ast::SourceRange &range,
                       const Symbol &sym,
                       ast::AssignOp op = ast::AssignOp::Set);
  /// Records the locals a `vertices` loop reduces into (Sema's
  /// loopReductions); a local reduced two ways is an error.
  void collectLoopReductions(const ast::VerticesStmt &v);

  Sema &s;
  Sema::StmtMode mode;
  /// Inside the body of a loop over vertices or edges: the index in
  /// s.scopes of its binder scope, and "vertices" or "edges".
  size_t loopScope = 0;
  llvm::StringRef loopKeyword;
};

/// "a" or "an" before the loop keyword `word`.
llvm::StringRef article(llvm::StringRef word) {
  return word.starts_with("e") ? "an" : "a";
}

std::pair<size_t, llvm::StringRef>
StmtChecker::enterLoop(llvm::StringRef keyword, const ast::SourceRange &range) {
  std::pair<size_t, llvm::StringRef> saved{loopScope, loopKeyword};
  if (!loopKeyword.empty())
    s.error(range) << "'" << keyword << "' cannot be nested in "
                   << article(loopKeyword) << " '" << loopKeyword
                   << "' loop; loops over vertices and edges stand in the "
                      "algorithm's body or in its repeat, while and if "
                      "blocks";
  loopScope = s.scopes.size() - 1;
  loopKeyword = keyword;
  return saved;
}

/// Reductions that combine the same way: `+=` with `-=`, each other one
/// alone.
ast::AssignOp reductionClass(ast::AssignOp op) {
  return op == ast::AssignOp::Sub ? ast::AssignOp::Add : op;
}

void StmtChecker::collectLoopReductions(const ast::VerticesStmt &v) {
  for (const ast::AssignStmt *a : ast::outerReductions(v.body)) {
    Symbol *sym = s.lookup(a->target);
    if (!sym || sym->kind != SymKind::Let || !sym->assignable ||
        a->op == ast::AssignOp::Mul)
      continue; // checkAssign reports these
    auto [it, inserted] = s.loopReductions.try_emplace(sym, a);
    if (inserted ||
        reductionClass(it->second->op) == reductionClass(a->op))
      continue;
    auto diag = s.error(a->targetRange)
                << "'" << spellAssign(a->op) << "' into local '" << a->target
                << "' in a 'vertices' loop that also reduces into it with '"
                << spellAssign(it->second->op)
                << "': a loop combines a local one way";
    s.note(diag, it->second->targetRange,
           "'" + a->target + "' is reduced into here");
  }
}

void StmtChecker::checkLoopAssign(llvm::StringRef name,
                                  const ast::SourceRange &range,
                                  const Symbol &sym, ast::AssignOp op) {
  if (loopKeyword.empty() || mode != Sema::StmtMode::Algorithm)
    return;
  for (size_t i = loopScope; i < s.scopes.size(); ++i) {
    auto found = s.scopes[i]->find(name);
    if (found != s.scopes[i]->end() && &found->second == &sym)
      return; // declared inside the loop
  }
  if (op != ast::AssignOp::Set && sym.kind == SymKind::Let) {
    if (loopKeyword == "edges") {
      auto diag = s.error(range)
                  << "not supported yet: a reduction into local '" << name
                  << "' inside an 'edges' loop; reduce into a vertex "
                     "property, or into '"
                  << name << "' from a 'vertices' loop";
      s.note(diag, sym.range, "'" + name.str() + "' is declared here");
      return;
    }
    if (op == ast::AssignOp::Mul) {
      s.error(range) << "'*=' cannot reduce into local '" << name
                     << "' inside a 'vertices' loop; a loop reduces into a "
                        "local declared before it with '+=', '-=', 'min=' "
                        "or 'max='";
      return;
    }
    // (A target that is no number at all is checkAssign's error.)
    if (sym.type.isNumeric() && sym.type.kind != K::Int &&
        sym.type.kind != K::Float) {
      s.error(range) << "a reduction into local '" << name
                     << "' inside a 'vertices' loop needs an f64 or i64 "
                        "local, got "
                     << typeName(sym.type);
      return;
    }
    if (s.loopReductions.count(&sym))
      return; // combined after the loop (graph.vertices' reductions)
  }
  auto diag = s.error(range)
              << "cannot assign " << describe(sym.kind) << " '" << name
              << "' inside " << article(loopKeyword) << " '" << loopKeyword
              << "' loop: its iterations run in parallel, and '" << name
              << "' is declared outside it";
  s.note(diag, sym.range, "'" + name.str() + "' is declared here");
}

void StmtChecker::checkBlock(ast::Block &block, bool topLevel) {
  for (ast::StmtPtr &stmt : block)
    if (stmt)
      checkStmt(*stmt, topLevel);
}

Symbol *StmtChecker::lookupLocal(llvm::StringRef name) {
  for (auto it = s.scopes.rbegin(); it != s.scopes.rend(); ++it) {
    auto found = (*it)->find(name.str());
    if (found != (*it)->end())
      return &found->second;
  }
  return nullptr;
}

void StmtChecker::unknownName(llvm::StringRef name,
                              const ast::SourceRange &range) {
  s.error(range) << "unknown name '" << name << "'"
                 << s.unknownNameHint(name, range, s.visibleNames());
}

void StmtChecker::declareLabel(const std::string &label,
                               const ast::SourceRange &range, bool isEdges) {
  if (label.empty() || !s.currentAlgorithm)
    return;
  AlgoInfo &info = s.algoInfo[s.currentAlgorithm];
  LabelInfo li;
  li.range = range;
  li.isEdges = isEdges;
  auto [prev, inserted] = info.labels.emplace(label, li);
  if (!inserted) {
    auto diag = s.error(range) << "redefinition of label '@" << label << "'";
    s.note(diag, prev->second.range,
           "previous definition of '@" + label + "' is here");
  }
}

void StmtChecker::bindLoopBinders(std::vector<ast::Binder> &binders,
                                  llvm::ArrayRef<Type> types, size_t minCount,
                                  const ast::SourceRange &range,
                                  llvm::StringRef what,
                                  llvm::StringRef spelling) {
  bool ok = binders.size() >= minCount && binders.size() <= types.size();
  if (!ok)
    s.error(range) << what << " takes " << spelling << ", got "
                   << binders.size()
                   << (binders.size() == 1 ? " binder" : " binders");
  for (size_t i = 0; i < binders.size(); ++i) {
    Symbol sym;
    sym.kind = SymKind::Binder;
    sym.type = ok ? types[i] : Type::unknown();
    s.declare(binders[i].name, binders[i].range, std::move(sym));
  }
}

void StmtChecker::checkStmt(ast::Stmt &stmt, bool topLevel) {
  if (!s.enter(stmt.range))
    return;
  if (mode == Sema::StmtMode::WalkUpdate &&
      stmt.getKind() != ast::Stmt::Kind::Let &&
      stmt.getKind() != ast::Stmt::Kind::If &&
      stmt.getKind() != ast::Stmt::Kind::Assign) {
    s.error(stmt.range) << "'" << keyword(stmt.getKind())
                        << "' cannot be used in a walk update block; only "
                           "'let', 'if' and assignments to state variables";
    s.leave();
    return;
  }
  const Type vertex = Type::of(K::Vertex);
  switch (stmt.getKind()) {
  case ast::Stmt::Kind::VertexProp: {
    auto &v = llvm::cast<ast::VertexPropStmt>(stmt);
    if (!topLevel)
      s.error(v.nameRange) << "vertex property '" << v.name
                           << "' must be declared at the top level of the "
                              "algorithm";
    Type elt = s.resolveType(v.type);
    if (v.init)
      s.checkAs(v.init.get(), elt, "vertex property '" + v.name + "'");
    else if (!elt.isUnknown() && elt.kind != K::Vertex)
      s.error(v.range) << "vertex property '" << v.name << "' of type "
                       << typeName(elt)
                       << " needs an initial value ('= ...'); only one of "
                          "type vertex may omit it (each vertex starts as "
                          "itself)";
    Symbol sym;
    sym.kind = SymKind::VertexProp;
    sym.type.kind = K::VertexProp;
    sym.type.element = std::make_shared<const Type>(elt);
    sym.assignable = true;
    s.declare(v.name, v.nameRange, std::move(sym));
    break;
  }
  case ast::Stmt::Kind::Frontier: {
    auto &f = llvm::cast<ast::FrontierStmt>(stmt);
    s.checkVertexSet(f.init.get(), "frontier '" + f.name + "'");
    Symbol sym;
    sym.kind = SymKind::Frontier;
    sym.type = Type::of(K::Frontier);
    sym.assignable = true;
    s.declare(f.name, f.nameRange, std::move(sym));
    break;
  }
  case ast::Stmt::Kind::Let: {
    auto &l = llvm::cast<ast::LetStmt>(stmt);
    s.checkLet(l.name, l.nameRange, l.type.get(), l.value.get(), SymKind::Let,
               /*assignable=*/mode == Sema::StmtMode::Algorithm);
    break;
  }
  case ast::Stmt::Kind::Repeat: {
    auto &r = llvm::cast<ast::RepeatStmt>(stmt);
    Type t = s.check(r.count.get());
    if (r.count && !t.isUnknown()) {
      if (t.kind != K::Int)
        s.error(r.count->range)
            << "repeat count must be i64, got " << typeName(t);
      else if (const Value *v = s.valueOf(r.count.get()))
        if (v->i < 0)
          s.error(r.count->range)
              << "repeat count must not be negative, got " << v->i;
    }
    checkNested(r.body);
    break;
  }
  case ast::Stmt::Kind::While: {
    auto &w = llvm::cast<ast::WhileStmt>(stmt);
    s.checkCondition(w.cond.get());
    checkNested(w.body);
    break;
  }
  case ast::Stmt::Kind::If: {
    auto &i = llvm::cast<ast::IfStmt>(stmt);
    s.checkCondition(i.cond.get());
    checkNested(i.thenBody);
    checkNested(i.elseBody);
    break;
  }
  case ast::Stmt::Kind::Vertices: {
    auto &v = llvm::cast<ast::VerticesStmt>(stmt);
    declareLabel(v.label, v.labelRange, /*isEdges=*/false);
    auto savedReductions = std::move(s.loopReductions);
    s.loopReductions.clear();
    if (mode == Sema::StmtMode::Algorithm && loopKeyword.empty())
      collectLoopReductions(v);
    Sema::ScopeGuard scope(s);
    auto saved = enterLoop("vertices", v.range);
    bindLoopBinders(v.binders, {vertex}, 1, v.range, "vertices",
                    "one binder (v)");
    if (v.where)
      checkLoopCondition(v.where.get());
    checkNested(v.body);
    leaveLoop(saved);
    s.loopReductions = std::move(savedReductions);
    break;
  }
  case ast::Stmt::Kind::Edges:
    checkEdges(llvm::cast<ast::EdgesStmt>(stmt));
    break;
  case ast::Stmt::Kind::Output:
    checkOutput(llvm::cast<ast::OutputStmt>(stmt));
    break;
  case ast::Stmt::Kind::Assign:
    checkAssign(llvm::cast<ast::AssignStmt>(stmt));
    break;
  }
  s.leave();
}

void StmtChecker::checkEdges(ast::EdgesStmt &e) {
  declareLabel(e.label, e.labelRange, /*isEdges=*/true);
  if (!e.from.empty()) {
    Symbol *f = s.lookup(e.from);
    if (!f) {
      unknownName(e.from, e.fromRange);
    } else if (f->kind != SymKind::Frontier) {
      auto diag = s.error(e.fromRange)
                  << "'" << e.from << "' is " << describeA(f->kind)
                  << ", not a frontier";
      s.note(diag, f->range, "'" + e.from + "' is declared here");
    }
  }
  {
    Sema::ScopeGuard scope(s);
    auto saved = enterLoop("edges", e.range);
    const Type vertex = Type::of(K::Vertex);
    bindLoopBinders(e.binders, {vertex, vertex, Type::of(K::Float)}, 2, e.range,
                    "edges", "(src, dst) or (src, dst, w)");
    if (e.where)
      checkLoopCondition(e.where.get());
    checkNested(e.body);
    leaveLoop(saved);
  }
  if (e.result.empty())
    return;
  // `f = edges ...`: assigns an existing frontier or declares a new one.
  if (Symbol *r = lookupLocal(e.result)) {
    if (r->kind != SymKind::Frontier) {
      auto diag = s.error(e.resultRange)
                  << "'" << e.result << "' is " << describeA(r->kind)
                  << ", not a frontier";
      s.note(diag, r->range, "'" + e.result + "' is declared here");
    }
    return;
  }
  Symbol sym;
  sym.kind = SymKind::Frontier;
  sym.type = Type::of(K::Frontier);
  sym.assignable = true;
  s.declare(e.result, e.resultRange, std::move(sym));
}

void StmtChecker::checkOutput(ast::OutputStmt &o) {
  for (ast::Binder &n : o.names) {
    Symbol *sym = s.lookup(n.name);
    if (!sym) {
      unknownName(n.name, n.range);
      continue;
    }
    if (sym->kind != SymKind::VertexProp) {
      auto diag = s.error(n.range)
                  << "'" << n.name << "' is " << describeA(sym->kind)
                  << "; output takes vertex properties";
      s.note(diag, sym->range, "'" + n.name + "' is declared here");
      continue;
    }
    if (!s.currentAlgorithm)
      continue;
    AlgoInfo &info = s.algoInfo[s.currentAlgorithm];
    auto [prev, inserted] = info.outputs.emplace(n.name, n.range);
    if (!inserted) {
      auto diag = s.error(n.range) << "duplicate output '" << n.name << "'";
      s.note(diag, prev->second, "previous output of '" + n.name + "' is here");
    }
  }
}

void StmtChecker::checkAssign(ast::AssignStmt &a) {
  Symbol *sym = s.lookup(a.target);
  Type index = s.check(a.index.get());
  std::string op = spellAssign(a.op).str();

  if (!sym) {
    s.check(a.value.get());
    unknownName(a.target, a.targetRange);
    return;
  }
  // A frontier is set from a set of vertices.
  if (sym->kind == SymKind::Frontier && mode == Sema::StmtMode::Algorithm) {
    checkLoopAssign(a.target, a.targetRange, *sym);
    if (a.index)
      s.error(a.index->range)
          << "frontier '" << a.target << "' cannot be indexed";
    if (a.op != ast::AssignOp::Set) {
      s.check(a.value.get());
      s.error(a.targetRange) << "'" << op << "' cannot be applied to frontier '"
                             << a.target << "'";
      return;
    }
    s.checkVertexSet(a.value.get(), "frontier '" + a.target + "'");
    return;
  }
  Type value = s.check(a.value.get());

  Type target;
  if (mode == Sema::StmtMode::WalkUpdate) {
    if (sym->kind != SymKind::State) {
      auto diag = s.error(a.targetRange)
                  << "only state variables can be assigned in an update "
                     "block; '"
                  << a.target << "' is " << describeA(sym->kind);
      s.note(diag, sym->range, "'" + a.target + "' is declared here");
      return;
    }
    if (a.index) {
      s.error(a.index->range)
          << "state variable '" << a.target << "' cannot be indexed";
      return;
    }
    target = sym->type;
  } else if (sym->kind == SymKind::VertexProp) {
    if (!a.index) {
      s.error(a.targetRange)
          << "vertex property '" << a.target
          << "' must be indexed by a vertex, e.g. '" << a.target << "[v]'";
      return;
    }
    if (!index.isUnknown() && !assignable(Type::of(K::Vertex), index)) {
      s.error(a.index->range)
          << "vertex property must be indexed by a vertex, got "
          << typeName(index);
      return;
    }
    target = sym->type.element ? *sym->type.element : Type::unknown();
  } else if (sym->assignable) {
    if (a.index) {
      s.error(a.index->range) << "only vertex properties can be indexed in "
                                 "an assignment; '"
                              << a.target << "' is " << describeA(sym->kind);
      return;
    }
    checkLoopAssign(a.target, a.targetRange, *sym, a.op);
    target = sym->type;
  } else {
    auto diag = s.error(a.targetRange)
                << "cannot assign to " << describe(sym->kind) << " '"
                << a.target << "'";
    s.note(diag, sym->range, "'" + a.target + "' is declared here");
    return;
  }

  if (target.isUnknown() || value.isUnknown() || !a.value)
    return;
  const ast::SourceRange &at = a.value->range;
  switch (a.op) {
  case ast::AssignOp::Set:
    if (!assignable(target, value))
      s.error(at) << "assignment to '" << a.target << "' expects "
                  << typeName(target) << ", got " << typeName(value);
    return;
  case ast::AssignOp::Add:
  case ast::AssignOp::Sub:
  case ast::AssignOp::Mul:
  case ast::AssignOp::Min:
  case ast::AssignOp::Max: {
    // `p[x] min= u` on a vertex property: the vertex first in the graph's
    // order (that of the original ids), e.g. the label of a component.
    if (target.kind == K::Vertex && sym->kind == SymKind::VertexProp &&
        (a.op == ast::AssignOp::Min || a.op == ast::AssignOp::Max)) {
      if (value.kind != K::Vertex)
        s.error(at) << "'" << op << "' on '" << a.target
                    << "' expects vertex, got " << typeName(value);
      return;
    }
    if (!target.isNumeric()) {
      s.error(a.targetRange) << "'" << op << "' needs a numeric target; '"
                             << a.target << "' is " << typeName(target);
      return;
    }
    bool ok;
    if (a.op == ast::AssignOp::Mul)
      ok = (value.kind == K::Int || value.kind == K::Float ||
            value.kind == K::Float32) &&
           !(target.kind == K::Int && value.kind != K::Int);
    else
      ok = value.isNumeric() && dimOf(value) == dimOf(target) &&
           !(target.kind == K::Int && value.kind != K::Int);
    if (!ok)
      s.error(at) << "'" << op << "' on '" << a.target << "' expects "
                  << (a.op == ast::AssignOp::Mul
                          ? (target.kind == K::Int
                                 ? std::string("i64")
                                 : std::string("a plain number"))
                          : typeName(target))
                  << ", got " << typeName(value);
    return;
  }
  }
}

} // namespace

void Sema::checkBlock(ast::Block &block, StmtMode mode, bool topLevel) {
  StmtChecker(*this, mode).checkBlock(block, topLevel);
}

void Sema::checkAlgorithm(ast::AlgorithmDecl &algo) {
  if (Symbol *g =
          resolveGlobal(algo.graph, algo.graphRange, {SymKind::Graph}, "graph"))
    currentGraph = llvm::dyn_cast_or_null<ast::GraphDecl>(g->decl);
  algoInfo[&algo];
  currentAlgorithm = &algo;
  ScopeGuard params(*this);
  {
    WhereScope w(*this, Where::Const, "a constant expression");
    checkParams(algo.params);
  }
  ScopeGuard body(*this);
  WhereScope w(*this, Where::Algorithm, "an algorithm");
  checkBlock(algo.body, StmtMode::Algorithm, /*topLevel=*/true);
}
