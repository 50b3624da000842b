//===- MLIRGenExpr.h - Expressions of walks and algorithms ------*- C++ -*-===//
//
// The part of MLIRGen that walks (MLIRGenWalk.cpp) and algorithms
// (MLIRGenAlgorithm.cpp) share: Sluice expressions to arith, math and scf
// ops. What differs between the two is asked of the subclass: the names it
// binds, the MLIR type of a Sluice type, how `x[i]` and `size(x)` read, and
// the op of each graph built-in in its dialect (walk.degree, graph.degree).
//
//   - Sluice types: i64 -> i64, f64 -> f64, bool -> i1, vertex -> i32 (CSR
//     id). An i64 used as a vertex is an id as written in the graph file and
//     goes through the dialect's vertex_of.
//   - `if c then a else b` -> scf.if; `and`/`or` -> arith.andi/ori, or an
//     scf.if when the right operand calls random() or compare_swap() (so
//     that it is drawn or swapped only when needed, as the language says).
//   - Integer `/` and `%` -> the dialect's idiv/irem (a zero divisor faults
//     instead of trapping); min, max, abs, sqrt, log, exp -> arith, math.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_MLIRGENEXPR_H
#define SLUICE_FRONTENDS_SLUICE_MLIRGENEXPR_H

#include "frontends/sluice/AST.h"
#include "frontends/sluice/ConstEval.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include <optional>

namespace sluice {

/// A typed SSA value during lowering.
struct TValue {
  mlir::Value value;
  ast::Type type;
  explicit operator bool() const { return static_cast<bool>(value); }
};

/// Whether `e` calls random() or compare_swap() anywhere: calls that must
/// run only where the language evaluates them (`and`, `or` short-circuit).
bool callsEffectful(const ast::Expr *e);

/// The graph built-ins (and the integer division) each dialect has an op
/// for.
enum class GraphQuery {
  NumVertices, ///< () -> i64
  NumEdges,    ///< () -> i64
  Degree,      ///< (vertex) -> i64
  Label,       ///< (vertex) -> i64
  HasEdge,     ///< (vertex, vertex) -> i1
  EdgeWeight,  ///< (vertex, vertex) -> f64
  EdgeLabel,   ///< (vertex, vertex) -> i64
  Random,      ///< () -> f64
  VertexOf,    ///< (i64 id) -> vertex
  IntDiv,      ///< (i64, i64) -> i64
  IntRem,      ///< (i64, i64) -> i64
  OriginalId,  ///< (vertex) -> i64, algorithms only
  CommonNeighbors,      ///< (vertex, vertex) -> i64, algorithms only
  CommonNeighborsBelow, ///< (vertex, vertex) -> i64, algorithms only
};

class ExprGen {
public:
  ExprGen(mlir::MLIRContext *ctx, const ConstEnv &globals)
      : ctx(ctx), globals(globals), builder(ctx) {}
  virtual ~ExprGen() = default;

protected:
  // --- What the subclass provides ----------------------------------------
  /// "a walk", "an algorithm": where the expressions are, in messages.
  virtual llvm::StringRef owner() const = 0;
  /// The value of a name the subclass binds (binders, locals, parameters,
  /// ...); std::nullopt when it binds none, a null TValue after reporting.
  virtual std::optional<TValue> lookupName(const ast::NameExpr &n) = 0;
  /// Like lookupName, for the names tried after the globals and the graph
  /// sizes (a walk's `step`).
  virtual std::optional<TValue> lookupLateName(const ast::NameExpr &n) {
    return std::nullopt;
  }
  /// The MLIR type of a value of type `t`; null when the subclass has none.
  virtual mlir::Type valueType(const ast::Type &t) = 0;
  /// The op of `q` on `args`, of type `type`.
  virtual mlir::Value createQuery(GraphQuery q, mlir::Type type,
                                  mlir::ValueRange args, mlir::Location l) = 0;
  /// `size(x)` (an i64) of a lowered value, or null after reporting.
  virtual mlir::Value lowerSize(TValue x, const ast::CallExpr &call) = 0;
  /// `x[i]`.
  virtual TValue lowerIndex(const ast::IndexExpr &i) = 0;
  /// `compare_swap(x[v], expected, desired)` (algorithms only; Sema
  /// rejects it elsewhere).
  virtual TValue lowerCompareSwap(const ast::CallExpr &c) {
    error(c.calleeRange) << "not supported yet: calling 'compare_swap' in "
                         << owner();
    return {};
  }

  // --- Shared -------------------------------------------------------------
  mlir::InFlightDiagnostic error(const ast::SourceRange &r);
  mlir::Location loc(const ast::SourceRange &r);
  /// Evaluates a constant expression (parameter defaults, job and schedule
  /// options); reports and returns std::nullopt when it is not one.
  std::optional<ConstValue> constant(const ast::Expr &e);
  /// Like constant(), silently: std::nullopt when `e` is not constant.
  std::optional<ConstValue> tryConstant(const ast::Expr &e);

  /// The attribute of constant `v` for a value of type `type` (f64, i64 or
  /// i1; an i64 fits an f64); reports and returns null when it does not fit.
  mlir::Attribute scalarAttr(const ConstValue &v, mlir::Type type,
                             const ast::SourceRange &r);

  TValue lower(const ast::Expr *e);
  TValue lowerConst(const ConstValue &v, const ast::SourceRange &r);
  /// Converts `v` to `to` (i64 -> f64, i64 -> vertex); other mismatches are
  /// reported.
  mlir::Value convert(TValue v, const ast::Type &to, const ast::SourceRange &r);
  mlir::Value toF64(TValue v, const ast::SourceRange &r) {
    return convert(v, ast::Type::of(ast::Type::Kind::Float), r);
  }
  mlir::Value toVertex(TValue v, const ast::SourceRange &r) {
    return convert(v, ast::Type::of(ast::Type::Kind::Vertex), r);
  }
  mlir::Value constF64(double x, mlir::Location l);
  mlir::Value constI64(int64_t x, mlir::Location l);
  mlir::Value constI1(bool x, mlir::Location l);
  /// `old op rhs` for a compound assignment `x op= rhs` (`+=`, ..., `min=`,
  /// `max=`) of an i64 (`isInt`) or f64.
  mlir::Value combine(ast::AssignOp op, mlir::Value old, mlir::Value rhs,
                      bool isInt, mlir::Location l);
  /// The op of `q`, with its result type.
  mlir::Value query(GraphQuery q, mlir::ValueRange args, mlir::Location l);

  mlir::MLIRContext *ctx;
  const ConstEnv &globals;
  mlir::OpBuilder builder;
  bool failed = false;

private:
  TValue lowerName(const ast::NameExpr &n);
  TValue lowerCall(const ast::CallExpr &c);
  TValue lowerBinary(const ast::BinaryExpr &b);
  TValue lowerIf(const ast::IfExpr &i);
};

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_MLIRGENEXPR_H
