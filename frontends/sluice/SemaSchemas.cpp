//===- SemaSchemas.cpp - Option schemas of graphs, models and jobs -------===//
//
// The keyed options of `load(...)`, model constructors and jobs as tables of
// OptionSpec, and the one OptionChecker that checks every option list
// (SemaOptions.h; schedules are in SemaSchedules.cpp), so that every unknown
// key or value lists the valid ones and every required one is reported
// missing. The rules are listed in Sema.cpp.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"
#include "frontends/sluice/SemaOptions.h"

#include "dialects/Graph/IR/GraphSchema.h"
#include "dialects/Model/IR/ModelSchema.h"
#include "dialects/Walk/IR/WalkSchema.h"

#include "llvm/ADT/STLExtras.h"

using namespace sluice;
using namespace sluice::sema;
using ast::Type;
using K = ast::Type::Kind;

namespace {


// Graph formats, duplicates and self loops, and walk samplers and targets
// are the walk dialect's enums (WalkSchema.h), norms the model dialect's
// (ModelSchema.h); algorithm targets and the loop schedule words the graph
// dialect's (GraphSchema.h).
const llvm::StringRef kDtypes[] = {"fp32", "fp16", "bf16", "fp8"};
const llvm::StringRef kGnnKinds[] = {"sage", "gcn", "gat"};
const llvm::StringRef kOptimizers[] = {"adam", "adamw", "sgd"};
const llvm::StringRef kMlps[] = {"gelu", "swiglu"};
const llvm::StringRef kPositions[] = {"learned", "rotary"};
/// The parallel kinds as written: `dynamic` takes its chunk, `dynamic(n)`.
llvm::ArrayRef<llvm::StringRef> parallelSpellings() {
  static const std::vector<llvm::StringRef> spellings = [] {
    std::vector<llvm::StringRef> s;
    for (llvm::StringRef name : graph::parallelNames())
      s.push_back(name == graph::stringifyParallel(graph::Parallel::Dynamic)
                      ? "dynamic(n)"
                      : name);
    return s;
  }();
  return spellings;
}



const std::vector<OptionSpec> &loadSpecs() {
  static const std::vector<OptionSpec> specs = {
      word("format", walk::graphFormatNames()),
      opt("weighted", OptKind::Bool),
      opt("labels", OptKind::String),
      opt("edge_labels", OptKind::String),
      word("duplicates", walk::duplicatesNames()),
      word("self_loops", walk::selfLoopsNames())};
  return specs;
}


const std::vector<OptionSpec> *modelSpecs(llvm::StringRef kind) {
  static const std::vector<OptionSpec> transformer = {
      req("layers", OptKind::Int), req("hidden", OptKind::Int),
      req("heads", OptKind::Int), pos("kv_heads", OptKind::Int),
      pos("ffn", OptKind::Int), req("seq", OptKind::Int),
      req("vocab", OptKind::Int), word("dtype", kDtypes),
      // Llama-style blocks (docs/language.md, Models).
      word("norm", model::normKindNames()), word("mlp", kMlps),
      word("positions", kPositions), opt("tied", OptKind::Bool),
      opt("bias", OptKind::Bool),
      // Layer groups: `groups` consecutive layers each, `group_ffn` their
      // MLP widths.
      pos("groups", OptKind::IntList), pos("group_ffn", OptKind::IntList)};
  static const std::vector<OptionSpec> gnn = {
      req("layers", OptKind::Int),   req("fanouts", OptKind::IntList),
      req("features", OptKind::Int), req("hidden", OptKind::Int),
      req("classes", OptKind::Int),  word("kind", kGnnKinds)};
  static const std::vector<OptionSpec> distill = {
      req("teacher", OptKind::Model), req("student", OptKind::Model),
      req("blocks", OptKind::Int)};
  if (kind == "transformer")
    return &transformer;
  if (kind == "gnn")
    return &gnn;
  if (kind == "distill")
    return &distill;
  return nullptr;
}

/// What a job action takes and which options it accepts.
struct JobAction {
  llvm::StringRef name;
  llvm::StringRef subjectWhat;                ///< "a transformer model", ...
  llvm::ArrayRef<llvm::StringRef> modelKinds; ///< accepted model kinds
  bool takesGraph = false;                    ///< gather: a graph as subject
  bool takesWalk = false;
  bool takesAlgorithm = false;
  bool targetMayBeGraph = false;
  std::vector<OptionSpec> options;
};

const llvm::StringRef kTransformer[] = {"transformer"};
const llvm::StringRef kTrainable[] = {"transformer", "gnn"};
const llvm::StringRef kDistill[] = {"distill"};
const llvm::StringRef kGnn[] = {"gnn"};

std::vector<OptionSpec> withCommon(std::vector<OptionSpec> specs) {
  specs.push_back(opt("output", OptKind::String));
  specs.push_back(opt("seed", OptKind::Int));
  specs.push_back(upTo("threads", walk::kMaxWalkThreads));
  return specs;
}

std::vector<OptionSpec> trainingOptions(bool batchRequired) {
  OptionSpec batch =
      batchRequired ? req("batch", OptKind::Int) : pos("batch", OptKind::Int);
  return withCommon(
      {batch, pos("micro_batch", OptKind::Int), word("optimizer", kOptimizers),
       pos("seq", OptKind::Int), pos("steps", OptKind::Int),
       opt("recompute", OptKind::Bool), pos("lr", OptKind::Float)});
}

const std::vector<JobAction> &jobActions() {
  static const std::vector<JobAction> actions = [] {
    std::vector<JobAction> a;
    a.push_back({"finetune", "a transformer model", kTransformer, false, false,
                 false, false, trainingOptions(true)});
    a.push_back({"train", "a transformer or gnn model", kTrainable, false,
                 false, false, false, trainingOptions(true)});
    a.push_back(
        {"infer", "a transformer model", kTransformer, false, false, false,
         false,
         withCommon({pos("batch", OptKind::Int), pos("seq", OptKind::Int),
                     pos("tokens", OptKind::Int)})});
    a.push_back({"distill", "a distill model", kDistill, false, false, false,
                 false, trainingOptions(true)});
    a.push_back({"gather", "a gnn model or a graph", kGnn, true, false, false,
                 false, withCommon({pos("batch", OptKind::Int)})});
    a.push_back({"walk",
                 "a walk",
                 {},
                 false,
                 true,
                 false,
                 true,
                 withCommon({upTo("walks_per_vertex",
                                  walk::kMaxWalksPerVertex)})});
    a.push_back(
        {"run", "an algorithm", {}, false, false, true, true, withCommon({})});
    return a;
  }();
  return actions;
}

std::vector<std::string> specNames(llvm::ArrayRef<OptionSpec> specs) {
  std::vector<std::string> names;
  for (const OptionSpec &s : specs)
    names.push_back(s.name.str());
  return names;
}


/// The kind of a model ("transformer", "gnn", "distill"), or "".
llvm::StringRef modelKind(const Symbol *sym) {
  if (!sym || sym->kind != SymKind::Model || !sym->decl)
    return "";
  auto *model = llvm::cast<ast::ModelDecl>(sym->decl);
  return model->ctor ? llvm::StringRef(model->ctor->callee) : "";
}




} // namespace

