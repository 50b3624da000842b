//===- SemaTest.cpp - Sema's rules on parsed programs ---------------------===//
//
// Each case parses a small program and lists exactly the errors Sema must
// report (as "line:col: message", or just "message" where the location is
// obvious). A complete program exercising every construct must check clean
// with every expression typed.
//
//===----------------------------------------------------------------------===//
#include "SemaTestHelpers.h"

#include "llvm/ADT/StringRef.h"
#include "gtest/gtest.h"
#include <functional>

using namespace sluice;
using namespace sluice::test;

namespace {

//===----------------------------------------------------------------------===//
// A clean program
//===----------------------------------------------------------------------===//

const char *kCleanProgram = R"(
let gib = 1 GiB
let step_time: time = 24 GiB / 25 GB/s

topology dgx(gpus: i64 = 8, nvlink: bandwidth = 300 GB/s) {
  gpu gpu[gpus] { memory: 80 GiB, memory_bandwidth: 2039 GB/s, compute: 312 TFLOPS, sms: 108, model: "A100", price: 15000 USD, power: 400 W }
  cpu cpu[2] { cores: 64, memory: 1024 * gib, frequency: 2.25 GHz }
  nic nic[gpus] { bandwidth: 200 Gbps, rdma: true }
  nvme ssd[4] { capacity: 3.84 TB, read: 7 GB/s, write: 4 GB/s, iops: 1000000 }
  switch nvsw { ports: 18, reduce: true }
  let half = gpus / 2
  for i in 0..gpus {
    link gpu[i] <-> nvsw { bandwidth: nvlink, latency: 1 us, type: "nvlink3" }
    link gpu[i] <-> nic[i] { bandwidth: 25 GB/s }
  }
  link cpu[0] <-> cpu[1] { bandwidth: 64 GB/s }
  link cpu[0] -> ssd[0..4] { bandwidth: 7 GB/s }
  link gpu[0..half] <-> cpu[0] { bandwidth: 32 GB/s }
  bandwidths from "p2p.json" between gpu[*]
}

topology cluster {
  dgx(gpus: 8) node[4]
  dgx(4, 200 GB/s) small
  switch ib { ports: 40, bandwidth: 16 Tbps }
  for n in 0..4 {
    for g in 0..8 {
      link node[n].nic[g] <-> ib { bandwidth: 25 GB/s }
    }
  }
  override node[0].gpu[0] <-> node[0].nvsw { bandwidth: 250 GB/s }
  link small.nic[0] <-> ib { bandwidth: 25 GB/s }
}

graph social = load("soc.txt.gz", format: snap, undirected)
graph roads = load("roads.mtx", format: mtx, directed, weighted: true, labels: "labels.txt")

walk node2vec(p: f64 = 2.0, q: f64 = 0.5) on social {
  length 80
  start all
  weight(prev, cur, next, w) =
    if next == prev then w / p
    else if has_edge(prev, next) then w
    else w / q
}

walk deepwalk on social {
  length 40
  start [0, 5, 7]
}

walk ppr(alpha: f64 = 0.15, source: vertex = 0) on social {
  start source
  stop probability alpha
}

walk metapath(types: [i64] = [1, 2, 3]) on roads {
  length 5
  state visits: i64 = 0
  state total: f64 = 0.0
  let period = 3
  weight(cur, next, w) = if label(next) == types[0] and step % period == 0 then w else 0.0
  stop(cur, step) = visits > 100 or random() < 0.01
  update(cur, next) {
    visits += 1
    if degree(next) > 10 { total += weight(cur, next) }
  }
}

algorithm pagerank(iters: i64 = 20, d: f64 = 0.85) on social {
  vertex rank: f64 = 1.0 / num_vertices
  vertex next_rank: f64 = 0.0
  repeat iters {
    @s1 edges(src, dst) { next_rank[dst] += rank[src] / degree(src) }
    @s2 vertices(v) {
      rank[v] = (1.0 - d) / num_vertices + d * next_rank[v]
      next_rank[v] = 0.0
    }
  }
  output rank
}

algorithm bfs(source: vertex) on roads {
  vertex dist: i64 = -1
  dist[source] = 0
  frontier f = [source]
  let level = 0
  while size(f) > 0 {
    level += 1
    @expand f = edges(src, dst) from f where dist[dst] == -1 { dist[dst] = level }
  }
  output dist
}

algorithm sssp(source: vertex) on roads {
  vertex dist: f64 = 1e30
  vertex hops: i64 = 0
  dist[source] = 0.0
  frontier f = [source]
  while not empty(f) {
    @relax f = edges(u, v, w) from f {
      dist[v] min= dist[u] + w
      hops[v] max= hops[u] + 1
    }
  }
  output dist, hops
}

schedule node2vec { sampler: alias, target: gpu, threads: 64, walkers_per_thread: 4 }
schedule pagerank {
  target: cpu
  @s1 { direction: pull, parallel: dynamic(64), tile: auto, frontier: dense, format: csr }
  @s2 { parallel: static, tile: 1024 }
}

model gpt3 = transformer(layers: 96, hidden: 12288, heads: 96, kv_heads: 8, seq: 2048, vocab: 50257, dtype: fp16)
model small = transformer(layers: 12, hidden: 768, heads: 12, ffn: 3072, seq: 2048, vocab: 50257)
model sage = gnn(layers: 2, fanouts: [25, 10], features: 602, hidden: 256, classes: 41, kind: sage)
model kd = distill(teacher: gpt3, student: small, blocks: 12)

job tune = finetune gpt3 on dgx { batch: 8, micro_batch: 2, optimizer: adamw, recompute: true, seq: gpt3.seq, lr: 0.0001 }
job serve = infer small on dgx { tokens: 128 }
job gnn_train = train sage on cluster { graph: social, batch: 1024, epochs: 100, dropout: 0.5, feature_cache: 64 MiB, features: "feats.npy" }
job kd_job = distill kd on cluster { batch: 64 }
job sample = gather sage on dgx { batch: 512, seed: 42 }
job sample_graph = gather social on dgx
job walks = walk node2vec on dgx { p: 1.0, q: 0.5, walks_per_vertex: 10, output: "walks.bin" }
job pr = run pagerank on social { iters: 30 }
job b = run bfs on dgx { source: 0 }
)";

/// Calls `fn` on every expression of the module (not on option words).
void forEachExpr(ast::Expr *e, const std::function<void(ast::Expr &)> &fn);

void forEachArgs(std::vector<ast::Arg> &args,
                 const std::function<void(ast::Expr &)> &fn) {
  for (ast::Arg &a : args)
    forEachExpr(a.value.get(), fn);
}

void forEachExpr(ast::Expr *e, const std::function<void(ast::Expr &)> &fn) {
  if (!e)
    return;
  fn(*e);
  if (auto *c = llvm::dyn_cast<ast::CallExpr>(e))
    forEachArgs(c->args, fn);
  else if (auto *u = llvm::dyn_cast<ast::UnaryExpr>(e))
    forEachExpr(u->operand.get(), fn);
  else if (auto *b = llvm::dyn_cast<ast::BinaryExpr>(e)) {
    forEachExpr(b->lhs.get(), fn);
    forEachExpr(b->rhs.get(), fn);
  } else if (auto *i = llvm::dyn_cast<ast::IfExpr>(e)) {
    forEachExpr(i->cond.get(), fn);
    forEachExpr(i->thenExpr.get(), fn);
    forEachExpr(i->elseExpr.get(), fn);
  } else if (auto *x = llvm::dyn_cast<ast::IndexExpr>(e)) {
    forEachExpr(x->base.get(), fn);
    forEachExpr(x->index.get(), fn);
  } else if (auto *m = llvm::dyn_cast<ast::MemberExpr>(e)) {
    forEachExpr(m->base.get(), fn);
  } else if (auto *l = llvm::dyn_cast<ast::ListExpr>(e)) {
    for (ast::ExprPtr &elt : l->elements)
      forEachExpr(elt.get(), fn);
  }
}

