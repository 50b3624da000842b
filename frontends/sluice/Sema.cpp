//===- Sema.cpp - Name resolution, type and unit checking -----------------===//
//
// Sema checks a parsed Program before MLIRGen sees it, fills in every
// ast::Expr::type, and reports every error it finds (located, through the
// MLIRContext) instead of stopping at the first. An expression whose check
// failed gets Type::Unknown, which every later check accepts silently, so one
// mistake yields one message.
//
// The rules, by area (the files implementing them in brackets):
//
// Names [Sema.cpp]
//  - One global scope across all modules of the Program (imports first):
//    topologies, graphs, walks, algorithms, models, jobs and top-level lets.
//    Declarations may be used before they appear. A second declaration of a
//    name is "redefinition of 'x'" with a note at the first.
//  - Local scopes nest: parameters, then the body; each block (topology
//    `for`, `if`, `while`, loops) opens one; `let`s are visible after their
//    declaration to the end of their block. An inner name may shadow an outer
//    one; a name declared twice in one scope is a redefinition. `_` binds
//    nothing.
//  - Unknown names: "unknown name 'x'", plus "; 'x' is defined later, at
//    f:l:c" when the declaration being checked declares a local `x` after
//    the use, else "; did you mean 'y'?" when a visible name is within edit
//    distance (len+2)/3 (names of 3 or more characters).
//  - Top-level lets are compile-time constants; a let defined in terms of
//    itself (directly or through others) is an error.
//  - A topology may not be named after a builtin device kind.
//
// Types and units [SemaExpr.cpp]
//  - Literals: i64, f64, bool, string, quantities (`80 GiB` is bytes); an
//    unknown unit spelling lists the valid ones.
//  - i64 promotes to f64 where an f64 is expected and to vertex where a
//    vertex is expected (vertex ids). f32 (an algorithm's vertex
//    properties and lets only) mixes with i64 and f64 by C's usual
//    arithmetic conversions and converts where stored [SemaTypes.cpp].
//  - `+ -` need equal dimensions (or plain numbers); `* /` multiply and
//    divide dimensions (24 GiB / 25 GB/s is a time; GiB / GiB is f64);
//    i64 op i64 is i64 (division truncates); `%` needs i64 on both sides.
//  - Comparisons need comparable operands (equal dimensions; vertices with
//    vertices or ids; `==`/`!=` also on bool and string); `and or not` need
//    bool; conditions (`if`, `while`, `where`, if-expressions) must be bool;
//    the branches of an if-expression must have a common type; lists are
//    homogeneous; `x[i]` indexes lists with i64 and vertex properties with a
//    vertex; member access reads a model's arguments (`gpt3.layers`).
//  - Constant folding detects division by zero, i64 overflow, list indices
//    out of range, sqrt/log outside their domain.
//  - Builtin functions: min, max (>= 2 numbers of one dimension), abs,
//    sqrt, log, exp (plain numbers -> f64) anywhere; random() -> f64,
//    has_edge(vertex, vertex) -> bool, degree(vertex) -> i64, label(vertex)
//    -> i64, edge_label(vertex, vertex) -> i64, weight(vertex, vertex) -> f64
//    in walk functions and algorithms; num_vertices, num_edges (names or
//    calls) -> i64 in walks and algorithms; step -> i64 in walk functions;
//    size(list or frontier) -> i64 and empty(list or frontier) -> bool
//    anywhere; compare_swap(p[v], expected, desired) -> bool in algorithms
//    (p an i64 or vertex property; not in a loop's `where`). Each builtin
//    used where it is not available names the place.
//    label() and edge_label() need the graph loaded with `labels:` and
//    `edge_labels:`.
//  - Declared types: i64 f64 bool string vertex, the dimensions bytes
//    bandwidth time compute flops price power frequency, and `[T]`.
//    Defaults, lets, states and arguments must fit their declared type
//    ("parameter 'bw' expects bandwidth, got bytes").
//
// Topologies [SemaTopology.cpp]
//  - A device's kind is a builtin kind (gpu cpu nvme nic smartnic switch
//    csd) or a topology (an instance, possibly an array). Instances take
//    arguments checked against the topology's parameters (positional then
//    named; unknown, duplicate, missing and extra arguments; types); builtin
//    kinds take none. Instances take no properties. A topology may not
//    contain itself, directly or through others.
//  - Array sizes are i64 and positive; devices are declared at the top level
//    of a topology (not inside `for`), with unique names.
//  - Properties follow TopoSchema: unknown names list the valid ones; values
//    must have the property's dimension or kind; positive ones must be > 0;
//    duplicates are errors. Links need `bandwidth`; overrides set at least
//    one property.
//  - Endpoints: the first segment names a device of this topology (declared
//    anywhere in it), later segments devices inside the instanced topology.
//    Arrays must be indexed (`[i]`, `[*]`, `[lo..hi]`, half-open), scalars
//    must not; indices are i64, in bounds when known, ranges non-empty. An
//    endpoint must end at a device, not an instance. `bandwidths from` needs
//    a path and a set of devices (`[*]` or a range).
//  - `for i in lo..hi` bounds are i64; `i` is an i64 in the body. Everything
//    in a topology is a compile-time constant: walk and graph builtins are
//    rejected there.
//
// Walks [SemaWalk.cpp]
//  - A walk job's parameters (its options over the defaults) must keep the
//    walk's stop probability in [0, 1] and its length in 1..2^32-1 when
//    those fold: reported at the option behind the value, or at the job.
//  - `on` names a graph. Parameters as above. At most one of each of
//    length, start, stop probability, stop, weight, update; at least one of
//    length, stop probability, stop (the walk must end).
//  - length: i64, > 0 when known; stop probability: f64 in [0, 1] when
//    known; start: `all`, a vertex or a list of vertices (ids >= 0).
//  - weight(cur, next, w) or weight(prev, cur, next, w): vertices and an f64
//    weight; the result is a plain number (>= 0 when known). stop(cur) or
//    stop(cur, step): vertex and i64; the result is bool. update(cur, next)
//    or update(prev, cur, next) { ... }: only lets, ifs and assignments to
//    state variables.
//  - state x: T = init; state variables are visible in weight, stop and
//    update only. Lets, states, length, start and stop probability are
//    checked in order; the functions see all of them.
//
// Algorithms [SemaAlgorithm.cpp]
//  - `on` names a graph. `vertex x: T = init` (top level only) declares a
//    vertex property, used as `x[v]` with a vertex index; `frontier f = ...`
//    a set of vertices; `let` a local variable (assignable).
//  - repeat counts are i64 (>= 0 when known); conditions are bool.
//  - vertices(v) takes one binder; edges(src, dst) or edges(src, dst, w);
//    `from f` and `f = edges ...` name frontiers (the latter declares `f` if
//    it is new). Labels are unique within the algorithm.
//  - Assignments: vertex properties (indexed), locals and frontiers; not
//    parameters, binders, loop variables or globals. `+= -=` need numbers of
//    the target's dimension, `*=` a plain number, `min= max=` numbers.
//  - `output` names vertex properties, each once.
//
// Option schemas [SemaSchemas.cpp]
//  - Graphs: load("path", format: snap|mtx|csr|edgelist, directed |
//    undirected, weighted: bool, duplicates: merge|keep|sum, self_loops:
//    drop|keep, labels: "path", edge_labels: "path").
//  - Schedules name a walk or an algorithm, once each. Walks: sampler:
//    auto|rejection|reservoir|alias, target: cpu|gpu, threads, walkers_per_
//    thread (i64 > 0); no labels. Algorithms: target, threads and the label
//    options as defaults; `@label { ... }` names a label of the algorithm:
//    direction: push|pull|hybrid, parallel: serial|static|dynamic(n),
//    tile: auto|n, frontier: sparse|dense|bitmap|auto, format: csr|coo|auto;
//    direction, frontier and format apply to edges loops only.
//  - Models: transformer(layers, hidden, heads, kv_heads?, ffn?, seq, vocab,
//    dtype?: fp32|fp16|bf16|fp8, norm?: layernorm|rmsnorm, mlp?: gelu|swiglu,
//    positions?: learned|rotary, tied?: bool, bias?: bool, groups?: [i64]
//    adding up to layers, group_ffn?: [i64] one per group and not with
//    ffn), gnn(layers, fanouts: [i64], features,
//    hidden, classes, kind?: sage|gcn|gat, heads?: 1..64 with kind gat,
//    hidden divisible by it when layers > 1), distill(teacher, student:
//    transformer models, blocks); arguments named, integers positive,
//    hidden divisible by heads, heads by kv_heads, one fanout per layer,
//    teacher != student, blocks <= the teacher's layers.
//  - Jobs: `job j = <action> <subject> on <target> { options }`:
//    finetune/infer take a transformer, train a transformer or gnn, distill a
//    distill model, gather a gnn model or a graph (all on a topology); walk a
//    walk and run an algorithm (on a topology or a graph; their parameters
//    are passed as options, those without default required). Options per
//    action (see SemaSchemas.cpp); batch is required for finetune, train and
//    distill; batch must be divisible by micro_batch.
//  - Everywhere: unknown keys and values list the valid ones; duplicates
//    are errors with a note at the first; required ones are reported
//    missing at the owner.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/Sema.h"
#include "frontends/sluice/SemaInternal.h"

