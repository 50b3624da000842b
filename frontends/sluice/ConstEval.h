//===- ConstEval.h - Compile-time evaluation of expressions ----*- C++ -*-===//
//
// Topology declarations are elaborated at compile time: array sizes, loop
// bounds, indices and property values are constant expressions over
// literals, lets, topology parameters and loop variables. ConstEval
// evaluates such expressions (with units) and reports located errors for
// what is not constant or not defined (division by zero, overflow).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_CONSTEVAL_H
#define SLUICE_FRONTENDS_SLUICE_CONSTEVAL_H

#include "frontends/sluice/AST.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace sluice {

/// A compile-time value.
struct ConstValue {
  enum class Kind { Int, Float, Bool, String, Quantity, List, Word };
  Kind kind = Kind::Int;
  int64_t i = 0;
  double f = 0;      ///< Float, or Quantity in base units
  bool b = false;
  std::string s;     ///< String, or Word (a bare option word such as `snap`)
  Dim dim;           ///< Quantity
  std::string unit;  ///< Quantity: the unit to show it in
  std::vector<ConstValue> list;

  static ConstValue ofInt(int64_t v);
  static ConstValue ofFloat(double v);
  static ConstValue ofBool(bool v);
  static ConstValue ofString(std::string v);
  static ConstValue ofQuantity(double baseValue, Dim dim, std::string unit);

  /// Value in the unit `unit` (for printing quantities as written).
  double inUnit() const;
  /// The value as a double (Int, Float, Quantity in base units).
  std::optional<double> asNumber() const;
  std::string str() const;
};

/// Name -> value bindings, innermost scope last.
class ConstEnv {
public:
  void push() { scopes.emplace_back(); }
  void pop() { scopes.pop_back(); }
  void bind(llvm::StringRef name, ConstValue value) {
    scopes.back()[name] = std::move(value);
  }
  const ConstValue *lookup(llvm::StringRef name) const;

private:
  std::vector<llvm::StringMap<ConstValue>> scopes{1};
};

/// Evaluates `expr` in `env`; reports an error and returns std::nullopt if it
/// is not a constant expression. With a null `ctx` nothing is reported (for
/// evaluations that may fail, such as Sema's checks of a walk under a job's
/// parameters).
std::optional<ConstValue> evaluateConstant(const ast::Expr &expr,
                                           const ConstEnv &env,
                                           mlir::MLIRContext *ctx);

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_CONSTEVAL_H