void forEachInBlock(ast::Block &block,
                    const std::function<void(ast::Expr &)> &fn) {
  for (ast::StmtPtr &s : block) {
    if (auto *v = llvm::dyn_cast<ast::VertexPropStmt>(s.get()))
      forEachExpr(v->init.get(), fn);
    else if (auto *f = llvm::dyn_cast<ast::FrontierStmt>(s.get()))
      forEachExpr(f->init.get(), fn);
    else if (auto *l = llvm::dyn_cast<ast::LetStmt>(s.get()))
      forEachExpr(l->value.get(), fn);
    else if (auto *r = llvm::dyn_cast<ast::RepeatStmt>(s.get())) {
      forEachExpr(r->count.get(), fn);
      forEachInBlock(r->body, fn);
    } else if (auto *w = llvm::dyn_cast<ast::WhileStmt>(s.get())) {
      forEachExpr(w->cond.get(), fn);
      forEachInBlock(w->body, fn);
    } else if (auto *i = llvm::dyn_cast<ast::IfStmt>(s.get())) {
      forEachExpr(i->cond.get(), fn);
      forEachInBlock(i->thenBody, fn);
      forEachInBlock(i->elseBody, fn);
    } else if (auto *vs = llvm::dyn_cast<ast::VerticesStmt>(s.get())) {
      forEachExpr(vs->where.get(), fn);
      forEachInBlock(vs->body, fn);
    } else if (auto *es = llvm::dyn_cast<ast::EdgesStmt>(s.get())) {
      forEachExpr(es->where.get(), fn);
      forEachInBlock(es->body, fn);
    } else if (auto *a = llvm::dyn_cast<ast::AssignStmt>(s.get())) {
      forEachExpr(a->index.get(), fn);
      forEachExpr(a->value.get(), fn);
    }
  }
}

void forEachInTopoItems(std::vector<ast::TopoItemPtr> &items,
                        const std::function<void(ast::Expr &)> &fn) {
  auto endpoint = [&](ast::Endpoint &ep) {
    for (ast::Segment &s : ep.segments) {
      forEachExpr(s.lo.get(), fn);
      forEachExpr(s.hi.get(), fn);
    }
  };
  for (ast::TopoItemPtr &item : items) {
    if (auto *d = llvm::dyn_cast<ast::DeviceItem>(item.get())) {
      forEachArgs(d->args, fn);
      forEachExpr(d->count.get(), fn);
      for (ast::Prop &p : d->props)
        forEachExpr(p.value.get(), fn);
    } else if (auto *l = llvm::dyn_cast<ast::LinkItem>(item.get())) {
      endpoint(l->from);
      endpoint(l->to);
      for (ast::Prop &p : l->props)
        forEachExpr(p.value.get(), fn);
    } else if (auto *b = llvm::dyn_cast<ast::BandwidthsItem>(item.get())) {
      endpoint(b->devices);
    } else if (auto *f = llvm::dyn_cast<ast::ForItem>(item.get())) {
      forEachExpr(f->lo.get(), fn);
      forEachExpr(f->hi.get(), fn);
      forEachInTopoItems(f->body, fn);
    } else if (auto *l = llvm::dyn_cast<ast::LetItem>(item.get())) {
      forEachExpr(l->value.get(), fn);
    }
  }
}

void forEachInModule(ast::Module &m,
                     const std::function<void(ast::Expr &)> &fn) {
  auto params = [&](std::vector<ast::Param> &ps) {
    for (ast::Param &p : ps)
      forEachExpr(p.defaultValue.get(), fn);
  };
  auto props = [&](std::vector<ast::Prop> &ps) {
    for (ast::Prop &p : ps)
      forEachExpr(p.value.get(), fn);
  };
  for (ast::DeclPtr &d : m.decls) {
    if (auto *l = llvm::dyn_cast<ast::LetDecl>(d.get())) {
      forEachExpr(l->value.get(), fn);
    } else if (auto *t = llvm::dyn_cast<ast::TopologyDecl>(d.get())) {
      params(t->params);
      forEachInTopoItems(t->items, fn);
    } else if (auto *g = llvm::dyn_cast<ast::GraphDecl>(d.get())) {
      forEachExpr(g->source.get(), fn);
    } else if (auto *w = llvm::dyn_cast<ast::WalkDecl>(d.get())) {
      params(w->params);
      for (ast::WalkItem &item : w->items) {
        forEachExpr(item.value.get(), fn);
        forEachInBlock(item.body, fn);
      }
    } else if (auto *a = llvm::dyn_cast<ast::AlgorithmDecl>(d.get())) {
      params(a->params);
      forEachInBlock(a->body, fn);
    } else if (auto *s = llvm::dyn_cast<ast::ScheduleDecl>(d.get())) {
      props(s->props);
      for (auto &l : s->labeled)
        props(l.props);
    } else if (auto *md = llvm::dyn_cast<ast::ModelDecl>(d.get())) {
      forEachExpr(md->ctor.get(), fn);
    } else if (auto *j = llvm::dyn_cast<ast::JobDecl>(d.get())) {
      props(j->props);
    }
  }
}

TEST(Sema, CleanProgramChecksAndIsFullyTyped) {
  auto run = runSema(kCleanProgram);
  ASSERT_TRUE(run->parsed) << ::testing::PrintToString(run->parseErrors);
  EXPECT_TRUE(run->checked);
  EXPECT_EQ(run->all, std::vector<std::string>{});
  unsigned exprs = 0;
  forEachInModule(*run->program.modules.back(), [&](ast::Expr &e) {
    ++exprs;
    EXPECT_FALSE(e.type.isUnknown())
        << "untyped expression at " << e.range.begin.line << ":"
        << e.range.begin.col;
  });
  EXPECT_GT(exprs, 200u);
}

/// The type Sema gives the value of the first top-level let.
std::string letType(llvm::StringRef source) {
  auto run = runSema(source);
  if (!run->parsed || run->program.modules.back()->decls.empty())
    return "<parse error>";
  auto *let =
      llvm::dyn_cast<ast::LetDecl>(run->program.modules.back()->decls[0].get());
  if (!let || !let->value)
    return "<not a let>";
  return let->value->type.str();
}

TEST(Sema, UnitArithmetic) {
  EXPECT_EQ(letType("let x = 24 GiB / 25 GB/s"), "time");
  EXPECT_EQ(letType("let x = 24 GiB / 8 GiB"), "f64");
  EXPECT_EQ(letType("let x = 2 s * 25 GB/s"), "bytes");
  EXPECT_EQ(letType("let x = 312 TFLOPS * 1 s"), "flops");
  EXPECT_EQ(letType("let x = 1 / 1 s"), "frequency");
  EXPECT_EQ(letType("let x = 1 GiB + 512 MiB"), "bytes");
  EXPECT_EQ(letType("let x = 2 * 3"), "i64");
  EXPECT_EQ(letType("let x = 7 / 2"), "i64");
  EXPECT_EQ(letType("let x = 2 * 3.0"), "f64");
  EXPECT_EQ(letType("let x = [1, 2.5]"), "[f64]");
  EXPECT_EQ(letType("let x = []"), "[unknown]");
  EXPECT_EQ(letType("let x = if true then 1 else 2.0"), "f64");
  EXPECT_EQ(letType("let x = 1 GiB < 2 GiB"), "bool");
  EXPECT_EQ(letType("let x = min(1 GiB, 2 GiB)"), "bytes");
  EXPECT_EQ(letType("let x = sqrt(2)"), "f64");
  EXPECT_EQ(letType("let x = size([1, 2])"), "i64");
  EXPECT_EQ(letType("let x = 1 GiB * 1 GiB / 1 s"), "B^2*s^-1");
}