//===----------------------------------------------------------------------===//
// Option checking (SemaOptions.h)
//===----------------------------------------------------------------------===//

namespace sluice::sema {

OptionSpec req(llvm::StringRef name, OptKind kind) {
  OptionSpec s{name, kind};
  s.required = true;
  s.positive = kind == OptKind::Int || kind == OptKind::IntList;
  return s;
}
OptionSpec pos(llvm::StringRef name, OptKind kind) {
  OptionSpec s{name, kind};
  s.positive = true;
  return s;
}
OptionSpec opt(llvm::StringRef name, OptKind kind) { return {name, kind}; }
/// A positive i64 of at most `max` (the runtime field it narrows to).
OptionSpec upTo(llvm::StringRef name, int64_t max) {
  OptionSpec s = pos(name, OptKind::Int);
  s.max = max;
  return s;
}
OptionSpec word(llvm::StringRef name, llvm::ArrayRef<llvm::StringRef> words) {
  return {name, OptKind::Word, words};
}

/// Types the value of an option that was already reported (unknown key,
/// unknown owner) without reporting option words in it: a bare word that
/// names nothing, or a call such as `dynamic(64)` to no function.
void checkLoose(Sema &s, ast::Expr *e) {
  if (auto *n = llvm::dyn_cast_or_null<ast::NameExpr>(e))
    if (!s.lookup(n->name))
      return;
  if (auto *c = llvm::dyn_cast_or_null<ast::CallExpr>(e))
    if (!isBuiltinFunction(c->callee)) {
      for (ast::Arg &a : c->args)
        checkLoose(s, a.value.get());
      return;
    }
  s.check(e);
}

std::map<std::string, ast::Expr *>
OptionChecker::run(llvm::ArrayRef<OptionItem> items,
                   llvm::ArrayRef<OptionSpec> specs) {
  Sema::WhereScope w(s, Where::Const, "a constant expression");
  std::map<std::string, ast::Expr *> given;
  std::map<std::string, ast::SourceRange> seen;
  for (const OptionItem &item : items) {
    auto [prev, inserted] = seen.emplace(item.name.str(), item.nameRange);
    if (!inserted) {
      auto diag = s.error(item.nameRange)
                  << "duplicate " << noun << " '" << item.name << "'";
      s.note(diag, prev->second, "previous value is here");
      checkLoose(s, item.value);
      continue;
    }
    auto spec = llvm::find_if(
        specs, [&](const OptionSpec &sp) { return sp.name == item.name; });
    if (spec != specs.end()) {
      checkValue(*spec, item.value);
      given[item.name.str()] = item.value;
      continue;
    }
    auto param = llvm::find_if(
        params, [&](const ast::Param &p) { return p.name == item.name; });
    if (param != params.end()) {
      Type t = s.resolveType(param->type, /*report=*/false);
      s.checkAs(item.value, t,
                "argument '" + param->name + "' of " + paramOwner);
      given[item.name.str()] = item.value;
      continue;
    }
    if (lenient) {
      checkLoose(s, item.value);
      continue;
    }
    std::vector<std::string> names = specNames(specs);
    for (const ast::Param &p : params)
      names.push_back(p.name);
    s.error(item.nameRange)
        << "unknown " << noun << " '" << item.name << "' for " << owner
        << "; expected one of: " << joinNames(names);
    checkLoose(s, item.value);
  }
  for (const OptionSpec &spec : specs)
    if (spec.required && !given.count(spec.name.str()))
      s.error(ownerRange) << owner << " is missing required " << noun << " '"
                          << spec.name << "'";
  for (const ast::Param &p : params)
    if (!p.defaultValue && !given.count(p.name))
      s.error(ownerRange) << owner << " is missing argument '" << p.name
                          << "' of " << paramOwner;
  return given;
}

void OptionChecker::unknownWord(const OptionSpec &spec, ast::NameExpr &n,
                                llvm::ArrayRef<llvm::StringRef> words) {
  s.error(n.range) << "unknown value '" << n.name << "' for " << what(spec)
                   << "; expected one of: " << joinNames(words);
}

void OptionChecker::checkInt(const OptionSpec &spec, ast::Expr *e) {
  Type t = s.check(e);
  if (!e || t.isUnknown())
    return;
  if (t.kind != K::Int) {
    s.error(e->range) << what(spec) << " expects i64, got " << typeName(t);
    return;
  }
  const Value *v = s.valueOf(e);
  if (!v)
    return;
  if (spec.positive && v->i <= 0)
    s.error(e->range) << what(spec) << " must be positive, got " << v->i;
  else if (spec.max && v->i > spec.max)
    s.error(e->range) << what(spec) << " must be at most " << spec.max
                      << ", got " << v->i;
}

void OptionChecker::checkValue(const OptionSpec &spec, ast::Expr *e) {
  if (!e)
    return;
  auto *name = llvm::dyn_cast<ast::NameExpr>(e);
  switch (spec.kind) {
  case OptKind::Int:
    checkInt(spec, e);
    return;
  case OptKind::Float: {
    Type t = s.check(e);
    if (t.isUnknown())
      return;
    if (t.kind != K::Int && t.kind != K::Float) {
      s.error(e->range) << what(spec) << " expects f64, got " << typeName(t);
      return;
    }
    if (const Value *v = s.valueOf(e))
      if (spec.positive && *v->asNumber() <= 0)
        s.error(e->range) << what(spec) << " must be positive, got "
                          << formatValue(*v, t);
    return;
  }
  case OptKind::Bool:
    s.checkAs(e, Type::of(K::Bool), what(spec));
    return;
  case OptKind::String: {
    if (!s.checkAs(e, Type::of(K::String), what(spec)))
      return;
    if (const Value *v = s.valueOf(e))
      if (v->kind == Value::Kind::String && v->str().empty())
        s.error(e->range) << what(spec) << " must not be empty";
    return;
  }
  case OptKind::Word:
    if (name) {
      if (llvm::is_contained(spec.words, llvm::StringRef(name->name)))
        e->type = Type::of(K::Enum);
      else
        unknownWord(spec, *name, spec.words);
      return;
    }
    // A hyphenated word (`mtx-body`).
    if (std::optional<std::string> word = ast::bareWord(e)) {
      if (llvm::is_contained(spec.words, llvm::StringRef(*word)))
        e->type = Type::of(K::Enum);
      else
        s.error(e->range) << "unknown value '" << *word << "' for "
                          << what(spec)
                          << "; expected one of: " << joinNames(spec.words);
      return;
    }
    if (Type t = s.check(e); !t.isUnknown())
      s.error(e->range) << what(spec)
                        << " expects one of: " << joinNames(spec.words)
                        << "; got " << typeName(t);
    return;
  case OptKind::IntOrAuto:
    if (name && name->name == "auto") {
      e->type = Type::of(K::Enum);
      return;
    }
    if (name && !s.lookup(name->name)) {
      s.error(e->range) << "unknown value '" << name->name << "' for "
                        << what(spec) << "; expected 'auto' or a positive i64";
      return;
    }
    checkInt(spec, e);
    if (!e->type.isUnknown() && e->type.kind == K::Int)
      if (const Value *v = s.valueOf(e))
        if (v->i <= 0)
          s.error(e->range) << what(spec) << " must be positive, got " << v->i;
    return;
  case OptKind::Parallel:
    if (std::optional<graph::Parallel> kind =
            name ? graph::symbolizeParallel(name->name) : std::nullopt;
        kind && *kind != graph::Parallel::Dynamic) {
      e->type = Type::of(K::Enum);
      return;
    }
    if (auto *call = llvm::dyn_cast<ast::CallExpr>(e);
        call && call->callee == "dynamic") {
      bool named = llvm::any_of(
          call->args, [](const ast::Arg &a) { return !a.name.empty(); });
      if (call->args.size() != 1 || named) {
        s.error(call->range) << "'dynamic' expects 1 argument (the chunk "
                                "size), got "
                             << call->args.size();
        for (ast::Arg &a : call->args)
          s.check(a.value.get());
        return;
      }
      ast::Expr *arg = call->args[0].value.get();
      Type t = s.check(arg);
      if (arg && !t.isUnknown()) {
        if (t.kind != K::Int)
          s.error(arg->range)
              << "chunk size of 'dynamic' expects i64, got " << typeName(t);
        else if (const Value *v = s.valueOf(arg); v && v->i <= 0)
          s.error(arg->range)
              << "chunk size of 'dynamic' must be positive, got " << v->i;
      }
      call->type = Type::of(K::Enum);
      return;
    }
    if (name) {
      unknownWord(spec, *name, parallelSpellings());
      return;
    }
    if (Type t = s.check(e); !t.isUnknown())
      s.error(e->range) << what(spec)
                        << " expects one of: " << joinNames(parallelSpellings())
                        << "; got " << typeName(t);
    return;
  case OptKind::IntList: {
    Type t = s.check(e);
    if (t.isUnknown())
      return;
    if (t.kind != K::List ||
        (t.element && !t.element->isUnknown() && t.element->kind != K::Int)) {
      s.error(e->range) << what(spec) << " expects [i64], got " << typeName(t);
      return;
    }
    if (const Value *v = s.valueOf(e))
      for (const Value &elt : v->elements())
        if (spec.positive && elt.kind == Value::Kind::Int && elt.i <= 0) {
          s.error(e->range)
              << what(spec) << " must contain positive numbers, got " << elt.i;
          break;
        }
    return;
  }
  case OptKind::Model: {
    if (!name) {
      if (Type t = s.check(e); !t.isUnknown())
        s.error(e->range) << what(spec) << " expects a model, got "
                          << typeName(t);
      return;
    }
    Symbol *sym = s.lookup(name->name);
    if (!sym) {
      s.error(e->range) << "unknown model '" << name->name << "'"
                        << didYouMean(name->name,
                                      s.globalNames({SymKind::Model}));
      return;
    }
    if (sym->kind != SymKind::Model) {
      auto diag = s.error(e->range) << "'" << name->name << "' is "
                                    << describeA(sym->kind) << ", not a model";
      s.note(diag, sym->range, "'" + name->name + "' is declared here");
      return;
    }
    e->type = Type::of(K::Model);
    return;
  }
  }
}

std::vector<OptionItem> itemsOf(std::vector<ast::Prop> &props) {
  std::vector<OptionItem> items;
  for (ast::Prop &p : props)
    items.push_back({p.name, p.nameRange, p.value.get()});
  return items;
}

const Value *argValue(Sema &s, const std::map<std::string, ast::Expr *> &args,
                      llvm::StringRef name) {
  auto it = args.find(name.str());
  if (it == args.end() || !it->second || it->second->type.isUnknown())
    return nullptr;
  const Value *v = s.valueOf(it->second);
  return v && v->kind == Value::Kind::Int ? v : nullptr;
}

} // namespace sluice::sema

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

