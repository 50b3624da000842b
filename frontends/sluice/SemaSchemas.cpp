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
#include "support/NumberFormat.h"

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
const llvm::StringRef kOptimizers[] = {"adam", "adamw", "sgd", "lion",
                                       "adafactor"};
const llvm::StringRef kMlps[] = {"gelu", "swiglu"};
const llvm::StringRef kPositions[] = {"learned", "rotary"};
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
      pos("groups", OptKind::IntList), pos("group_ffn", OptKind::IntList),
      // A mixture of experts in every layer (docs/language.md, Models).
      pos("experts", OptKind::Int), pos("top_k", OptKind::Int),
      opt("capacity_factor", OptKind::Float)};
  static const std::vector<OptionSpec> gnn = {
      req("layers", OptKind::Int),       req("fanouts", OptKind::IntList),
      req("features", OptKind::Int),     req("hidden", OptKind::Int),
      req("classes", OptKind::Int),      word("kind", kGnnKinds),
      upTo("heads", model::kMaxGnnHeads)};
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

/// With `compress`, Optimus-CC compression of `train` jobs, opt-in because
/// it is lossy (docs/parallel.md): `compress: true`, and its rank
/// `compress_rank` (only with compress; the planner's default 64).
std::vector<OptionSpec> trainingOptions(bool batchRequired,
                                        bool compress = false) {
  OptionSpec batch =
      batchRequired ? req("batch", OptKind::Int) : pos("batch", OptKind::Int);
  std::vector<OptionSpec> specs = {batch,
                                   pos("micro_batch", OptKind::Int),
                                   word("optimizer", kOptimizers),
                                   pos("seq", OptKind::Int),
                                   pos("steps", OptKind::Int),
                                   opt("recompute", OptKind::Bool),
                                   pos("lr", OptKind::Float)};
  if (compress) {
    specs.push_back(opt("compress", OptKind::Bool));
    specs.push_back(upTo("compress_rank", 65536));
    // DisDP: plan the train job as disaggregated ZeRO-3 with its optimizer
    // on this device (docs/parallel.md, "DisDP").
    specs.push_back(opt("parameter_server", OptKind::String));
    appendAdversarialOptions(specs); // train jobs only (SemaAdversarial.cpp)
  }
  return withCommon(std::move(specs));
}

/// `finetune`: the training options, and LoRA's adapter rank and QLoRA's
/// base quantization (the model dialect's WeightQuant enum).
const std::vector<OptionSpec> &finetuneOptions() {
  static const std::vector<OptionSpec> specs = [] {
    std::vector<OptionSpec> s = trainingOptions(true);
    s.push_back(upTo("lora", 65536));
    s.push_back(word("quantize", model::weightQuantNames()));
    return s;
  }();
  return specs;
}

/// `train` of a gnn model (docs/gnn.md): the graph whose vertex labels are
/// the classes, the features (a .npy or raw float32 file; without it each
/// vertex's one-hot id) and the host memory that caches them (given: the
/// rest is read from the file as needed, out of core), epochs, Adam's step
/// size and weight decay, the dropout rate of the hidden layers, and the
/// aggregation's tile (`auto` or feature columns, docs/gnn.md).
const llvm::StringRef kGnnOptimizers[] = {"adam"};
const std::vector<OptionSpec> &gnnTrainOptions() {
  static const std::vector<OptionSpec> specs = [] {
    OptionSpec tile = opt("tile", OptKind::IntOrAuto);
    tile.max = model::kMaxGnnTile;
    return withCommon(
        {req("batch", OptKind::Int), req("graph", OptKind::Graph),
         opt("features", OptKind::String), pos("feature_cache", OptKind::Bytes),
         pos("epochs", OptKind::Int), pos("lr", OptKind::Float),
         opt("weight_decay", OptKind::Float), opt("dropout", OptKind::Float),
         word("optimizer", kGnnOptimizers), tile});
  }();
  return specs;
}

/// `align` (docs/align.md): the two FASTA files and minimap2's scoring;
/// the maxima are the seq dialect's (SeqOps.h).
std::vector<OptionSpec> alignOptions() {
  OptionSpec gapOpen = opt("gap_open", OptKind::Int);
  gapOpen.max = 255;
  OptionSpec zdrop = opt("zdrop", OptKind::Int);
  zdrop.max = 1 << 28;
  return withCommon({req("query", OptKind::String),
                     req("target", OptKind::String), upTo("match", 255),
                     upTo("mismatch", 255), gapOpen, upTo("gap_extend", 255),
                     upTo("band", 1 << 20), zdrop});
}