#include "frontends/sluice/Frontend.h"
#include "mlir/IR/MLIRContext.h"
#include "support/NumberFormat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace sluice;
using namespace sluice::sema;
using ast::Type;

//===----------------------------------------------------------------------===//
// Diagnostics and scopes
//===----------------------------------------------------------------------===//

mlir::InFlightDiagnostic Sema::error(const ast::SourceRange &range) {
  failed = true;
  return mlir::emitError(toLocation(ctx, range));
}

void Sema::note(mlir::InFlightDiagnostic &diag, const ast::SourceRange &range,
                const llvm::Twine &message) {
  diag.attachNote(toLocation(ctx, range)) << message;
}

bool Sema::enter(const ast::SourceRange &range) {
  if (depth >= kMaxDepth) {
    // Once per outermost construct: its siblings are as deep.
    if (!reportedTooDeep)
      error(range) << "nesting is too deep (more than " << kMaxDepth
                   << " levels)";
    reportedTooDeep = true;
    return false;
  }
  ++depth;
  return true;
}

void Sema::leave() {
  if (--depth == 0)
    reportedTooDeep = false;
}

void Sema::setValue(ast::Expr *e, Value v) {
  // A new entry even when `e` has one: symbols may point at the old one.
  values.push_back(FoldedValue{e, std::move(v)});
  e->semaValue = static_cast<uint32_t>(values.size());
}