void Sema::checkGraph(ast::GraphDecl &graph) {
  ast::CallExpr *call = graph.source.get();
  if (!call)
    return;
  WhereScope w(*this, Where::Const, "a constant expression");
  if (call->callee != "load") {
    error(call->calleeRange)
        << "unknown graph source '" << call->callee << "'; expected 'load'";
    for (ast::Arg &a : call->args)
      checkLoose(*this, a.value.get());
    return;
  }
  call->type = Type::of(K::Graph);

  std::vector<OptionItem> named;
  bool sawPath = false;
  ast::NameExpr *direction = nullptr;
  for (ast::Arg &a : call->args) {
    ast::Expr *e = a.value.get();
    if (!a.name.empty()) {
      named.push_back({a.name, a.nameRange, e});
      continue;
    }
    if (!e)
      continue;
    if (!sawPath) {
      sawPath = true;
      if (!checkAs(e, Type::of(K::String), "the file path of 'load'"))
        continue;
      if (const Value *v = valueOf(e))
        if (v->kind == Value::Kind::String && v->str().empty())
          error(e->range) << "graph file path is empty";
      continue;
    }
    auto *flag = llvm::dyn_cast<ast::NameExpr>(e);
    if (!flag || (flag->name != "directed" && flag->name != "undirected")) {
      if (flag)
        error(e->range) << "unknown flag '" << flag->name
                        << "' for load; expected 'directed' or 'undirected'"
                        << didYouMean(flag->name, {"directed", "undirected"});
      else {
        check(e);
        error(e->range) << "unexpected positional argument to load; expected "
                           "'directed' or 'undirected'";
      }
      continue;
    }
    flag->type = Type::of(K::Enum);
    if (direction) {
      auto diag = error(e->range)
                  << (direction->name == flag->name
                          ? "duplicate '" + flag->name + "'"
                          : std::string("a graph cannot be both directed and "
                                        "undirected"));
      note(diag, direction->range, "'" + direction->name + "' is here");
      continue;
    }
    direction = flag;
  }
  if (!sawPath)
    error(call->range) << "load needs a file path, e.g. load(\"graph.txt\")";
  OptionChecker(*this, "option", "load", call->range).run(named, loadSpecs());
}

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