const std::vector<JobAction> &jobActions() {
  static const std::vector<JobAction> actions = [] {
    std::vector<JobAction> a;
    a.push_back({"finetune", "a transformer model", kTransformer, false, false,
                 false, false, finetuneOptions()});
    a.push_back({"train", "a transformer or gnn model", kTrainable, false,
                 false, false, false, trainingOptions(true, true)});
    a.push_back(
        {"infer", "a transformer model", kTransformer, false, false, false,
         false,
         withCommon({pos("batch", OptKind::Int), pos("seq", OptKind::Int),
                     pos("tokens", OptKind::Int),
                     word("compress", model::compressedTensorsNames())})});
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
                 withCommon({upTo("walks_per_vertex", walk::kMaxWalksPerVertex),
                             word("walks_dtype", walk::walksDtypeNames()),
                             opt("shuffle", OptKind::Bool)})});
    a.push_back(
        {"run", "an algorithm", {}, false, false, true, true, withCommon({})});
    a.push_back({"align",
                 "an alignment mode",
                 {},
                 false,
                 false,
                 false,
                 false,
                 alignOptions()});
    return a;
  }();
  return actions;
}

} // namespace

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
      // Parquet edge tables need Apache Arrow's C++ libraries, which Debian
      // 12 does not package (docs/language.md, section 9).
      auto *word = llvm::dyn_cast_or_null<ast::NameExpr>(e);
      if (a.name == "format" && word && word->name == "parquet") {
        word->type = Type::of(K::Enum);
        error(e->range)
            << "format 'parquet' is not supported: reading Parquet needs "
               "Apache Arrow's C++ libraries (libarrow-dev, libparquet-dev), "
               "which Debian 12 does not package; convert the table to .npz "
               "(src, dst, weight arrays) or csv";
        continue;
      }
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