TEST(Sema, RedefinitionHasNoteAtPrevious) {
  auto run = runSema("let a = 1\nlet a = 2\n");
  ASSERT_TRUE(run->parsed);
  EXPECT_FALSE(run->checked);
  EXPECT_EQ(run->all, (std::vector<std::string>{
                          "2:5: redefinition of 'a'",
                          "1:5: note: previous definition of 'a' is here"}));
}

TEST(Sema, ReportsEveryErrorInOneRun) {
  auto run = runSema("let a = 1 GiB + 1 s\n"
                     "let b = nope\n"
                     "let c = 1 / 0\n"
                     "topology t { gpu g { memroy: 1 GiB } }\n");
  ASSERT_TRUE(run->parsed);
  EXPECT_EQ(run->errors.size(), 4u) << ::testing::PrintToString(run->errors);
}

//===----------------------------------------------------------------------===//
// Error cases
//===----------------------------------------------------------------------===//

struct Case {
  const char *name;
  const char *source;
  std::vector<const char *> errors;
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

/// "12:3: message" has a location; "message" does not.
bool hasLocation(llvm::StringRef s) {
  size_t colon = s.find(": ");
  if (colon == llvm::StringRef::npos)
    return false;
  llvm::StringRef loc = s.take_front(colon);
  auto [line, col] = loc.split(':');
  unsigned n;
  return !line.getAsInteger(10, n) && !col.getAsInteger(10, n);
}

class SemaErrors : public ::testing::TestWithParam<Case> {};

TEST_P(SemaErrors, ReportsExactly) {
  const Case &c = GetParam();
  auto run = runSema(c.source);
  ASSERT_TRUE(run->parsed) << ::testing::PrintToString(run->parseErrors);
  EXPECT_FALSE(run->checked);
  std::vector<std::string> actual;
  for (size_t i = 0; i < run->errors.size(); ++i) {
    llvm::StringRef got = run->errors[i];
    bool withLoc = i < c.errors.size() && hasLocation(c.errors[i]);
    actual.push_back(withLoc ? got.str() : got.split(": ").second.str());
  }
  std::vector<std::string> expected(c.errors.begin(), c.errors.end());
  EXPECT_EQ(actual, expected);
}

const Case kCases[] = {
    // --- Names -----------------------------------------------------------
    {"UnknownNameSuggests",
     "let size_gb = 4\nlet b = size_gbb * 2",
     {"2:9: unknown name 'size_gbb'; did you mean 'size_gb'?"}},
    {"UnknownNameNoSuggestion", "let b = zzz", {"unknown name 'zzz'"}},
    {"LetCycle",
     "let a = b\nlet b = a",
     {"2:9: 'a' is defined in terms of itself"}},
    {"UseBeforeDeclarationIsFine",
     "let a = b + unknown_thing\nlet b = 1",
     {"unknown name 'unknown_thing'"}},
    {"TopologyNamedAfterKind",
     "topology gpu { }",
     {"1:10: topology cannot be named 'gpu': it is a builtin device kind"}},
    {"RedefinitionAcrossKinds",
     "let social = 1\ngraph social = load(\"x\")",
     {"2:7: redefinition of 'social'"}},
    // --- Expressions -----------------------------------------------------
    {"AddBytesAndBandwidth",
     "let x = 24 GiB + 25 GB/s",
     {"1:16: cannot add bytes and bandwidth"}},
    {"SubtractTimeFromBytes",
     "let x = 1 GiB - 1 s",
     {"cannot subtract time from bytes"}},
    {"AddNumberToQuantity", "let x = 1 GiB + 1", {"cannot add bytes and i64"}},
    {"MultiplyBool", "let x = true * 2", {"cannot multiply bool and i64"}},
    {"DivideString", "let x = \"a\" / 2", {"cannot divide string by i64"}},
    {"LetDeclaredTypeMismatch",
     "let x: bandwidth = 24 GiB",
     {"1:20: let 'x' expects bandwidth, got bytes"}},
    {"DivisionByZero", "let x = 1 / 0", {"1:11: division by zero"}},
    {"QuantityDivisionByZero",
     "let x = 1 GiB / (0 * 1 s)",
     {"division by zero"}},
    {"ModuloByZero", "let x = 5 % 0", {"modulo by zero"}},
    {"IntegerOverflow",
     "let x = 9223372036854775807 + 1",
     {"integer overflow in constant expression"}},
    {"ModOnFloat",
     "let x = 1.5 % 2",
     {"operator '%' needs i64 operands, got f64 and i64"}},
    {"ConditionNotBool",
     "let x = if 1.0 then 1 else 2",
     {"1:12: condition must be bool, got f64"}},
    {"IfBranchesDisagree",
     "let x = if true then 1 else \"a\"",
     {"if branches have different types: i64 and string"}},
    {"ListHeterogeneous",
     "let x = [1, \"a\"]",
     {"1:13: list elements have different types: i64 and string"}},
    {"CompareDifferentDims",
     "let x = 1 GiB < 1 s",
     {"cannot compare bytes and time with '<'"}},
    {"OrderingBools",
     "let x = true < false",
     {"cannot compare bool and bool with '<'"}},
    {"AndNeedsBool",
     "let x = 1 and true",
     {"operand of 'and' must be bool, got i64"}},
    {"NotNeedsBool",
     "let x = not 1",
     {"operand of 'not' must be bool, got i64"}},
    {"NegateBool", "let x = -true", {"cannot negate bool"}},
    {"UnknownType",
     "let x: float = 1.0",
     {"unknown type 'float'; did you mean 'f64'? (expected one of: i64, f64, "
      "bool, string, vertex, bytes, bandwidth, time, compute, flops, price, "
      "power, frequency, or [T] for a list)"}},
    {"UnknownTypeInList",
     "let x: [bandwith] = []",
     {"unknown type 'bandwith'; did you mean 'bandwidth'? (expected one of: "
      "i64, f64, bool, string, vertex, bytes, bandwidth, time, compute, "
      "flops, price, power, frequency, or [T] for a list)"}},
    {"ListIndexOutOfRange",
     "let x = [1, 2, 3][5]",
     {"index 5 is out of range for a list of 3 elements"}},
    {"ListIndexNotInt",
     "let x = [1, 2, 3][1.0]",
     {"list index must be i64, got f64"}},
    {"IndexScalar",
     "let y = 2\nlet x = y[0]",
     {"cannot index a value of type i64"}},
    {"GraphBuiltinInConstant",
     "let x = degree(1)",
     {"1:9: 'degree' cannot be used in a constant expression"}},
    {"RandomInConstant",
     "let x = random()",
     {"'random' cannot be used in a constant expression"}},
    {"NumVerticesInConstant",
     "let x = num_vertices",
     {"'num_vertices' cannot be used in a constant expression"}},
    {"UnknownFunctionSuggests",
     "let x = sqr(4)",
     {"unknown function 'sqr'; did you mean 'sqrt'?"}},
    {"CallingAWalk",
     "graph g = load(\"x\")\nwalk w on g { length 2 }\nlet x = w(1)",
     {"3:9: 'w' is a walk, not a function"}},
    {"SqrtOfQuantity",
     "let x = sqrt(4 GiB)",
     {"'sqrt' expects a plain number (i64 or f64), got bytes"}},
    {"SqrtOfNegative",
     "let x = sqrt(-4)",
     {"'sqrt' of a negative number (-4)"}},
    {"LogOfZero",
     "let x = log(0)",
     {"'log' of a number that is not positive (0)"}},
    {"MinDifferentDims",
     "let x = min(1 GiB, 2 s)",
     {"arguments of 'min' have different types: bytes and time"}},
    {"MinNotNumber",
     "let x = min(1, true)",
     {"argument 2 of 'min' expects a number, got bool"}},
    {"MaxOneArgument",
     "let x = max(1)",
     {"'max' expects at least 2 arguments, got 1"}},
    {"AbsOfBool", "let x = abs(true)", {"'abs' expects a number, got bool"}},
    {"SizeOfNumber",
     "let x = size(3)",
     {"'size' expects a list or a frontier, got i64"}},
    {"NamedArgumentToBuiltin",
     "let x = abs(x: 1)",
     {"'abs' takes no named arguments"}},
    {"MemberOfNumber",
     "let y = 3\nlet x = y.foo",
     {"member access needs a model, got i64"}},
    {"UnknownModelMember",
     "model m = gnn(layers: 2, fanouts: [2, 2], features: 8, hidden: 8, "
     "classes: 2)\nlet x = m.layer",
     {"model 'm' has no argument 'layer'; it has: layers, fanouts, features, "
      "hidden, classes"}},
    // --- Topologies ------------------------------------------------------
    {"UnknownProperty",
     "topology t { gpu g { memroy: 80 GiB } }",
     {"1:22: unknown property 'memroy' for gpu; expected one of: memory, "
      "memory_bandwidth, compute, sms, model, price, power"}},
    {"PropertyWrongDim",
     "topology t { gpu g { memory: 80 GB/s } }",
     {"1:30: property 'memory' of gpu expects bytes, got bandwidth"}},
    {"PropertyWrongKind",
     "topology t { gpu g { sms: 1.5 } }",
     {"property 'sms' of gpu expects i64, got f64"}},
    {"PropertyPlainNumber",
     "topology t { gpu g { memory: 80 } }",
     {"property 'memory' of gpu expects bytes, got i64"}},
    {"PropertyNotPositive",
     "topology t { gpu g { memory: 0 GiB } }",
     {"property 'memory' of gpu must be positive, got 0 B"}},
    {"PropertyNegativeLatency",
     "topology t { gpu g[2] \n link g[0] -> g[1] { bandwidth: 1 GB/s, "
     "latency: -1 us } }",
     {"property 'latency' of link must not be negative, got -1 us"}},
    {"DuplicateProperty",
     "topology t { gpu g { memory: 1 GiB, memory: 2 GiB } }",
     {"1:37: duplicate property 'memory'"}},
    {"UnknownDeviceKind",
     "topology t { gpux g }",
     {"1:14: unknown device kind 'gpux'; did you mean 'gpu'? (expected one "
      "of: gpu, cpu, nvme, nic, smartnic, switch, csd, or a topology)"}},
    {"DeviceKindIsAGraph",
     "graph social = load(\"x\")\ntopology t { social s }",
     {"'social' is a graph, not a device kind or topology"}},
    {"BuiltinKindWithArguments",
     "topology t { gpu(x: 1) g }",
     {"device kind 'gpu' takes no arguments"}},
    {"InstanceUnknownParameter",
     "topology s(gpus: i64) { }\ntopology t { s(gpu: 4) n }",
     {"2:16: unknown parameter 'gpu' for topology 's'; expected one of: gpus",
      "missing argument 'gpus' for topology 's'"}},
    {"InstanceMissingArgument",
     "topology s(gpus: i64, nics: i64 = 1) { }\ntopology t { s n }",
     {"2:14: missing argument 'gpus' for topology 's'"}},
    {"InstanceDuplicateArgument",
     "topology s(gpus: i64) { }\ntopology t { s(gpus: 1, gpus: 2) n }",
     {"duplicate argument 'gpus'"}},
    {"InstanceTooManyArguments",
     "topology s(gpus: i64) { }\ntopology t { s(1, 2) n }",
     {"too many arguments for topology 's': expected at most 1, got 2"}},
    {"InstancePositionalAfterNamed",
     "topology s(a: i64, b: i64) { }\ntopology t { s(a: 1, 2) n }",
     {"positional argument after named arguments",
      "missing argument 'b' for topology 's'"}},
    {"InstanceArgumentType",
     "topology s(gpus: i64) { }\ntopology t { s(gpus: 1.5) n }",
     {"argument 'gpus' of topology 's' expects i64, got f64"}},
    {"InstanceWithProperties",
     "topology s { }\ntopology t { s n { memory: 1 GiB } }",
     {"properties cannot be set on an instance of topology 's'; pass "
      "arguments instead"}},
    {"TopologyContainsItself",
     "topology a { a x }",
     {"1:14: topology 'a' cannot contain itself"}},
    {"TopologyCycle",
     "topology a { b x }\ntopology b { a y }",
     {"2:14: instantiating topology 'a' here forms a cycle: it contains 'b'"}},
    {"ArraySizeNotInt",
     "topology t { gpu g[2.0] }",
     {"array size must be i64, got f64"}},
    {"ArraySizeNotPositive",
     "topology t { gpu g[0] }",
     {"1:20: array size must be positive, got 0"}},
    {"DeviceInLoop",
     "topology t { for i in 0..2 { gpu g } }",
     {"device 'g' cannot be declared inside a for loop; declare an array "
      "instead, e.g. 'gpu g[n]'"}},
    {"DuplicateDevice",
     "topology t { gpu g\n cpu g }",
     {"2:6: redefinition of 'g'"}},
    {"LinkWithoutBandwidth",
     "topology t { gpu a\n gpu b\n link a <-> b { latency: 1 us } }",
     {"3:2: link is missing required property 'bandwidth'"}},
    {"LinkUnknownProperty",
     "topology t { gpu a\n gpu b\n link a <-> b { bandwith: 1 GB/s } }",
     {"unknown property 'bandwith' for link; expected one of: bandwidth, "
      "latency, type",
      "link is missing required property 'bandwidth'"}},
    {"OverrideWithoutProperties",
     "topology t { gpu a\n gpu b\n override a <-> b { } }",
     {"override sets no properties; expected one of: bandwidth, latency, "
      "type"}},
    {"UnknownEndpointDevice",
     "topology t { gpu gpu[2]\n cpu c\n link gpux[0] <-> c { bandwidth: 1 "
     "GB/s } }",
     {"3:7: unknown device 'gpux' in topology 't'; did you mean 'gpu'?"}},
    {"ArrayNotIndexed",
     "topology t { gpu gpu[2]\n cpu c\n link gpu <-> c { bandwidth: 1 GB/s } "
     "}",
     {"'gpu' is an array; index it: 'gpu[i]', 'gpu[*]' or 'gpu[lo..hi]'"}},
    {"ScalarIndexed",
     "topology t { gpu g\n cpu c\n link g[0] <-> c { bandwidth: 1 GB/s } }",
     {"'g' is not an array and cannot be indexed"}},
    {"IndexOutOfRangeDeclaredLater",
     "topology t { link gpu[8] <-> c { bandwidth: 1 GB/s }\n gpu gpu[8]\n cpu "
     "c }",
     {"1:19: index 8 is out of range for 'gpu' (8 devices)"}},
    {"RangeOutOfRange",
     "topology t { gpu gpu[8]\n cpu c\n link gpu[4..9] <-> c { bandwidth: 1 "
     "GB/s } }",
     {"index range 4..9 is out of range for 'gpu' (8 devices)"}},
    {"EmptyRange",
     "topology t { gpu gpu[8]\n cpu c\n link gpu[4..2] <-> c { bandwidth: 1 "
     "GB/s } }",
     {"index range 4..2 of 'gpu' is empty"}},
    {"IndexNotInt",
     "topology t { gpu gpu[8]\n cpu c\n link gpu[1.5] <-> c { bandwidth: 1 "
     "GB/s } }",
     {"device index must be i64, got f64"}},
    {"IndexNegative",
     "topology t { gpu gpu[8]\n cpu c\n link gpu[-1] <-> c { bandwidth: 1 "
     "GB/s } }",
     {"device index must not be negative, got -1"}},
    {"EndpointIsInstance",
     "topology s { gpu gpu[2] }\ntopology t { s node[2]\n cpu c\n link "
     "node[0] <-> c { bandwidth: 1 GB/s } }",
     {"4:7: 'node' is an instance of topology 's'; an endpoint must name a "
      "device inside it"}},
    {"SegmentInsideBuiltin",
     "topology t { gpu g\n cpu c\n link g.core <-> c { bandwidth: 1 GB/s } }",
     {"'g' is a gpu and has no devices inside it"}},
    {"UnknownInnerDevice",
     "topology s { gpu gpu[2] }\ntopology t { s node\n cpu c\n link "
     "node.gpux[0] <-> c { bandwidth: 1 GB/s } }",
     {"unknown device 'gpux' in topology 's'; did you mean 'gpu'?"}},
    {"InnerIndexOutOfRange",
     "topology s { gpu gpu[2] }\ntopology t { s node\n cpu c\n link "
     "node.gpu[2] <-> c { bandwidth: 1 GB/s } }",
     {"index 2 is out of range for 'gpu' (2 devices)"}},
    {"BandwidthsNeedsSet",
     "topology t { gpu gpu[2]\n bandwidths from \"m.json\" between gpu[0] }",
     {"'bandwidths' needs a set of devices, e.g. 'gpu[*]' or 'gpu[0..4]'"}},
    {"BandwidthsEmptyPath",
     "topology t { gpu gpu[2]\n bandwidths from \"\" between gpu[*] }",
     {"bandwidth matrix path is empty"}},
    {"LoopBoundNotInt",
     "topology t { for i in 0..2.5 { } }",
     {"loop bound must be i64, got f64"}},
    {"LoopVariableScope",
     "topology t { for i in 0..2 { }\n let j = i }",
     {"2:10: unknown name 'i'"}},
    {"TopologyLetScope",
     "topology t { for i in 0..2 { let k = i }\n let j = k }",
     {"unknown name 'k'"}},
    {"ParamDefaultMismatch",
     "topology t(bw: bandwidth = 24 GiB) { }",
     {"1:28: parameter 'bw' expects bandwidth, got bytes"}},
    {"RandomInTopology",
     "topology t { gpu g[1 + random()] }",
     {"'random' cannot be used in a constant expression"}},
    // --- Walks -----------------------------------------------------------
    {"WalkUnknownGraph",
     "graph social = load(\"x\")\nwalk w on socal { length 2 }",
     {"2:11: unknown graph 'socal'; did you mean 'social'?"}},
    {"WalkOnTopology",
     "topology t { }\nwalk w on t { length 2 }",
     {"'t' is a topology, not a graph"}},
    {"WalkNeverStops",
     "graph g = load(\"x\")\nwalk w on g { start all }",
     {"2:6: walk 'w' never stops; add 'length', 'stop probability' or "
      "'stop(cur, step)'"}},
    {"WalkLengthZero",
     "graph g = load(\"x\")\nwalk w on g { length 0 }",
     {"walk length must be positive, got 0"}},
    {"WalkLengthFloat",
     "graph g = load(\"x\")\nwalk w on g { length 2.5 }",
     {"walk length must be i64, got f64"}},
    {"StopProbabilityOutOfRange",
     "graph g = load(\"x\")\nwalk w on g { stop probability 1.5 }",
     {"stop probability must be in [0, 1], got 1.5"}},
    {"StopProbabilityQuantity",
     "graph g = load(\"x\")\nwalk w on g { stop probability 1 s }",
     {"stop probability must be f64, got time"}},
    {"StopNotBool",
     "graph g = load(\"x\")\nwalk w on g { stop(cur, step) = step }",
     {"stop must be bool, got i64"}},
    {"StopBinders",
     "graph g = load(\"x\")\nwalk w on g { stop(a, b, c) = true }",
     {"stop takes (cur) or (cur, step), got 3 binders"}},
    {"WeightBinders",
     "graph g = load(\"x\")\nwalk w on g { length 2\n weight(cur, next) = 1.0 "
     "}",
     {"3:2: weight takes (cur, next, w) or (prev, cur, next, w), got 2 "
      "binders"}},
    {"WeightNotNumber",
     "graph g = load(\"x\")\nwalk w on g { length 2\n weight(c, n, w) = true "
     "}",
     {"weight must be f64, got bool"}},
    {"WeightNegative",
     "graph g = load(\"x\")\nwalk w on g { length 2\n weight(c, n, w) = -1 }",
     {"weight must not be negative, got -1"}},
    {"WeightDuplicateBinder",
     "graph g = load(\"x\")\nwalk w on g { length 2\n weight(c, c, w) = w }",
     {"3:12: redefinition of 'c'"}},
    {"StateInLength",
     "graph g = load(\"x\")\nwalk w on g { state n: i64 = 3\n length n }",
     {"state variable 'n' cannot be used in 'length'; only in weight, stop "
      "and update"}},
    {"StateTypeMismatch",
     "graph g = load(\"x\")\nwalk w on g { length 2\n state n: i64 = \"a\" }",
     {"state 'n' expects i64, got string"}},
    {"UpdateAssignsParameter",
     "graph g = load(\"x\")\nwalk w(p: f64 = 1.0) on g { length 2\n update(c, "
     "n) { p = 2.0 } }",
     {"3:17: only state variables can be assigned in an update block; 'p' is "
      "a parameter"}},
    {"UpdateHasLoop",
     "graph g = load(\"x\")\nwalk w on g { length 2\n update(c, n) { "
     "vertices(v) { } } }",
     {"'vertices' cannot be used in a walk update block; only 'let', 'if' "
      "and assignments to state variables"}},
    {"UpdateBinders",
     "graph g = load(\"x\")\nwalk w on g { length 2\n update(c) { } }",
     {"update takes (cur, next) or (prev, cur, next), got 1 binder"}},
    {"DuplicateLength",
     "graph g = load(\"x\")\nwalk w on g { length 2\n length 3 }",
     {"3:2: duplicate 'length' in walk 'w'"}},
    {"StartNotVertices",
     "graph g = load(\"x\")\nwalk w on g { length 2\n start 1.5 }",
     {"start expects 'all', a vertex or a list of vertices, got f64"}},
    {"StartNegativeVertex",
     "graph g = load(\"x\")\nwalk w on g { length 2\n start [3, -1] }",
     {"vertex id must not be negative, got -1"}},
    {"HasEdgeArgumentType",
     "graph g = load(\"x\")\nwalk w on g { length 2\n weight(c, n, w) = if "
     "has_edge(1.5, c) then w else 0.0 }",
     {"argument 1 of 'has_edge' expects vertex, got f64"}},
    {"DegreeArity",
     "graph g = load(\"x\")\nwalk w on g { length 2\n weight(c, n, w) = "
     "degree(c, n) }",
     {"'degree' expects 1 argument, got 2"}},
    {"DegreeInLength",
     "graph g = load(\"x\")\nwalk w on g { length degree(0) }",
     {"'degree' cannot be used in 'length'"}},
    {"LabelWithoutLabels",
     "graph g = load(\"x\")\nwalk w on g { length 2\n weight(c, n, w) = if "
     "label(n) == 1 then w else 0.0 }",
     {"3:23: 'label' needs vertex labels, but graph 'g' is loaded without "
      "'labels:'"}},
    {"EdgeLabelWithoutEdgeLabels",
     "graph g = load(\"x\", labels: \"l.txt\")\nalgorithm a on g { "
     "edges(s, d) { let l = edge_label(s, d) + label(s) } }",
     {"'edge_label' needs edge labels, but graph 'g' is loaded without "
      "'edge_labels:'"}},
    {"StepOutsideWalkFunctions",
     "graph g = load(\"x\")\nalgorithm a on g { let s = step }",
     {"'step' cannot be used in an algorithm; only in weight, stop and "
      "update of a walk"}},
    // --- Algorithms ------------------------------------------------------
    {"VertexPropertyNotIndexed",
     "graph g = load(\"x\")\nalgorithm a on g { vertex rank: f64 = 0.0\n let "
     "x = rank }",
     {"3:10: vertex property 'rank' must be indexed by a vertex, e.g. "
      "'rank[v]'"}},
    {"VertexPropertyIndexType",
     "graph g = load(\"x\")\nalgorithm a on g { vertex rank: f64 = 0.0\n let "
     "x = rank[1.5] }",
     {"vertex property must be indexed by a vertex, got f64"}},
    {"VertexPropertyNested",
     "graph g = load(\"x\")\nalgorithm a on g { repeat 2 { vertex r: f64 = "
     "0.0 } }",
     {"vertex property 'r' must be declared at the top level of the "
      "algorithm"}},
    {"VertexPropertyInitType",
     "graph g = load(\"x\")\nalgorithm a on g { vertex r: f64 = true }",
     {"vertex property 'r' expects f64, got bool"}},
    {"MinOnBool",
     "graph g = load(\"x\")\nalgorithm a on g { vertex seen: bool = false\n "
     "vertices(v) { seen[v] min= true } }",
     {"'min=' needs a numeric target; 'seen' is bool"}},
    {"AddAssignWrongDim",
     "graph g = load(\"x\")\nalgorithm a on g { vertex r: f64 = 0.0\n "
     "vertices(v) { r[v] += 1 GiB } }",
     {"'+=' on 'r' expects f64, got bytes"}},
    {"MulAssignQuantity",
     "graph g = load(\"x\")\nalgorithm a on g { vertex r: f64 = 0.0\n "
     "vertices(v) { r[v] *= 1 GiB } }",
     {"'*=' on 'r' expects a plain number, got bytes"}},
    {"AssignToParameter",
     "graph g = load(\"x\")\nalgorithm a(p: i64 = 1) on g { p = 2 }",
     {"cannot assign to parameter 'p'"}},
    {"AssignToBinder",
     "graph g = load(\"x\")\nalgorithm a on g { vertices(v) { v = 2 } }",
     {"cannot assign to binder 'v'"}},
    {"AssignType",
     "graph g = load(\"x\")\nalgorithm a on g { vertex r: f64 = 0.0\n "
     "vertices(v) { r[v] = true } }",
     {"assignment to 'r' expects f64, got bool"}},
    {"AssignUnindexedProperty",
     "graph g = load(\"x\")\nalgorithm a on g { vertex r: f64 = 0.0\n r = 1.0 "
     "}",
     {"vertex property 'r' must be indexed by a vertex, e.g. 'r[v]'"}},
    {"AssignIndexedLocal",
     "graph g = load(\"x\")\nalgorithm a on g { let x = [1, 2]\n x[0] = 3 }",
     {"only vertex properties can be indexed in an assignment; 'x' is a "
      "local"}},
    {"FrontierCompoundAssign",
     "graph g = load(\"x\")\nalgorithm a on g { frontier f = [0]\n f += [1] }",
     {"'+=' cannot be applied to frontier 'f'"}},
    {"EdgesBinders",
     "graph g = load(\"x\")\nalgorithm a on g { edges(s) { } }",
     {"edges takes (src, dst) or (src, dst, w), got 1 binder"}},
    {"VerticesBinders",
     "graph g = load(\"x\")\nalgorithm a on g { vertices(a, b) { } }",
     {"vertices takes one binder (v), got 2 binders"}},
    {"EdgesFromNotFrontier",
     "graph g = load(\"x\")\nalgorithm a on g { vertex r: f64 = 0.0\n "
     "edges(s, d) from r { } }",
     {"'r' is a vertex property, not a frontier"}},
    {"EdgesResultNotFrontier",
     "graph g = load(\"x\")\nalgorithm a on g { vertex r: f64 = 0.0\n r = "
     "edges(s, d) { } }",
     {"'r' is a vertex property, not a frontier"}},
    {"DuplicateLabel",
     "graph g = load(\"x\")\nalgorithm a on g { @s1 vertices(v) { }\n @s1 "
     "vertices(v) { } }",
     {"redefinition of label '@s1'"}},
    {"OutputNotProperty",
     "graph g = load(\"x\")\nalgorithm a(p: i64 = 1) on g { output p }",
     {"'p' is a parameter; output takes vertex properties"}},
    {"DuplicateOutput",
     "graph g = load(\"x\")\nalgorithm a on g { vertex r: f64 = 0.0\n output "
     "r, r }",
     {"duplicate output 'r'"}},
    {"WhileConditionNotBool",
     "graph g = load(\"x\")\nalgorithm a on g { while 1 { } }",
     {"condition must be bool, got i64"}},
    {"WhereNotBool",
     "graph g = load(\"x\")\nalgorithm a on g { vertices(v) where v { } }",
     {"condition must be bool, got vertex"}},
    {"RepeatCountFloat",
     "graph g = load(\"x\")\nalgorithm a on g { repeat 2.5 { } }",
     {"repeat count must be i64, got f64"}},
    {"RepeatCountNegative",
     "graph g = load(\"x\")\nalgorithm a on g { repeat -1 { } }",
     {"repeat count must not be negative, got -1"}},
    {"FrontierInitType",
     "graph g = load(\"x\")\nalgorithm a on g { frontier f = 1.5 }",
     {"frontier 'f' expects 'all', a vertex or a list of vertices, got f64"}},
    {"AlgorithmBlockScope",
     "graph g = load(\"x\")\nalgorithm a on g { if true { let t = 1 }\n let u "
     "= t }",
     {"unknown name 't'"}},
    // --- Schedules -------------------------------------------------------
    {"ScheduleUnknownTarget",
     "graph g = load(\"x\")\nalgorithm pagerank on g { }\nschedule pagerenk { "
     "}",
     {"3:10: unknown walk, algorithm or finetune job 'pagerenk'; did you mean "
      "'pagerank'?"}},
    {"ScheduleOfGraph",
     "graph g = load(\"x\")\nschedule g { }",
     {"'g' is a graph, not a walk, algorithm or finetune job"}},
    {"DuplicateSchedule",
     "graph g = load(\"x\")\nwalk w on g { length 2 }\nschedule w { "
     "}\nschedule "
     "w { }",
     {"4:10: duplicate schedule for 'w'"}},
    {"WalkScheduleUnknownKey",
     "graph g = load(\"x\")\nwalk w on g { length 2 }\nschedule w { samplr: "
     "alias }",
     {"3:14: unknown option 'samplr' for the schedule of walk 'w'; expected "
      "one of: sampler, target, threads, walkers_per_thread"}},
    {"WalkScheduleUnknownValue",
     "graph g = load(\"x\")\nwalk w on g { length 2 }\nschedule w { sampler: "
     "fast }",
     {"3:23: unknown value 'fast' for option 'sampler'; expected one of: "
      "auto, rejection, reservoir, alias"}},
    {"WalkScheduleValueNotWord",
     "graph g = load(\"x\")\nwalk w on g { length 2 }\nschedule w { sampler: 3 "
     "}",
     {"option 'sampler' expects one of: auto, rejection, reservoir, alias; "
      "got i64"}},
    {"ScheduleThreadsZero",
     "graph g = load(\"x\")\nwalk w on g { length 2 }\nschedule w { threads: 0 "
     "}",
     {"option 'threads' must be positive, got 0"}},
    {"ScheduleDuplicateKey",
     "graph g = load(\"x\")\nwalk w on g { length 2 }\nschedule w { threads: "
     "2, threads: 4 }",
     {"duplicate option 'threads'"}},
    {"WalkScheduleLabel",
     "graph g = load(\"x\")\nwalk w on g { length 2 }\nschedule w { @s1 { } }",
     {"walk 'w' has no labels; only algorithm loops can be labelled"}},
    {"ScheduleUnknownLabel",
     "graph g = load(\"x\")\nalgorithm a on g { @s1 vertices(v) { } "
     "}\nschedule a { @s3 { } }",
     {"unknown label '@s3' in algorithm 'a'; did you mean '@s1'?"}},
    {"ScheduleDuplicateLabel",
     "graph g = load(\"x\")\nalgorithm a on g { @s1 vertices(v) { } "
     "}\nschedule a { @s1 { }, @s1 { } }",
     {"duplicate schedule for label '@s1'"}},
    {"DirectionOnVerticesLoop",
     "graph g = load(\"x\")\nalgorithm a on g { @s2 vertices(v) { } "
     "}\nschedule a { @s2 { direction: pull } }",
     {"option 'direction' applies to edges loops; '@s2' labels a vertices "
      "loop"}},
    {"ParallelUnknownValue",
     "graph g = load(\"x\")\nalgorithm a on g { @s1 edges(s, d) { } "
     "}\nschedule a { @s1 { parallel: fast } }",
     {"unknown value 'fast' for option 'parallel'; expected one of: serial, "
      "static, dynamic(n)"}},
    {"ParallelDynamicZero",
     "graph g = load(\"x\")\nalgorithm a on g { @s1 edges(s, d) { } "
     "}\nschedule a { @s1 { parallel: dynamic(0) } }",
     {"chunk size of 'dynamic' must be positive, got 0"}},
    {"ParallelDynamicArity",
     "graph g = load(\"x\")\nalgorithm a on g { @s1 edges(s, d) { } "
     "}\nschedule a { @s1 { parallel: dynamic(1, 2) } }",
     {"'dynamic' expects 1 argument (the chunk size), got 2"}},
    {"TileUnknownWord",
     "graph g = load(\"x\")\nalgorithm a on g { @s1 edges(s, d) { } "
     "}\nschedule a { @s1 { tile: big } }",
     {"unknown value 'big' for option 'tile'; expected 'auto' or a positive "
      "i64"}},
    {"TileZero",
     "graph g = load(\"x\")\nalgorithm a on g { @s1 edges(s, d) { } "
     "}\nschedule a { @s1 { tile: 0 } }",
     {"option 'tile' must be positive, got 0"}},
    {"LabelUnknownKey",
     "graph g = load(\"x\")\nalgorithm a on g { @s1 edges(s, d) { } "
     "}\nschedule a { @s1 { sampler: alias } }",
     {"unknown option 'sampler' for label '@s1'; expected one of: direction, "
      "parallel, tile, frontier, format, order, fusion"}},
    // --- Graphs ----------------------------------------------------------
    {"GraphUnknownSource",
     "graph g = lod(\"x\")",
     {"1:11: unknown graph source 'lod'; expected 'load'"}},
    {"GraphPathNotString",
     "graph g = load(3)",
     {"the file path of 'load' expects string, got i64"}},
    {"GraphEmptyPath", "graph g = load(\"\")", {"graph file path is empty"}},
    {"GraphMissingPath",
     "graph g = load(format: snap)",
     {"load needs a file path, e.g. load(\"graph.txt\")"}},
    {"GraphUnknownFormat",
     "graph g = load(\"x\", format: snp)",
     {"unknown value 'snp' for option 'format'; expected one of: snap, mtx, "
      "csr, edgelist, mtx-body, csv, npy, npz"}},
    {"GraphBothDirections",
     "graph g = load(\"x\", directed, undirected)",
     {"1:31: a graph cannot be both directed and undirected"}},
    {"GraphUnknownFlag",
     "graph g = load(\"x\", undirectd)",
     {"unknown flag 'undirectd' for load; expected 'directed' or "
      "'undirected'; did you mean 'undirected'?"}},
    {"GraphWeightedNotBool",
     "graph g = load(\"x\", weighted: 1)",
     {"option 'weighted' expects bool, got i64"}},
    {"GraphUnknownOption",
     "graph g = load(\"x\", fromat: snap)",
     {"unknown option 'fromat' for load; expected one of: format, weighted, "
      "labels, edge_labels, duplicates, self_loops"}},
    {"GraphUnknownDuplicates",
     "graph g = load(\"x\", duplicates: first)",
     {"unknown value 'first' for option 'duplicates'; expected one of: "
      "merge, keep, sum"}},
    {"GraphUnknownSelfLoops",
     "graph g = load(\"x\", self_loops: remove)",
     {"unknown value 'remove' for option 'self_loops'; expected one of: "
      "drop, keep"}},
    // --- Models ----------------------------------------------------------
    {"ModelUnknownKind",
     "model m = transfomer(layers: 1)",
     {"1:11: unknown model kind 'transfomer'; did you mean 'transformer'? "
      "(expected one of: transformer, gnn, distill)"}},
    {"ModelMissingArgument",
     "model m = transformer(layers: 2, hidden: 64, heads: 4, seq: 128)",
     {"1:11: transformer is missing required argument 'vocab'"}},
    {"ModelUnknownArgument",
     "model m = transformer(layer: 2, hidden: 64, heads: 4, seq: 128, vocab: "
     "100)",
     {"unknown argument 'layer' for transformer; expected one of: layers, "
      "hidden, heads, kv_heads, ffn, seq, vocab, dtype, norm, mlp, "
      "positions, tied, bias, groups, group_ffn, experts, top_k, "
      "capacity_factor",
      "transformer is missing required argument 'layers'"}},
    {"ModelPositionalArgument",
     "model m = gnn(2, fanouts: [1, 1], features: 8, hidden: 8, classes: 2, "
     "layers: 2)",
     {"arguments of gnn must be named, e.g. 'layers: ...'"}},
    {"ModelNotPositive",
     "model m = transformer(layers: 0, hidden: 64, heads: 4, seq: 128, vocab: "
     "100)",
     {"argument 'layers' must be positive, got 0"}},
    {"ModelArgumentType",
     "model m = transformer(layers: 2.0, hidden: 64, heads: 4, seq: 128, "
     "vocab: 100)",
     {"argument 'layers' expects i64, got f64"}},
    {"ModelHiddenNotDivisible",
     "model m = transformer(layers: 2, hidden: 1000, heads: 96, seq: 128, "
     "vocab: 100)",
     {"hidden (1000) must be divisible by heads (96)"}},
    {"ModelHeadsNotDivisible",
     "model m = transformer(layers: 2, hidden: 960, heads: 96, kv_heads: 7, "
     "seq: 128, vocab: 100)",
     {"heads (96) must be divisible by kv_heads (7)"}},
    {"ModelUnknownDtype",
     "model m = transformer(layers: 2, hidden: 64, heads: 4, seq: 128, vocab: "
     "100, dtype: fp64)",
     {"unknown value 'fp64' for argument 'dtype'; expected one of: fp32, "
      "fp16, bf16, fp8"}},
    {"GnnFanoutsCount",
     "model m = gnn(layers: 3, fanouts: [10, 5], features: 8, hidden: 8, "
     "classes: 2)",
     {"fanouts has 2 entries but layers is 3"}},
    {"GnnFanoutsType",
     "model m = gnn(layers: 1, fanouts: [1.5], features: 8, hidden: 8, "
     "classes: 2)",
     {"argument 'fanouts' expects [i64], got [f64]"}},
    {"GnnFanoutsPositive",
     "model m = gnn(layers: 2, fanouts: [10, 0], features: 8, hidden: 8, "
     "classes: 2)",
     {"argument 'fanouts' must contain positive numbers, got 0"}},
    {"GnnUnknownKind",
     "model m = gnn(layers: 1, fanouts: [1], features: 8, hidden: 8, classes: "
     "2, kind: gin)",
     {"unknown value 'gin' for argument 'kind'; expected one of: sage, gcn, "
      "gat"}},
    {"GnnHeadsNeedGat",
     "model m = gnn(kind: gcn, heads: 2, layers: 1, fanouts: [1], features: "
     "8, hidden: 8, classes: 2)",
     {"heads needs kind: gat (gcn layers have no attention heads)"}},
    {"GnnHeadsDivideHidden",
     "model m = gnn(kind: gat, heads: 3, layers: 2, fanouts: [1, 1], "
     "features: 8, hidden: 8, classes: 2)",
     {"hidden (8) must be divisible by heads (3): each hidden layer "
      "concatenates heads of hidden / heads values"}},
    {"DistillTeacherNotTransformer",
     "model g = gnn(layers: 1, fanouts: [1], features: 8, hidden: 8, classes: "
     "2)\nmodel s = transformer(layers: 2, hidden: 64, heads: 4, seq: 128, "
     "vocab: 100)\nmodel d = distill(teacher: g, student: s, blocks: 1)",
     {"3:28: teacher of distill must be a transformer model; 'g' is a gnn "
      "model"}},
    {"DistillSameModel",
     "model s = transformer(layers: 2, hidden: 64, heads: 4, seq: 128, vocab: "
     "100)\nmodel d = distill(teacher: s, student: s, blocks: 1)",
     {"teacher and student are the same model 's'"}},
    {"DistillTooManyBlocks",
     "model t = transformer(layers: 12, hidden: 64, heads: 4, seq: 128, "
     "vocab: 100)\nmodel s = transformer(layers: 2, hidden: 64, heads: 4, "
     "seq: 128, vocab: 100)\nmodel d = distill(teacher: t, student: s, "
     "blocks: 20)",
     {"blocks (20) exceeds the layers of teacher 't' (12)",
      "blocks (20) exceeds the layers of student 's' (2)"}},
    {"DistillUnknownTeacher",
     "model gpt3 = transformer(layers: 2, hidden: 64, heads: 4, seq: 128, "
     "vocab: 100)\nmodel d = distill(teacher: gtp3, student: gpt3, blocks: "
     "1)",
     {"unknown model 'gtp3'; did you mean 'gpt3'?"}},
    {"DistillTeacherNotAModel",
     "graph g = load(\"x\")\nmodel s = transformer(layers: 2, hidden: 64, "
     "heads: 4, seq: 128, vocab: 100)\nmodel d = distill(teacher: g, student: "
     "s, blocks: 1)",
     {"'g' is a graph, not a model"}},
    // --- Jobs ------------------------------------------------------------
    {"JobUnknownAction",
     "topology t { }\nmodel m = transformer(layers: 2, hidden: 64, heads: 4, "
     "seq: 128, vocab: 100)\njob j = fintune m on t { batch: 1 }",
     {"3:9: unknown job action 'fintune'; did you mean 'finetune'? (expected "
      "one of: finetune, train, infer, distill, gather, walk, run, align)"}},
    {"JobSubjectWrongModel",
     "topology t { }\nmodel g = gnn(layers: 1, fanouts: [1], features: 8, "
     "hidden: 8, classes: 2)\njob j = finetune g on t { batch: 1 }",
     {"3:18: finetune needs a transformer model; 'g' is a gnn model"}},
    {"JobSubjectNotModel",
     "topology t { }\ngraph g = load(\"x\")\njob j = infer g on t",
     {"infer needs a transformer model; 'g' is a graph"}},
    {"JobTargetNotTopology",
     "graph g = load(\"x\")\nmodel m = transformer(layers: 2, hidden: 64, "
     "heads: 4, seq: 128, vocab: 100)\njob j = infer m on g",
     {"3:20: infer runs on a topology; 'g' is a graph"}},
    {"JobUnknownSubject",
     "topology t { }\nmodel gpt3 = transformer(layers: 2, hidden: 64, heads: "
     "4, seq: 128, vocab: 100)\njob j = infer gpt4 on t",
     {"unknown name 'gpt4'; did you mean 'gpt3'?"}},
    {"JobMissingBatch",
     "topology t { }\nmodel m = transformer(layers: 2, hidden: 64, heads: 4, "
     "seq: 128, vocab: 100)\njob j = finetune m on t { }",
     {"3:5: finetune job 'j' is missing required option 'batch'"}},
    {"JobMicroBatchDivides",
     "topology t { }\nmodel m = transformer(layers: 2, hidden: 64, heads: 4, "
     "seq: 128, vocab: 100)\njob j = finetune m on t { batch: 8, "
     "micro_batch: 3 }",
     {"batch (8) must be divisible by micro_batch (3)"}},
    {"JobUnknownOptimizer",
     "topology t { }\nmodel m = transformer(layers: 2, hidden: 64, heads: 4, "
     "seq: 128, vocab: 100)\njob j = finetune m on t { batch: 8, optimizer: "
     "adma }",
     {"unknown value 'adma' for option 'optimizer'; expected one of: adam, "
      "adamw, sgd, lion, adafactor"}},
    {"JobUnknownOption",
     "topology t { }\nmodel m = transformer(layers: 2, hidden: 64, heads: 4, "
     "seq: 128, vocab: 100)\njob j = infer m on t { tokenz: 3 }",
     {"unknown option 'tokenz' for infer job 'j'; expected one of: batch, "
      "seq, tokens, compress, output, seed, threads"}},
    {"JobEmptyOutput",
     "topology t { }\nmodel m = transformer(layers: 2, hidden: 64, heads: 4, "
     "seq: 128, vocab: 100)\njob j = infer m on t { output: \"\" }",
     {"option 'output' must not be empty"}},
    {"WalkJobParameterType",
     "topology t { }\ngraph g = load(\"x\")\nwalk n2v(p: f64 = 1.0) on g { "
     "length 2 }\njob j = walk n2v on t { p: \"x\" }",
     {"argument 'p' of walk 'n2v' expects f64, got string"}},
    {"RunJobMissingParameter",
     "graph g = load(\"x\")\nalgorithm bfs(source: vertex) on g { }\njob j = "
     "run bfs on g",
     {"run job 'j' is missing argument 'source' of algorithm 'bfs'"}},
    {"UnknownWalkJobOptionsNotReported",
     "topology t { }\njob j = walk nothing on t { p: 1.0, q: fast }",
     {"unknown name 'nothing'"}},
    {"UnknownScheduleTargetOptionsNotReported",
     "schedule nothing { target: gpu, @s1 { parallel: dynamic(64) } }",
     {"unknown walk, algorithm or finetune job 'nothing'"}},
    {"WalkJobOnAlgorithm",
     "graph g = load(\"x\")\nalgorithm a on g { }\njob j = walk a on g",
     {"walk needs a walk; 'a' is an algorithm"}},
};

INSTANTIATE_TEST_SUITE_P(Sema, SemaErrors, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