/// The elements of an integer-list argument, or nullopt.
static std::optional<std::vector<int64_t>>
intList(Sema &s, const std::map<std::string, ast::Expr *> &args,
        llvm::StringRef name) {
  auto it = args.find(name.str());
  if (it == args.end() || !it->second || it->second->type.isUnknown())
    return std::nullopt;
  const Value *v = s.valueOf(it->second);
  if (!v || v->kind != Value::Kind::List)
    return std::nullopt;
  std::vector<int64_t> out;
  for (const Value &e : v->elements()) {
    if (e.kind != Value::Kind::Int)
      return std::nullopt;
    out.push_back(e.i);
  }
  return out;
}

/// transformer(groups: [...], group_ffn: [...]): the groups cover `layers`,
/// one width per group, and `ffn` is not given with `group_ffn`.
void Sema::checkLayerGroups(const std::map<std::string, ast::Expr *> &args) {
  // The argument's expression (null when absent or already in error).
  auto expr = [&](llvm::StringRef name) -> ast::Expr * {
    auto it = args.find(name.str());
    return it == args.end() ? nullptr : it->second;
  };
  auto at = [&](llvm::StringRef name) { return expr(name)->range; };
  std::optional<std::vector<int64_t>> groups = intList(*this, args, "groups");
  std::optional<std::vector<int64_t>> widths =
      intList(*this, args, "group_ffn");
  if (expr("group_ffn") && !args.count("groups")) {
    error(at("group_ffn")) << "group_ffn needs groups (the layers of each "
                              "group, e.g. groups: [40, 40])";
    return;
  }
  if (args.count("group_ffn") && expr("ffn"))
    error(at("ffn")) << "ffn and group_ffn both given; group_ffn sets the MLP "
                        "width of each group";
  if (groups) {
    if (groups->empty()) {
      error(at("groups")) << "groups must not be empty";
      return;
    }
    const Value *layers = argValue(*this, args, "layers");
    int64_t sum = 0;
    for (int64_t g : *groups)
      sum += g;
    if (layers && sum != layers->i)
      error(at("groups")) << "groups add up to " << sum << " layers but layers "
                          << "is " << layers->i;
  }
  if (groups && widths && widths->size() != groups->size())
    error(at("group_ffn")) << "group_ffn has " << widths->size()
                           << (widths->size() == 1 ? " entry" : " entries")
                           << " but groups has " << groups->size();
}

