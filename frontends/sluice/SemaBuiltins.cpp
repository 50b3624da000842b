//===- SemaBuiltins.cpp - The built-in functions of expressions ----------===//
//
// The table of built-in functions (docs/language.md, section 6.4), where
// each may be used, and the checks of a call: arity, argument types, the
// graph options a built-in needs; constant arguments fold (min, max, abs,
// sqrt, log, exp).
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaBuiltins.h"

#include "llvm/ADT/STLExtras.h"
#include <cmath>

using namespace sluice;
using namespace sluice::sema;
using ast::Type;
using K = ast::Type::Kind;

namespace {

void setValue(Sema &s, ast::Expr *e, Value v) { s.setValue(e, std::move(v)); }

/// Plain numbers (no unit).
bool isPlainNumber(const Type &t) {
  return t.kind == K::Int || t.kind == K::Float || t.kind == K::Float32;
}

enum class Fn {
  Min,
  Max,
  Abs,
  Sqrt,
  Log,
  Exp,
  Random,
  HasEdge,
  Degree,
  Label,
  EdgeLabel,
  Weight,
  NumVertices,
  NumEdges,
  Id,
  CommonNeighbors,
  CompareSwap,
  Size,
  Empty,
};

struct Builtin {
  llvm::StringRef name;
  Fn fn;
  unsigned where; ///< mask of Where values it may be used in
};

constexpr unsigned kAnywhere = 15;
constexpr unsigned kPerStep = static_cast<unsigned>(Where::WalkStep) |
                              static_cast<unsigned>(Where::Algorithm);
constexpr unsigned kOnGraph =
    kPerStep | static_cast<unsigned>(Where::WalkSetup);

const Builtin kBuiltins[] = {
    {"min", Fn::Min, kAnywhere},
    {"max", Fn::Max, kAnywhere},
    {"abs", Fn::Abs, kAnywhere},
    {"sqrt", Fn::Sqrt, kAnywhere},
    {"log", Fn::Log, kAnywhere},
    {"exp", Fn::Exp, kAnywhere},
    {"size", Fn::Size, kAnywhere},
    {"empty", Fn::Empty, kAnywhere},
    {"random", Fn::Random, kPerStep},
    {"has_edge", Fn::HasEdge, kPerStep},
    {"degree", Fn::Degree, kPerStep},
    {"label", Fn::Label, kPerStep},
    {"edge_label", Fn::EdgeLabel, kPerStep},
    {"weight", Fn::Weight, kPerStep},
    {"num_vertices", Fn::NumVertices, kOnGraph},
    {"num_edges", Fn::NumEdges, kOnGraph},
    {"id", Fn::Id, static_cast<unsigned>(Where::Algorithm)},
    {"common_neighbors", Fn::CommonNeighbors,
     static_cast<unsigned>(Where::Algorithm)},
    {"common_neighbors_below", Fn::CommonNeighbors,
     static_cast<unsigned>(Where::Algorithm)},
    {"compare_swap", Fn::CompareSwap, static_cast<unsigned>(Where::Algorithm)},
};

const Builtin *findBuiltin(llvm::StringRef name) {
  for (const Builtin &b : kBuiltins)
    if (b.name == name)
      return &b;
  return nullptr;
}

std::vector<std::string> builtinNames() {
  std::vector<std::string> names;
  for (const Builtin &b : kBuiltins)
    names.push_back(b.name.str());
  return names;
}

bool allowed(const Sema &s, unsigned mask) {
  return (mask & static_cast<unsigned>(s.where)) != 0;
}

//===----------------------------------------------------------------------===//

/// Reports "'f' expects N argument(s), got M" and returns false on a
/// mismatch.
bool expectArity(Sema &s, ast::CallExpr &call, size_t n) {
  if (call.args.size() == n)
    return true;
  s.error(call.range) << "'" << call.callee << "' expects " << n
                      << (n == 1 ? " argument" : " arguments") << ", got "
                      << call.args.size();
  return false;
}

/// Checks that argument `i` (already checked) is a vertex.
bool expectVertex(Sema &s, ast::CallExpr &call, size_t i) {
  ast::Expr *arg = call.args[i].value.get();
  if (!arg || assignable(Type::of(K::Vertex), arg->type))
    return true;
  s.error(arg->range) << "argument " << i + 1 << " of '" << call.callee
                      << "' expects vertex, got " << typeName(arg->type);
  return false;
}

/// label() and edge_label() read labels the graph must be loaded with.
void expectLabels(Sema &s, ast::CallExpr &call, llvm::StringRef option,
                  llvm::StringRef what) {
  ast::GraphDecl *graph = s.currentGraph;
  if (!graph || !graph->source || graph->source->callee != "load")
    return;
  for (const ast::Arg &a : graph->source->args)
    if (a.name == option)
      return;
  auto diag = s.error(call.calleeRange)
              << "'" << call.callee << "' needs " << what << ", but graph '"
              << graph->name << "' is loaded without '" << option << ":'";
  s.note(diag, graph->nameRange,
         "graph '" + graph->name + "' is declared here");
}

/// common_neighbors() merges sorted adjacencies: parallel edges (a graph
/// loaded with `duplicates: keep`) would count a neighbour several times.
void expectSimpleGraph(Sema &s, ast::CallExpr &call) {
  ast::GraphDecl *graph = s.currentGraph;
  if (!graph || !graph->source || graph->source->callee != "load")
    return;
  for (const ast::Arg &a : graph->source->args) {
    auto *word = llvm::dyn_cast_or_null<ast::NameExpr>(a.value.get());
    if (a.name != "duplicates" || !word || word->name != "keep")
      continue;
    auto diag = s.error(call.calleeRange)
                << "'" << call.callee
                << "' counts each common neighbour once and needs a graph "
                   "without parallel edges, but graph '"
                << graph->name << "' is loaded with 'duplicates: keep'";
    s.note(diag, a.value->range, "'duplicates: keep' is here");
    return;
  }
}

/// compare_swap(p[v], expected, desired): `p[v]` an element of an i64 or
/// vertex property, the other two of its type; not in a loop's `where`
/// (evaluated once per edge, and per tile where tiled: not where a write
/// belongs).
Type checkCompareSwap(Sema &s, ast::CallExpr &call,
                      const std::vector<Type> &types) {
  if (s.inLoopCondition) {
    s.error(call.calleeRange)
        << "'compare_swap' cannot be used in the `where` condition of a "
           "loop: it writes; swap in the loop's body";
    return Type::unknown();
  }
  ast::Expr *target = call.args[0].value.get();
  auto *index = llvm::dyn_cast<ast::IndexExpr>(target);
  auto *base = index ? llvm::dyn_cast_or_null<ast::NameExpr>(index->base.get())
                     : nullptr;
  if (!base || base->type.kind != K::VertexProp) {
    if (!types[0].isUnknown())
      s.error(target->range)
          << "argument 1 of 'compare_swap' expects a "
             "vertex property element such as 'comp[v]', "
             "got "
          << (index ? "an indexed " + typeName(types[0]) : typeName(types[0]));
    return Type::unknown();
  }
  const Type &elt = types[0];
  if (elt.isUnknown())
    return Type::unknown();
  if (elt.kind != K::Int && elt.kind != K::Vertex) {
    s.error(target->range) << "'compare_swap' swaps i64 or vertex "
                              "properties, but '"
                           << base->name << "' holds " << typeName(elt);
    return Type::unknown();
  }
  bool ok = true;
  for (size_t i = 1; i < 3; ++i) {
    if (types[i].isUnknown() || assignable(elt, types[i]))
      continue;
    s.error(call.args[i].value->range)
        << "argument " << i + 1 << " of 'compare_swap' expects "
        << typeName(elt) << " (the type of '" << base->name << "'), got "
        << typeName(types[i]);
    ok = false;
  }
  return ok ? Type::of(K::Bool) : Type::unknown();
}

Type checkCall(Sema &s, ast::CallExpr &call) {
  const Builtin *b = findBuiltin(call.callee);
  if (!b || !allowed(s, b->where)) {
    for (ast::Arg &a : call.args)
      s.check(a.value.get());
    if (b) {
      s.error(call.calleeRange)
          << "'" << call.callee << "' cannot be used in " << s.whereText;
    } else if (Symbol *sym = s.lookup(call.callee)) {
      auto diag = s.error(call.calleeRange)
                  << "'" << call.callee << "' is " << describeA(sym->kind)
                  << ", not a function";
      s.note(diag, sym->range, "'" + call.callee + "' is declared here");
    } else {
      s.error(call.calleeRange) << "unknown function '" << call.callee << "'"
                                << didYouMean(call.callee, builtinNames());
    }
    return Type::unknown();
  }

  std::vector<Type> types;
  bool ok = true;
  for (ast::Arg &a : call.args) {
    if (!a.name.empty()) {
      s.error(a.nameRange) << "'" << call.callee
                           << "' takes no named arguments";
      ok = false;
    }
    types.push_back(s.check(a.value.get()));
  }
  auto valueAt = [&](size_t i) -> const Value * {
    return s.valueOf(call.args[i].value.get());
  };

  switch (b->fn) {
  case Fn::Min:
  case Fn::Max: {
    if (call.args.size() < 2) {
      s.error(call.range) << "'" << call.callee
                          << "' expects at least 2 arguments, got "
                          << call.args.size();
      return Type::unknown();
    }
    Type result = Type::unknown();
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i].isUnknown()) {
        ok = false;
        continue;
      }
      if (!types[i].isNumeric()) {
        s.error(call.args[i].value->range)
            << "argument " << i + 1 << " of '" << call.callee
            << "' expects a number, got " << typeName(types[i]);
        ok = false;
        continue;
      }
      if (result.isUnknown()) {
        result = types[i];
        continue;
      }
      if (dimOf(result) != dimOf(types[i])) {
        s.error(call.args[i].value->range)
            << "arguments of '" << call.callee
            << "' have different types: " << typeName(result) << " and "
            << typeName(types[i]);
        ok = false;
        continue;
      }
      result = arithResult(result, types[i], dimOf(result));
    }
    if (!ok)
      return Type::unknown();
    // Fold.
    std::optional<Value> folded;
    for (size_t i = 0; i < types.size(); ++i) {
      const Value *v = valueAt(i);
      if (!v)
        return result;
      Value cv = convert(*v, types[i], result);
      if (!folded) {
        folded = cv;
        continue;
      }
      bool takeNew;
      if (cv.kind == Value::Kind::Int && folded->kind == Value::Kind::Int)
        takeNew = b->fn == Fn::Min ? cv.i < folded->i : cv.i > folded->i;
      else
        takeNew = b->fn == Fn::Min ? *cv.asNumber() < *folded->asNumber()
                                   : *cv.asNumber() > *folded->asNumber();
      if (takeNew)
        folded = cv;
    }
    if (folded)
      setValue(s, &call, *folded);
    return result;
  }
  case Fn::Abs: {
    if (!expectArity(s, call, 1) || types[0].isUnknown())
      return Type::unknown();
    if (!types[0].isNumeric()) {
      s.error(call.args[0].value->range)
          << "'abs' expects a number, got " << typeName(types[0]);
      return Type::unknown();
    }
    if (const Value *v = valueAt(0)) {
      if (v->kind == Value::Kind::Int && v->i != INT64_MIN)
        setValue(s, &call, Value::ofInt(v->i < 0 ? -v->i : v->i));
      else if (v->kind == Value::Kind::Float)
        setValue(s, &call, Value::ofFloat(std::fabs(v->f)));
    }
    return types[0];
  }
  case Fn::Sqrt:
  case Fn::Log:
  case Fn::Exp: {
    if (!expectArity(s, call, 1) || types[0].isUnknown())
      return Type::unknown();
    if (!isPlainNumber(types[0])) {
      s.error(call.args[0].value->range)
          << "'" << call.callee << "' expects a plain number (i64 or f64), got "
          << typeName(types[0]);
      return Type::unknown();
    }
    if (const Value *v = valueAt(0)) {
      double x = *v->asNumber();
      if (b->fn == Fn::Sqrt && x < 0) {
        s.error(call.args[0].value->range) << "'sqrt' of a negative number ("
                                           << formatValue(*v, types[0]) << ")";
        return Type::of(K::Float);
      }
      if (b->fn == Fn::Log && x <= 0) {
        s.error(call.args[0].value->range)
            << "'log' of a number that is not positive ("
            << formatValue(*v, types[0]) << ")";
        return Type::of(K::Float);
      }
      double r = b->fn == Fn::Sqrt  ? std::sqrt(x)
                 : b->fn == Fn::Log ? std::log(x)
                                    : std::exp(x);
      if (std::isfinite(r))
        setValue(s, &call, Value::ofFloat(r));
    }
    return Type::of(K::Float);
  }
  case Fn::Random:
    if (!expectArity(s, call, 0))
      return Type::unknown();
    return Type::of(K::Float);
  case Fn::NumVertices:
  case Fn::NumEdges:
    if (!expectArity(s, call, 0))
      return Type::unknown();
    return Type::of(K::Int);
  case Fn::Degree:
  case Fn::Label:
  case Fn::Id:
    if (!expectArity(s, call, 1) || !expectVertex(s, call, 0) || !ok)
      return Type::unknown();
    if (b->fn == Fn::Label)
      expectLabels(s, call, "labels", "vertex labels");
    return Type::of(K::Int);
  case Fn::CommonNeighbors: {
    if (!expectArity(s, call, 2))
      return Type::unknown();
    bool a0 = expectVertex(s, call, 0);
    bool a1 = expectVertex(s, call, 1);
    if (!a0 || !a1 || !ok)
      return Type::unknown();
    expectSimpleGraph(s, call);
    return Type::of(K::Int);
  }
  case Fn::HasEdge:
  case Fn::EdgeLabel:
  case Fn::Weight: {
    if (!expectArity(s, call, 2))
      return Type::unknown();
    bool a0 = expectVertex(s, call, 0);
    bool a1 = expectVertex(s, call, 1);
    if (!a0 || !a1 || !ok)
      return Type::unknown();
    if (b->fn == Fn::HasEdge)
      return Type::of(K::Bool);
    if (b->fn == Fn::EdgeLabel)
      expectLabels(s, call, "edge_labels", "edge labels");
    return b->fn == Fn::EdgeLabel ? Type::of(K::Int) : Type::of(K::Float);
  }
  case Fn::CompareSwap:
    if (!expectArity(s, call, 3) || !ok)
      return Type::unknown();
    return checkCompareSwap(s, call, types);
  case Fn::Size:
  case Fn::Empty: {
    if (!expectArity(s, call, 1) || types[0].isUnknown())
      return Type::unknown();
    if (types[0].kind != K::List && types[0].kind != K::Frontier) {
      s.error(call.args[0].value->range)
          << "'" << call.callee << "' expects a list or a frontier, got "
          << typeName(types[0]);
      return Type::unknown();
    }
    if (const Value *v = valueAt(0)) {
      int64_t n = static_cast<int64_t>(v->elements().size());
      setValue(s, &call,
               b->fn == Fn::Size ? Value::ofInt(n) : Value::ofBool(n == 0));
    }
    return b->fn == Fn::Size ? Type::of(K::Int) : Type::of(K::Bool);
  }
  }
  llvm_unreachable("unknown builtin");
}

} // namespace

bool sema::isBuiltinFunction(llvm::StringRef name) {
  return findBuiltin(name) != nullptr;
}

bool sema::graphBuiltinsAllowed(const Sema &s) { return allowed(s, kOnGraph); }

Type sema::checkBuiltinCall(Sema &s, ast::CallExpr &call) {
  return checkCall(s, call);
}
