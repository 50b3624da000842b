//===- MLIRGenAlgorithmInternal.h - AlgorithmGen ----------------*- C++ -*-===//
//
// Private to MLIRGenAlgorithm.cpp (declarations, schedules, jobs,
// expressions) and MLIRGenAlgorithmStmts.cpp (the statements of an
// algorithm's body and the values its loops and ifs carry). Clients use
// MLIRGenAlgorithm.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_MLIRGENALGORITHMINTERNAL_H
#define SLUICE_FRONTENDS_SLUICE_MLIRGENALGORITHMINTERNAL_H

#include "dialects/Graph/IR/GraphOps.h"
#include "frontends/sluice/MLIRGenExpr.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <string>
#include <vector>

namespace sluice::mlirgen {

/// A name in the body of an algorithm.
struct Var {
  enum class Kind { Value, Property };
  Kind kind = Kind::Value;
  TValue value;      ///< Value: its current SSA value
  ast::Type element; ///< Property: the type of its values
};

/// A local declared before a `vertices` loop that the loop reduces into.
struct LoopReduction {
  std::string name;
  graph::ReductionKind kind; ///< add (for += and -=), min or max
  ast::Type type;            ///< f64 or i64
};

/// Names in the order they are first added.
struct AssignedNames {
  std::vector<std::string> names;
  llvm::StringSet<> seen;
  void add(llvm::StringRef name) {
    if (seen.insert(name).second)
      names.push_back(name.str());
  }
};

/// The Sluice type a written scalar type names (unknown for the others).
ast::Type typeOf(const ast::TypeRef &ref);
/// "f64", "[i64]": a written type as written.
std::string spellType(const ast::TypeRef &ref);

class AlgorithmGen : public ExprGen {
public:
  AlgorithmGen(mlir::ModuleOp module, const ast::Program &program,
               const ConstEnv &globals)
      : ExprGen(module.getContext(), globals), module(module),
        program(program) {}

  mlir::LogicalResult run();

private:
  void lowerAlgorithm(const ast::AlgorithmDecl &a);
  void applySchedule(graph::AlgorithmOp op, const ast::ScheduleDecl &s);
  /// The loop keys of `props` (the others are skipped) as a request.
  graph::ScheduleAttr loopSchedule(llvm::ArrayRef<ast::Prop> props,
                                   const ast::SourceRange &at);
  void lowerJob(const ast::JobDecl &j);

  // Names, innermost scope last.
  Var *lookupVar(llvm::StringRef name);
  void declare(llvm::StringRef name, Var var) {
    if (name != "_")
      scopes.back()[name] = std::move(var);
  }
  /// Rebinds the local or frontier `name` where it is declared.
  void assign(llvm::StringRef name, mlir::Value value) {
    if (Var *var = lookupVar(name))
      var->value.value = value;
  }
  llvm::SmallVector<mlir::Value> valuesOf(llvm::ArrayRef<std::string> names);
  void rebind(llvm::ArrayRef<std::string> names, mlir::ValueRange values);

  // Statements.
  void lowerBlock(const ast::Block &block);
  void lowerStmt(const ast::Stmt &s);
  void lowerVertexProp(const ast::VertexPropStmt &v);
  void lowerLet(const ast::LetStmt &l);
  void lowerAssign(const ast::AssignStmt &a);
  void lowerRepeat(const ast::RepeatStmt &r);
  void lowerWhile(const ast::WhileStmt &w);
  void lowerIf(const ast::IfStmt &i);
  void lowerVertices(const ast::VerticesStmt &v);
  void lowerEdges(const ast::EdgesStmt &e);
  /// The `where` region (when the loop has one) and the body of loop `op`
  /// from statement `s`, both with binders of types `args`.
  template <typename LoopOp, typename LoopStmt>
  void lowerLoopRegions(LoopOp op, mlir::TypeRange args, const LoopStmt &s,
                        llvm::ArrayRef<LoopReduction> reduced = {});
  /// The locals declared before `v` that it reduces into, in order.
  std::vector<LoopReduction> loopReductions(const ast::VerticesStmt &v);
  /// The identity of reduction `kind` on i64 (`isInt`) or f64.
  mlir::Value identity(graph::ReductionKind kind, bool isInt,
                       mlir::Location l);
  /// A frontier from `all`, a frontier, a vertex (or id), or a list of them.
  TValue lowerVertexSet(const ast::Expr *e);
  /// The locals and frontiers declared outside `blocks` that they assign,
  /// in the order of their first assignment.
  std::vector<std::string> carried(llvm::ArrayRef<const ast::Block *> blocks);
  void collectAssigned(const ast::Block &block,
                       std::vector<llvm::StringSet<>> &declared,
                       AssignedNames &out);
  /// Fills `region` of a loop: one block with `args`, `binders` bound to
  /// them in a new scope (the caller pops it), the insertion point inside.
  void beginLoopRegion(mlir::Region &region, mlir::TypeRange args,
                       const std::vector<ast::Binder> &binders,
                       const ast::SourceRange &r);

  // Expressions (ExprGen).
  llvm::StringRef owner() const override { return "an algorithm"; }
  std::optional<TValue> lookupName(const ast::NameExpr &n) override;
  mlir::Type valueType(const ast::Type &t) override;
  mlir::Value createQuery(GraphQuery q, mlir::Type type, mlir::ValueRange args,
                          mlir::Location l) override;
  mlir::Value lowerSize(TValue x, const ast::CallExpr &call) override;
  TValue lowerIndex(const ast::IndexExpr &i) override;
  TValue lowerCompareSwap(const ast::CallExpr &c) override;

  mlir::ModuleOp module;
  const ast::Program &program;
  std::vector<llvm::StringMap<Var>> scopes;
  /// The `output` statements of the algorithm being lowered.
  llvm::SmallVector<mlir::Attribute> outputs;
};

} // namespace sluice::mlirgen

#endif // SLUICE_FRONTENDS_SLUICE_MLIRGENALGORITHMINTERNAL_H