void Sema::clearValue(ast::Expr *e) { e->semaValue = 0; }

const Value *Sema::valueOf(const ast::Expr *e) const {
  if (!e || e->semaValue == 0 || e->semaValue > values.size())
    return nullptr;
  // Another Sema over the same AST may have set the handle.
  const FoldedValue &folded = values[e->semaValue - 1];
  return folded.expr == e ? &folded.value : nullptr;
}

const Value *Sema::keep(Value v) {
  values.push_back(FoldedValue{nullptr, std::move(v)});
  return &values.back().value;
}

const Value *Sema::keepConverted(const Value *v, const ast::Type &from,
                                 const ast::Type &to) {
  bool changes =
      (v->kind == Value::Kind::Int && to.kind == Type::Kind::Float) ||
      to.kind == Type::Kind::Float32 ||
      (v->kind == Value::Kind::List && to.kind == Type::Kind::List &&
       to.element);
  return changes ? keep(convert(*v, from, to)) : v;
}

void Sema::pushScope() { scopes.push_back(std::make_unique<SymbolTable>()); }

void Sema::popScope() { scopes.pop_back(); }

Symbol *Sema::declare(llvm::StringRef name, const ast::SourceRange &range,
                      Symbol sym) {
  if (name.empty() || name == "_")
    return nullptr;
  SymbolTable &scope = scopes.empty() ? globals : *scopes.back();
  auto [it, inserted] = scope.try_emplace(name);
  if (!inserted) {
    auto diag = error(range) << "redefinition of '" << name << "'";
    note(diag, it->second.range,
         "previous definition of '" + name + "' is here");
    return nullptr;
  }
  sym.range = range;
  it->second = std::move(sym);
  return &it->second;
}

