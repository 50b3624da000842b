//===- SemaRobustnessTest.cpp - Sema on hand-built, degenerate ASTs -------===//
//
// The parser's error recovery and the fuzzer can hand Sema ASTs with
// missing pieces, deep nesting and spellings the grammar rejects. Sema must
// report errors (or nothing) and never crash on them.
//
//===----------------------------------------------------------------------===//
#include "SemaTestHelpers.h"

#include "gtest/gtest.h"

using namespace sluice;
using namespace sluice::test;

namespace {

/// The context of every hand-built AST here: source locations hold their
/// file name interned in it, so it must exist before the nodes.
mlir::MLIRContext &handContext() {
  static mlir::MLIRContext ctx;
  return ctx;
}

ast::SourceRange at(unsigned line, unsigned col) {
  ast::SourceRange r;
  r.begin = {mlir::StringAttr::get(&handContext(), "hand.sluice"), line, col};
  r.end = r.begin;
  return r;
}

/// The arena of every hand-built node (a Module's arena in the front end).
template <typename T, typename... Args> ast::NodePtr<T> make(Args &&...args) {
  static ast::Arena arena;
  return arena.create<T>(std::forward<Args>(args)...);
}

ast::ExprPtr intLit(int64_t v) { return make<ast::IntLitExpr>(at(1, 1), v); }

/// Runs Sema over one module holding `decls`.
struct HandRun {
  mlir::MLIRContext &ctx = handContext();
  ast::Program program;
  std::vector<std::string> errors;
  bool ok = false;