/// transformer(experts: E, top_k: K, capacity_factor: F): 2 <= E <=
/// kMaxExperts, 1 <= K <= E, 0 < F <= kMaxCapacityFactor; top_k and
/// capacity_factor only with experts.
void Sema::checkExperts(const std::map<std::string, ast::Expr *> &args) {
  auto given = [&](const char *name) {
    auto it = args.find(name);
    return it != args.end() && it->second ? it->second : nullptr;
  };
  ast::Expr *experts = given("experts");
  for (const char *name : {"top_k", "capacity_factor"})
    if (ast::Expr *e = given(name); e && args.count("experts") == 0)
      error(e->range) << name
                      << " needs experts (a mixture of experts, e.g. "
                         "experts: 8, top_k: 2)";
  const Value *e = argValue(*this, args, "experts");
  if (e && (e->i < 2 || e->i > model::kMaxExperts))
    error(experts->range) << "experts must be between 2 and "
                          << model::kMaxExperts
                          << " (a mixture of experts), got " << e->i;
  const Value *k = argValue(*this, args, "top_k");
  if (e && k && e->i >= 2 && k->i > e->i)
    error(given("top_k")->range)
        << "top_k (" << k->i << ") must not exceed experts (" << e->i << ")";
  if (ast::Expr *c = given("capacity_factor"); c && !c->type.isUnknown()) {
    const Value *v = valueOf(c);
    const double f = !v ? 0
                     : v->kind == Value::Kind::Float
                         ? v->f
                         : static_cast<double>(v->i);
    if (v && (!(f > 0) || f > model::kMaxCapacityFactor))
      error(c->range) << "capacity_factor must be in (0, "
                      << formatNumber(model::kMaxCapacityFactor) << "], got "
                      << formatNumber(f);
  }
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
    checkExperts(args);
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
    // Attention heads (docs/gnn.md, GAT): gat only; hidden layers
    // concatenate heads of hidden / heads values.
    const Value *heads = argValue(*this, args, "heads");
    auto kind = args.find("kind");
    auto *kindName = kind != args.end() && kind->second
                         ? llvm::dyn_cast<ast::NameExpr>(kind->second)
                         : nullptr;
    if (heads && (!kindName || kindName->name != "gat"))
      error(args["heads"]->range)
          << "heads needs kind: gat (" << (kindName ? kindName->name : "sage")
          << " layers have no attention heads)";
    const Value *hidden = argValue(*this, args, "hidden");
    if (heads && hidden && layers && layers->i > 1 && heads->i > 0 &&
        hidden->i % heads->i != 0)
      error(args["hidden"]->range)
          << "hidden (" << hidden->i << ") must be divisible by heads ("
          << heads->i << "): each hidden layer concatenates heads of hidden "
          << "/ heads values";
  } else if (call->callee == "distill") {
    const Symbol *teacher = nullptr, *student = nullptr;
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
      if (teacher && teacher == sym) {
        error(name->range) << "teacher and student are the same model '"
                           << name->name << "'";
        continue;
      }
      student = sym;
    }
    // Blocks group the teacher's layers, and the student's: every block
    // has at least one layer of each.
    const Value *blocksValue = argValue(*this, args, "blocks");
    std::optional<int64_t> blocks;
    if (blocksValue)
      blocks = blocksValue->i; // copied: checking the models adds values
    for (auto [role, sym] :
         {std::pair<const char *, const Symbol *>{"teacher", teacher},
          {"student", student}}) {
      if (!sym || !blocks || !ensureChecked(sym->decl))
        continue;
      auto *t = llvm::cast<ast::ModelDecl>(sym->decl);
      for (ast::Arg &a : t->ctor->args) {
        if (a.name != "layers" || !a.value || a.value->type.kind != K::Int)
          continue;
        const Value *layers = valueOf(a.value.get());
        if (layers && *blocks > layers->i)
          error(args["blocks"]->range)
              << "blocks (" << *blocks << ") exceeds the layers of " << role
              << " '" << t->name << "' (" << layers->i << ")";
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

  if (action->name == "align") { // SemaAlign.cpp
    checkAlignJob(job, action->options);
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
  llvm::ArrayRef<OptionSpec> specs = action->options;
  if (subjectOk && action->name == "train" && modelKind(subject) == "gnn")
    specs = gnnTrainOptions();
  auto given = options.run(itemsOf(job.props), specs);
  // Real-valued gnn options with a range (in the order they are written).
  for (ast::Prop &p : job.props) {
    const bool decay = p.name == "weight_decay", dropout = p.name == "dropout";
    if ((!decay && !dropout) || !given.count(p.name) || !p.value ||
        p.value->type.isUnknown())
      continue;
    const Value *v = valueOf(p.value.get());
    if (!v || !v->asNumber())
      continue;
    const double x = *v->asNumber();
    if (decay && x < 0)
      error(p.value->range)
          << "option 'weight_decay' must not be negative, got "
          << formatValue(*v, p.value->type);
    else if (dropout && !(x >= 0 && x < 1))
      error(p.value->range) << "option 'dropout' must be in [0, 1), got "
                            << formatValue(*v, p.value->type);
  }
  if (subjectOk)
    if (auto *walk = llvm::dyn_cast_or_null<ast::WalkDecl>(subject->decl))
      if (ensureChecked(walk))
        checkWalkJob(job, *walk, given);
  if (given.count("compress_rank")) {
    auto it = given.find("compress");
    const Value *on =
        it != given.end() && it->second && !it->second->type.isUnknown()
            ? valueOf(it->second)
            : nullptr;
    if (!on || on->kind != Value::Kind::Bool || !on->b)
      error(given["compress_rank"]->range)
          << "option 'compress_rank' needs 'compress: true' (Optimus-CC "
             "compression is lossy and off unless asked for)";
  }
  if (auto ps = given.find("parameter_server"); ps != given.end())
    checkParameterServer(given, ps->second);
  if (action->name == "train")
    checkAdversarialJob(given);
  const Value *batch = argValue(*this, given, "batch");
  const Value *micro = argValue(*this, given, "micro_batch");
  if (batch && micro && micro->i > 0 && batch->i > 0 &&
      batch->i % micro->i != 0)
    error(given["micro_batch"]->range)
        << "batch (" << batch->i << ") must be divisible by micro_batch ("
        << micro->i << ")";
  if (given.count("quantize") && !given.count("lora"))
    error(given["quantize"]->range)
        << "option 'quantize' quantizes the frozen base of a LoRA fine-tune "
           "(QLoRA); give the adapters' rank with 'lora'";
}