Symbol *Sema::lookup(llvm::StringRef name) {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = (*it)->find(name);
    if (found != (*it)->end())
      return &found->second;
  }
  return lookupGlobal(name);
}

Symbol *Sema::lookupGlobal(llvm::StringRef name) {
  auto found = globals.find(name);
  return found == globals.end() ? nullptr : &found->second;
}

std::vector<std::string> Sema::visibleNames() {
  std::vector<std::string> names;
  for (const auto &scope : scopes)
    for (const auto &entry : *scope)
      names.push_back(entry.getKey().str());
  for (const auto &entry : globals)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

namespace {

/// The first local declaration of `name` in a global declaration that comes
/// after `use` (in source order): lets, loop variables, states, vertex
/// properties, frontiers. Not scoped: any such declaration after the use.
class LaterLocalFinder {
public:
  LaterLocalFinder(llvm::StringRef name, const ast::SourceLoc &use)
      : name(name), use(use) {}

  const ast::SourceRange *find(const ast::Decl &decl) {
    if (auto *t = llvm::dyn_cast<ast::TopologyDecl>(&decl)) {
      items(t->items);
    } else if (auto *w = llvm::dyn_cast<ast::WalkDecl>(&decl)) {
      for (const ast::WalkItem &item : w->items) {
        if (item.kind == ast::WalkItem::Kind::Let ||
            item.kind == ast::WalkItem::Kind::State)
          candidate(item.name, item.nameRange);
        block(item.body);
      }
    } else if (auto *a = llvm::dyn_cast<ast::AlgorithmDecl>(&decl)) {
      block(a->body);
    }
    return found;
  }

private:
  void candidate(llvm::StringRef n, const ast::SourceRange &range) {
    if (found || n != name || range.begin.file != use.file)
      return;
    if (range.begin.line > use.line ||
        (range.begin.line == use.line && range.begin.col > use.col))
      found = &range;
  }

  void items(const std::vector<ast::TopoItemPtr> &list) {
    for (const ast::TopoItemPtr &item : list) {
      if (auto *let = llvm::dyn_cast_or_null<ast::LetItem>(item.get())) {
        candidate(let->name, let->nameRange);
      } else if (auto *loop =
                     llvm::dyn_cast_or_null<ast::ForItem>(item.get())) {
        candidate(loop->var, loop->varRange);
        items(loop->body);
      }
    }
  }

  void block(const ast::Block &stmts) {
    for (const ast::StmtPtr &stmt : stmts) {
      if (!stmt)
        continue;
      switch (stmt->getKind()) {
      case ast::Stmt::Kind::VertexProp: {
        auto &v = llvm::cast<ast::VertexPropStmt>(*stmt);
        candidate(v.name, v.nameRange);
        break;
      }
      case ast::Stmt::Kind::Frontier: {
        auto &f = llvm::cast<ast::FrontierStmt>(*stmt);
        candidate(f.name, f.nameRange);
        break;
      }
      case ast::Stmt::Kind::Let: {
        auto &l = llvm::cast<ast::LetStmt>(*stmt);
        candidate(l.name, l.nameRange);
        break;
      }
      case ast::Stmt::Kind::Repeat:
        block(llvm::cast<ast::RepeatStmt>(*stmt).body);
        break;
      case ast::Stmt::Kind::While:
        block(llvm::cast<ast::WhileStmt>(*stmt).body);
        break;
      case ast::Stmt::Kind::If: {
        auto &i = llvm::cast<ast::IfStmt>(*stmt);
        block(i.thenBody);
        block(i.elseBody);
        break;
      }
      case ast::Stmt::Kind::Vertices:
        block(llvm::cast<ast::VerticesStmt>(*stmt).body);
        break;
      case ast::Stmt::Kind::Edges: {
        auto &e = llvm::cast<ast::EdgesStmt>(*stmt);
        block(e.body);
        candidate(e.result, e.resultRange);
        break;
      }
      case ast::Stmt::Kind::Output:
      case ast::Stmt::Kind::Assign:
        break;
      }
    }
  }

  llvm::StringRef name;
  ast::SourceLoc use;
  const ast::SourceRange *found = nullptr;
};

} // namespace

std::string Sema::unknownNameHint(llvm::StringRef name,
                                  const ast::SourceRange &use,
                                  llvm::ArrayRef<std::string> candidates) {
  if (currentDecl)
    if (const ast::SourceRange *later =
            LaterLocalFinder(name, use.begin).find(*currentDecl))
      return ("; '" + name + "' is defined later, at " +
              later->begin.fileName() + ":" + llvm::Twine(later->begin.line) +
              ":" + llvm::Twine(later->begin.col))
          .str();
  return didYouMean(name, candidates);
}

std::vector<std::string> Sema::globalNames(llvm::ArrayRef<SymKind> kinds) {
  std::vector<std::string> names;
  for (const auto &entry : globals)
    if (llvm::is_contained(kinds, entry.second.kind))
      names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

Symbol *Sema::resolveGlobal(llvm::StringRef name, const ast::SourceRange &range,
                            llvm::ArrayRef<SymKind> kinds,
                            llvm::StringRef what) {
  Symbol *sym = lookupGlobal(name);
  if (!sym) {
    error(range) << "unknown " << what << " '" << name << "'"
                 << didYouMean(name, globalNames(kinds));
    return nullptr;
  }
  if (!llvm::is_contained(kinds, sym->kind)) {
    auto diag = error(range) << "'" << name << "' is " << describeA(sym->kind)
                             << ", not a " << what;
    note(diag, sym->range, "'" + name + "' is declared here");
    return nullptr;
  }
  return sym;
}

//===----------------------------------------------------------------------===//
// Types, parameters, lets
//===----------------------------------------------------------------------===//

Type Sema::resolveType(const ast::TypeRef &ref, bool report) {
  if (ref.name.empty()) {
    if (!ref.element)
      return Type::unknown();
    if (!enter(ref.range))
      return Type::unknown();
    Type elt = resolveType(*ref.element, report);
    leave();
    return elt.isUnknown() ? Type::unknown() : Type::list(elt);
  }
  llvm::StringRef n = ref.name;
  if (n == "i64")
    return Type::of(Type::Kind::Int);
  if (n == "f64")
    return Type::of(Type::Kind::Float);
  // f32 halves the bytes a vertex property moves; it is a storage type of
  // algorithms, not of constants, parameters or walks.
  if (n == "f32") {
    if (where == Where::Algorithm)
      return Type::of(Type::Kind::Float32);
    if (report)
      error(ref.range) << "type 'f32' is only allowed for the vertex "
                          "properties and lets of an algorithm body, not in "
                       << whereText << "; use f64";
    return Type::unknown();
  }
  if (n == "bool")
    return Type::of(Type::Kind::Bool);
  if (n == "string")
    return Type::of(Type::Kind::String);
  if (n == "vertex")
    return Type::of(Type::Kind::Vertex);
  if (std::optional<Dim> d = Dim::fromTypeName(n))
    return Type::quantity(*d);
  if (report) {
    static const char *const aliases[][2] = {
        {"int", "i64"},      {"integer", "i64"}, {"float", "f64"},
        {"double", "f64"},   {"real", "f64"},    {"str", "string"},
        {"boolean", "bool"}, {"byte", "bytes"},  {"duration", "time"}};
    std::vector<std::string> valid = {
        "i64",  "f64",     "bool",  "string", "vertex", "bytes",    "bandwidth",
        "time", "compute", "flops", "price",  "power",  "frequency"};
    std::string hint;
    for (const auto &alias : aliases)
      if (n == alias[0])
        hint = std::string("; did you mean '") + alias[1] + "'?";
    if (hint.empty())
      hint = didYouMean(n, valid);
    error(ref.range) << "unknown type '" << n << "'" << hint
                     << " (expected one of: " << joinNames(valid)
                     << ", or [T] for a list)";
  }
  return Type::unknown();
}

void Sema::checkParams(std::vector<ast::Param> &params) {
  for (ast::Param &p : params) {
    Type t = resolveType(p.type);
    if (p.defaultValue)
      checkAs(p.defaultValue.get(), t, "parameter '" + p.name + "'");
    Symbol sym;
    sym.kind = SymKind::Param;
    sym.type = t;
    declare(p.name, p.range, std::move(sym));
  }
}

void Sema::checkLet(llvm::StringRef name, const ast::SourceRange &nameRange,
                    const ast::TypeRef *type, ast::Expr *value, SymKind kind,
                    bool isAssignable) {
  Type declared = type ? resolveType(*type) : Type::unknown();
  Type t;
  if (type) {
    checkAs(value, declared, "let '" + name + "'");
    t = declared;
  } else {
    t = check(value);
  }
  Symbol sym;
  sym.kind = kind;
  sym.type = t;
  sym.assignable = isAssignable;
  if (!isAssignable && value)
    if (const Value *v = valueOf(value))
      sym.value = keepConverted(v, value->type, t);
  declare(name, nameRange, std::move(sym));
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

static std::optional<SymKind> symKindOf(const ast::Decl &d) {
  switch (d.getKind()) {
  case ast::Decl::Kind::Let:
    return SymKind::GlobalLet;
  case ast::Decl::Kind::Topology:
    return SymKind::Topology;
  case ast::Decl::Kind::Graph:
    return SymKind::Graph;
  case ast::Decl::Kind::Walk:
    return SymKind::Walk;
  case ast::Decl::Kind::Algorithm:
    return SymKind::Algorithm;
  case ast::Decl::Kind::Model:
    return SymKind::Model;
  case ast::Decl::Kind::Job:
    return SymKind::Job;
  case ast::Decl::Kind::Demand:
    return SymKind::Demand;
  case ast::Decl::Kind::Import:
  case ast::Decl::Kind::Schedule:
    return std::nullopt;
  }
  llvm_unreachable("unknown declaration kind");
}

static Type typeOfGlobal(SymKind kind) {
  switch (kind) {
  case SymKind::Topology:
    return Type::of(Type::Kind::Topology);
  case SymKind::Graph:
    return Type::of(Type::Kind::Graph);
  case SymKind::Walk:
    return Type::of(Type::Kind::Walk);
  case SymKind::Algorithm:
    return Type::of(Type::Kind::Algorithm);
  case SymKind::Model:
    return Type::of(Type::Kind::Model);
  case SymKind::Job:
    return Type::of(Type::Kind::Job);
  default:
    return Type::unknown();
  }
}

/// A top-level `let`: a constant, checked on first use.
static void checkGlobalLet(Sema &s, ast::LetDecl &let) {
  Sema::WhereScope w(s, Where::Const, "a constant expression");
  Type declared = let.type ? s.resolveType(*let.type) : Type::unknown();
  Type t;
  if (let.type) {
    s.checkAs(let.value.get(), declared, "let '" + let.name + "'");
    t = declared;
  } else {
    t = s.check(let.value.get());
  }
  Symbol *sym = s.lookupGlobal(let.name);
  if (!sym || sym->decl != &let)
    return; // a redefinition: reported already
  sym->type = t;
  if (let.value)
    if (const Value *v = s.valueOf(let.value.get()))
      sym->value = s.keepConverted(v, let.value->type, t);
}

CheckState &Sema::checkStateOf(ast::Decl *decl) {
  if (Symbol *sym = lookupGlobal(decl->name))
    if (sym->decl == decl)
      return sym->checkState;
  return checkState[decl];
}

bool Sema::ensureChecked(ast::Decl *decl) {
  if (CheckState state = checkStateOf(decl); state != CheckState::NotYet)
    return state == CheckState::Done;
  checkStateOf(decl) = CheckState::InProgress;

  // Check it as if at the top level, then restore the caller's state.
  auto savedScopes = std::move(scopes);
  scopes.clear();
  ast::TopologyDecl *savedTopology = currentTopology;
  ast::AlgorithmDecl *savedAlgorithm = currentAlgorithm;
  ast::GraphDecl *savedGraph = currentGraph;
  ast::Decl *savedDecl = currentDecl;
  currentDecl = decl;
  currentTopology = nullptr;
  currentAlgorithm = nullptr;
  currentGraph = nullptr;
  {
    WhereScope w(*this, Where::Const, "a constant expression");
    switch (decl->getKind()) {
    case ast::Decl::Kind::Import:
      break;
    case ast::Decl::Kind::Let:
      checkGlobalLet(*this, *llvm::cast<ast::LetDecl>(decl));
      break;
    case ast::Decl::Kind::Topology:
      checkTopology(*llvm::cast<ast::TopologyDecl>(decl));
      break;
    case ast::Decl::Kind::Graph:
      checkGraph(*llvm::cast<ast::GraphDecl>(decl));
      break;
    case ast::Decl::Kind::Walk:
      checkWalk(*llvm::cast<ast::WalkDecl>(decl));
      break;
    case ast::Decl::Kind::Algorithm:
      checkAlgorithm(*llvm::cast<ast::AlgorithmDecl>(decl));
      break;
    case ast::Decl::Kind::Schedule:
      checkSchedule(*llvm::cast<ast::ScheduleDecl>(decl));
      break;
    case ast::Decl::Kind::Model:
      checkModel(*llvm::cast<ast::ModelDecl>(decl));
      break;
    case ast::Decl::Kind::Job:
      checkJob(*llvm::cast<ast::JobDecl>(decl));
      break;
    case ast::Decl::Kind::Demand:
      checkDemand(*llvm::cast<ast::DemandDecl>(decl));
      break;
    }
  }
  scopes = std::move(savedScopes);
  currentTopology = savedTopology;
  currentAlgorithm = savedAlgorithm;
  currentGraph = savedGraph;
  currentDecl = savedDecl;
  checkStateOf(decl) = CheckState::Done;
  return true;
}

bool Sema::run(ast::Program &program) {
  // Declare every global name first: declarations may be used before they
  // appear, and across modules.
  for (auto &module : program.modules) {
    if (!module)
      continue;
    for (auto &decl : module->decls) {
      if (!decl)
        continue;
      std::optional<SymKind> kind = symKindOf(*decl);
      if (!kind)
        continue;
      if (*kind == SymKind::Topology) {
        bool builtin = llvm::any_of(topo::allDeviceKinds(), [&](auto k) {
          return topo::stringifyDeviceKind(k) == decl->name;
        });
        if (builtin) {
          error(decl->nameRange) << "topology cannot be named '" << decl->name
                                 << "': it is a builtin device kind";
          continue;
        }
      }
      Symbol sym;
      sym.kind = *kind;
      sym.type = typeOfGlobal(*kind);
      sym.decl = decl.get();
      declare(decl->name, decl->nameRange, std::move(sym));
    }
  }
  // The devices of every topology, so that endpoints and instances can refer
  // to devices declared anywhere.
  for (auto &module : program.modules)
    if (module)
      for (auto &decl : module->decls)
        if (auto *topo = llvm::dyn_cast_or_null<ast::TopologyDecl>(decl.get()))
          collectDevices(*topo);
  // Check everything in source order (what is used earlier is checked on
  // first use).
  for (auto &module : program.modules)
    if (module)
      for (auto &decl : module->decls)
        if (decl)
          ensureChecked(decl.get());
  return !failed;
}

mlir::LogicalResult sluice::checkProgram(ast::Program &program,
                                         mlir::MLIRContext *ctx) {
  Sema sema(ctx);
  return mlir::success(sema.run(program));
}