  explicit HandRun(std::vector<ast::DeclPtr> decls) {
    auto module = std::make_unique<ast::Module>();
    module->path = "hand.sluice";
    module->decls = std::move(decls);
    program.modules.push_back(std::move(module));
    DiagCollector diags(ctx);
    ok = mlir::succeeded(checkProgram(program, &ctx));
    errors = diags.errors;
  }
};

ast::NodePtr<ast::LetDecl> let(std::string name, ast::ExprPtr value) {
  auto d = make<ast::LetDecl>(at(1, 1));
  d->name = std::move(name);
  d->nameRange = at(1, 5);
  d->value = std::move(value);
  return d;
}

TEST(SemaRobustness, DeepNestingIsAnErrorNotACrash) {
  ast::ExprPtr e = intLit(1);
  for (int i = 0; i < 5000; ++i)
    e = make<ast::BinaryExpr>(at(1, 1), ast::BinaryOp::Add, at(1, 2),
                              std::move(e), intLit(1));
  std::vector<ast::DeclPtr> decls;
  decls.push_back(let("x", std::move(e)));
  HandRun run(std::move(decls));
  EXPECT_FALSE(run.ok);
  ASSERT_EQ(run.errors.size(), 1u);
  EXPECT_EQ(run.errors[0], "1:1: nesting is too deep (more than 512 levels)");
}

TEST(SemaRobustness, DeepListNesting) {
  ast::ExprPtr e = intLit(1);
  for (int i = 0; i < 2000; ++i) {
    std::vector<ast::ExprPtr> elts;
    elts.push_back(std::move(e));
    e = make<ast::ListExpr>(at(2, 3), std::move(elts));
  }
  std::vector<ast::DeclPtr> decls;
  decls.push_back(let("x", std::move(e)));
  HandRun run(std::move(decls));
  EXPECT_EQ(run.errors.size(), 1u);
}

TEST(SemaRobustness, UnknownUnitListsValidOnes) {
  std::vector<ast::DeclPtr> decls;
  decls.push_back(let("x", make<ast::QuantityLitExpr>(at(1, 9), 80.0, "GiBs")));
  HandRun run(std::move(decls));
  ASSERT_EQ(run.errors.size(), 1u);
  EXPECT_EQ(llvm::StringRef(run.errors[0]).take_front(43),
            "1:9: unknown unit 'GiBs'; expected one of: ");
  EXPECT_NE(run.errors[0].find("GiB/s"), std::string::npos);
}

TEST(SemaRobustness, NullPiecesEverywhere) {
  std::vector<ast::DeclPtr> decls;
  decls.push_back(nullptr);
  decls.push_back(let("a", nullptr));
  decls.push_back(make<ast::GraphDecl>(at(1, 1)));
  decls.push_back(make<ast::ModelDecl>(at(1, 1)));

  // A topology with empty names, null counts and empty endpoints.
  auto topo = make<ast::TopologyDecl>(at(2, 1));
  topo->name = "t";
  topo->params.emplace_back();
  auto dev = make<ast::DeviceItem>(at(2, 1));
  dev->kind = "gpu";
  dev->props.push_back({"memory", at(2, 2), nullptr});
  topo->items.push_back(std::move(dev));
  auto link = make<ast::LinkItem>(at(2, 1));
  link->props.push_back({"bandwidth", at(2, 2), nullptr});
  topo->items.push_back(std::move(link));
  auto loop = make<ast::ForItem>(at(2, 1));
  loop->body.push_back(nullptr);
  topo->items.push_back(std::move(loop));
  topo->items.push_back(make<ast::LetItem>(at(2, 1)));
  topo->items.push_back(make<ast::BandwidthsItem>(at(2, 1)));
  topo->items.push_back(nullptr);
  decls.push_back(std::move(topo));

  // A walk whose items have no values.
  auto walk = make<ast::WalkDecl>(at(3, 1));
  walk->name = "w";
  for (auto kind :
       {ast::WalkItem::Kind::Length, ast::WalkItem::Kind::Start,
        ast::WalkItem::Kind::StopProbability, ast::WalkItem::Kind::StopFn,
        ast::WalkItem::Kind::WeightFn, ast::WalkItem::Kind::State,
        ast::WalkItem::Kind::Update, ast::WalkItem::Kind::Let})
    walk->items.emplace_back(kind, at(3, 1));
  walk->items.back().body.push_back(nullptr);
  decls.push_back(std::move(walk));

  // An algorithm whose statements have no expressions.
  auto algo = make<ast::AlgorithmDecl>(at(4, 1));
  algo->name = "a";
  algo->body.push_back(make<ast::VertexPropStmt>(at(4, 1)));
  algo->body.push_back(make<ast::FrontierStmt>(at(4, 1)));
  algo->body.push_back(make<ast::LetStmt>(at(4, 1)));
  algo->body.push_back(make<ast::RepeatStmt>(at(4, 1)));
  algo->body.push_back(make<ast::WhileStmt>(at(4, 1)));
  algo->body.push_back(make<ast::IfStmt>(at(4, 1)));
  algo->body.push_back(make<ast::VerticesStmt>(at(4, 1)));
  algo->body.push_back(make<ast::EdgesStmt>(at(4, 1)));
  algo->body.push_back(make<ast::OutputStmt>(at(4, 1)));
  algo->body.push_back(make<ast::AssignStmt>(at(4, 1)));
  algo->body.push_back(nullptr);
  decls.push_back(std::move(algo));

  decls.push_back(make<ast::ScheduleDecl>(at(5, 1)));
  decls.push_back(make<ast::JobDecl>(at(6, 1)));

  // Expressions with missing operands.
  std::vector<ast::ExprPtr> elts;
  elts.push_back(nullptr);
  elts.push_back(make<ast::IfExpr>(at(7, 1), nullptr, nullptr, nullptr));
  elts.push_back(make<ast::IndexExpr>(at(7, 1), nullptr, nullptr));
  elts.push_back(make<ast::MemberExpr>(at(7, 1), nullptr, "x"));
  elts.push_back(make<ast::UnaryExpr>(at(7, 1), ast::UnaryOp::Neg, nullptr));
  elts.push_back(make<ast::BinaryExpr>(at(7, 1), ast::BinaryOp::Div, at(7, 2),
                                       nullptr, intLit(0)));
  std::vector<ast::Arg> args(2);
  elts.push_back(
      make<ast::CallExpr>(at(7, 1), "min", at(7, 1), std::move(args)));
  decls.push_back(let("b", make<ast::ListExpr>(at(7, 1), std::move(elts))));

  HandRun run(std::move(decls));
  // Errors, but no crash.
  EXPECT_FALSE(run.ok);
}

TEST(SemaRobustness, EmptyProgram) {
  HandRun run({});
  EXPECT_TRUE(run.ok);
  EXPECT_TRUE(run.errors.empty());
}

TEST(SemaRobustness, NullModule) {
  mlir::MLIRContext ctx;
  ast::Program program;
  program.modules.push_back(nullptr);
  EXPECT_TRUE(mlir::succeeded(checkProgram(program, &ctx)));
}

} // namespace