void Sema::checkModel(ast::ModelDecl &model) {
  ast::CallExpr *call = model.ctor.get();
  if (!call)
    return;
  WhereScope w(*this, Where::Const, "a constant expression");
  const std::vector<OptionSpec> *specs = modelSpecs(call->callee);
  if (!specs) {
    error(call->calleeRange)
        << "unknown model kind '" << call->callee << "'"
        << didYouMean(call->callee, {"transformer", "gnn", "distill"})
        << " (expected one of: transformer, gnn, distill)";
    for (ast::Arg &a : call->args)
      checkLoose(*this, a.value.get());
    return;
  }
  call->type = Type::of(K::Model);
  std::vector<OptionItem> named;
  for (ast::Arg &a : call->args) {
    if (a.name.empty()) {
      checkLoose(*this, a.value.get());
      error(a.value ? a.value->range : call->range)
          << "arguments of " << call->callee << " must be named, e.g. '"
          << specs->front().name << ": ...'";
      continue;
    }
    named.push_back({a.name, a.nameRange, a.value.get()});
  }
  auto args = OptionChecker(*this, "argument", call->callee, call->range)
                  .run(named, *specs);

  if (call->callee == "transformer") {
    const Value *hidden = argValue(*this, args, "hidden");
    const Value *heads = argValue(*this, args, "heads");
    const Value *kvHeads = argValue(*this, args, "kv_heads");
    if (hidden && heads && heads->i > 0 && hidden->i % heads->i != 0)
      error(args["hidden"]->range)
          << "hidden (" << hidden->i << ") must be divisible by heads ("
          << heads->i << ")";
    if (heads && kvHeads && kvHeads->i > 0 && heads->i % kvHeads->i != 0)
      error(args["kv_heads"]->range)
          << "heads (" << heads->i << ") must be divisible by kv_heads ("
          << kvHeads->i << ")";
    checkLayerGroups(args);
  } else if (call->callee == "gnn") {
    const Value *layers = argValue(*this, args, "layers");
    auto fanouts = args.find("fanouts");
    const Value *list = fanouts != args.end() && fanouts->second &&
                                !fanouts->second->type.isUnknown()
                            ? valueOf(fanouts->second)
                            : nullptr;
    if (layers && list && list->kind == Value::Kind::List &&
        static_cast<int64_t>(list->elements().size()) != layers->i)
      error(fanouts->second->range)
          << "fanouts has " << list->elements().size()
          << (list->elements().size() == 1 ? " entry" : " entries")
          << " but layers is " << layers->i;
  } else if (call->callee == "distill") {
    const Symbol *teacher = nullptr;
    for (llvm::StringRef role : {"teacher", "student"}) {
      auto it = args.find(role.str());
      if (it == args.end() || !it->second || it->second->type.kind != K::Model)
        continue;
      auto *name = llvm::cast<ast::NameExpr>(it->second);
      const Symbol *sym = lookup(name->name);
      llvm::StringRef kind = modelKind(sym);
      if (kind != "transformer") {
        auto diag = error(name->range)
                    << role << " of distill must be a transformer model; '"
                    << name->name << "' is "
                    << (kind.empty() ? std::string("not") : "a " + kind.str())
                    << " model";
        note(diag, sym->range, "'" + name->name + "' is declared here");
        continue;
      }
      if (role == "teacher") {
        teacher = sym;
        continue;
      }
      if (teacher && teacher == sym)
        error(name->range) << "teacher and student are the same model '"
                           << name->name << "'";
    }
    // Blocks group the teacher's layers.
    const Value *blocksValue = argValue(*this, args, "blocks");
    std::optional<int64_t> blocks;
    if (blocksValue)
      blocks = blocksValue->i; // copied: checking the teacher adds values
    if (teacher && blocks && ensureChecked(teacher->decl)) {
      auto *t = llvm::cast<ast::ModelDecl>(teacher->decl);
      for (ast::Arg &a : t->ctor->args) {
        if (a.name != "layers" || !a.value || a.value->type.kind != K::Int)
          continue;
        const Value *layers = valueOf(a.value.get());
        if (layers && *blocks > layers->i)
          error(args["blocks"]->range)
              << "blocks (" << *blocks << ") exceeds the layers of teacher '"
              << t->name << "' (" << layers->i << ")";
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Jobs
//===----------------------------------------------------------------------===//

void Sema::checkJob(ast::JobDecl &job) {
  const JobAction *action = nullptr;
  std::vector<std::string> actionNames;
  for (const JobAction &a : jobActions()) {
    actionNames.push_back(a.name.str());
    if (a.name == job.action)
      action = &a;
  }
  if (!action) {
    error(job.actionRange) << "unknown job action '" << job.action << "'"
                           << didYouMean(job.action, actionNames)
                           << " (expected one of: " << joinNames(actionNames)
                           << ")";
    for (ast::Prop &p : job.props)
      checkLoose(*this, p.value.get());
    return;
  }

  // The subject.
  std::vector<SymKind> subjectKinds;
  if (!action->modelKinds.empty())
    subjectKinds.push_back(SymKind::Model);
  if (action->takesGraph)
    subjectKinds.push_back(SymKind::Graph);
  if (action->takesWalk)
    subjectKinds.push_back(SymKind::Walk);
  if (action->takesAlgorithm)
    subjectKinds.push_back(SymKind::Algorithm);
  Symbol *subject = lookupGlobal(job.subject);
  llvm::ArrayRef<ast::Param> params;
  std::string paramOwner;
  bool subjectOk = false;
  if (!subject) {
    error(job.subjectRange)
        << "unknown name '" << job.subject << "'"
        << didYouMean(job.subject, globalNames(subjectKinds));
  } else {
    bool ok = llvm::is_contained(subjectKinds, subject->kind);
    std::string is = describeA(subject->kind);
    if (ok && subject->kind == SymKind::Model) {
      llvm::StringRef kind = modelKind(subject);
      ok = llvm::is_contained(action->modelKinds, kind);
      is = "a " + (kind.empty() ? std::string("") : kind.str() + " ") + "model";
    }
    subjectOk = ok;
    if (!ok) {
      auto diag = error(job.subjectRange)
                  << action->name << " needs " << action->subjectWhat << "; '"
                  << job.subject << "' is " << is;
      note(diag, subject->range, "'" + job.subject + "' is declared here");
    } else if (auto *walk =
                   llvm::dyn_cast_or_null<ast::WalkDecl>(subject->decl)) {
      params = walk->params;
      paramOwner = "walk '" + walk->name + "'";
    } else if (auto *algo =
                   llvm::dyn_cast_or_null<ast::AlgorithmDecl>(subject->decl)) {
      params = algo->params;
      paramOwner = "algorithm '" + algo->name + "'";
    }
  }

  // The target.
  std::vector<SymKind> targetKinds = {SymKind::Topology};
  if (action->targetMayBeGraph)
    targetKinds.push_back(SymKind::Graph);
  Symbol *target = lookupGlobal(job.target);
  if (!target) {
    error(job.targetRange) << "unknown name '" << job.target << "'"
                           << didYouMean(job.target, globalNames(targetKinds));
  } else if (!llvm::is_contained(targetKinds, target->kind)) {
    auto diag = error(job.targetRange)
                << action->name << " runs on a topology"
                << (action->targetMayBeGraph ? " or a graph" : "") << "; '"
                << job.target << "' is " << describeA(target->kind);
    note(diag, target->range, "'" + job.target + "' is declared here");
  }

  // The options.
  OptionChecker options(*this, "option",
                        action->name.str() + " job '" + job.name + "'",
                        job.nameRange);
  options.setParams(params, paramOwner);
  if (!subjectOk && (action->takesWalk || action->takesAlgorithm))
    options.setLenient();
  auto given = options.run(itemsOf(job.props), action->options);
  if (subjectOk)
    if (auto *walk = llvm::dyn_cast_or_null<ast::WalkDecl>(subject->decl))
      if (ensureChecked(walk))
        checkWalkJob(job, *walk, given);
  const Value *batch = argValue(*this, given, "batch");
  const Value *micro = argValue(*this, given, "micro_batch");
  if (batch && micro && micro->i > 0 && batch->i > 0 &&
      batch->i % micro->i != 0)
    error(given["micro_batch"]->range)
        << "batch (" << batch->i << ") must be divisible by micro_batch ("
        << micro->i << ")";
}
