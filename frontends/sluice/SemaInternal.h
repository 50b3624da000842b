//===- SemaInternal.h - The checker shared by the Sema*.cpp files -*- C++
//-*-===//
//
// Private to the Sema*.cpp files: the Sema class (scopes, diagnostics, the
// lazily checked global declarations) and the small value and type helpers
// the checkers share. The rules Sema enforces are listed at the top of
// Sema.cpp; clients use only checkProgram() from Sema.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_SEMAINTERNAL_H
#define SLUICE_FRONTENDS_SLUICE_SEMAINTERNAL_H

#include "dialects/Topo/IR/TopoSchema.h"
#include "frontends/sluice/AST.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace sluice::sema {

//===----------------------------------------------------------------------===//
// Values and types
//===----------------------------------------------------------------------===//

/// A compile-time value Sema folds while checking, so that it can check
/// array bounds, positivity and divisibility. Quantities are Float values in
/// base units; their dimension lives in the expression's type.
///
/// Sema keeps one per checked constant expression, so a Value is small (40
/// bytes): strings and lists live out of line, shared between copies (a
/// Value never changes once built).
struct Value {
  enum class Kind : uint8_t { Int, Float, Bool, String, List };
  Kind kind = Kind::Int;
  bool b = false;
  int64_t i = 0;
  double f = 0;

  /// The characters of a String; empty for other kinds.
  llvm::StringRef str() const;
  /// The elements of a List; empty for other kinds.
  llvm::ArrayRef<Value> elements() const;

  static Value ofInt(int64_t v);
  static Value ofFloat(double v);
  static Value ofBool(bool v);
  static Value ofString(std::string v);
  static Value ofList(std::vector<Value> v);
  /// Int and Float as a double.
  std::optional<double> asNumber() const;

private:
  struct Payload;
  std::shared_ptr<const Payload> payload; ///< String and List
};

struct Value::Payload {
  std::string s;
  std::vector<Value> elements;
};

inline llvm::StringRef Value::str() const {
  return payload ? llvm::StringRef(payload->s) : llvm::StringRef();
}
inline llvm::ArrayRef<Value> Value::elements() const {
  return payload ? llvm::ArrayRef<Value>(payload->elements)
                 : llvm::ArrayRef<Value>();
}

/// "i64", "f64", "bandwidth", "[i64]", "graph", ...
std::string typeName(const ast::Type &t);
/// The dimension of a numeric type (none for i64 and f64).
Dim dimOf(const ast::Type &t);
bool sameType(const ast::Type &a, const ast::Type &b);
/// Whether a value of type `from` can be stored where `to` is expected:
/// equal types, i64 -> f64, i64 -> vertex (a vertex id), between i64, f32
/// and f64 (f64 -> f32 rounds to nearest, as C's assignment), element-wise
/// for lists. Unknown on either side is accepted (an error was reported).
bool assignable(const ast::Type &to, const ast::Type &from);
/// The type of `l op r` for an arithmetic operator (C's usual arithmetic
/// conversions): i64 if both are i64; else a quantity of `d` when `d` has
/// a unit; else f64 if either is f64; else (f32 with f32 or i64) f32.
ast::Type arithResult(const ast::Type &l, const ast::Type &r, Dim d);
/// The common type of two branches or list elements, if any.
std::optional<ast::Type> join(const ast::Type &a, const ast::Type &b);
/// `v` (of type `from`) converted for a slot of type `to` (i64 -> f64, a
/// number -> f32 rounded to the nearest f32).
Value convert(const Value &v, const ast::Type &from, const ast::Type &to);
/// A value of type `t` as the user would write it ("80 GiB", "3", "true").
std::string formatValue(const Value &v, const ast::Type &t);

/// "; did you mean 'x'?" for the candidate closest to `name` by edit
/// distance (at most (len+2)/3; names shorter than 3 get no suggestion), or
/// "" if none is close. Ties go to the first candidate.
std::string didYouMean(llvm::StringRef name,
                       llvm::ArrayRef<std::string> candidates);
/// Whether `name` is a builtin function (SemaExpr.cpp).
bool isBuiltinFunction(llvm::StringRef name);
/// "a, b, c".
std::string joinNames(llvm::ArrayRef<std::string> names);
std::string joinNames(llvm::ArrayRef<llvm::StringRef> names);

//===----------------------------------------------------------------------===//
// Symbols
//===----------------------------------------------------------------------===//

enum class SymKind {
  Topology,
  Graph,
  Walk,
  Algorithm,
  Model,
  Job,
  GlobalLet,
  Param,
  Let,
  LoopVar,
  Binder,
  State,
  VertexProp,
  Frontier,
  Demand,
};
/// "topology", "parameter", "vertex property", ...
llvm::StringRef describe(SymKind kind);
/// describe() with its article: "a topology", "an algorithm".
std::string describeA(SymKind kind);

/// Where a global declaration's check stands (Sema::ensureChecked).
enum class CheckState : uint8_t { NotYet, InProgress, Done };

/// One name in a scope: 64 bytes, since there is one per global.
struct Symbol {
  SymKind kind = SymKind::Let;
  bool assignable = false; ///< may be the target of an assignment
  /// For global declarations: whether `decl` was checked.
  CheckState checkState = CheckState::NotYet;
  ast::SourceRange range; ///< where it is declared (its name)
  ast::Type type;
  ast::Decl *decl = nullptr;    ///< for global declarations
  const Value *value = nullptr; ///< known compile-time value (Sema::keep)
};

/// A scope's names. Entries do not move: Symbol pointers stay valid while
/// the scope lives. Iteration order is the hash's: sort what is shown.
using SymbolTable = llvm::StringMap<Symbol, llvm::BumpPtrAllocator>;

/// Where an expression is checked: decides which builtins and names it may
/// use.
enum class Where : unsigned {
  Const = 1,     ///< compile-time constant (topologies, lets, options)
  WalkSetup = 2, ///< length, start, stop probability, state initialisers
  WalkStep = 4,  ///< weight, stop and update of a walk
  Algorithm = 8, ///< an algorithm body
};

/// A device or instance declared at the top level of a topology.
/// 48 bytes: a topology may declare millions.
struct DeviceInfo {
  ast::DeviceItem *item = nullptr;
  ast::TopologyDecl *instanceOf = nullptr; ///< an instance of a topology
  std::optional<int64_t> count; ///< array size when known
  std::optional<topo::DeviceKind> builtin; ///< a builtin device kind
  bool isArray = false;
  uint32_t order = 0; ///< position among the topology's devices

  llvm::StringRef name() const { return item->name; }
};

struct TopoInfo {
  /// Sorted by name (collectDevices), one per name: the first declared.
  std::vector<DeviceInfo> devices;
  /// The device called `name`, or null.
  DeviceInfo *find(llvm::StringRef name);
};

struct LabelInfo {
  ast::SourceRange range;
  bool isEdges = false;
};

struct AlgoInfo {
  std::map<std::string, LabelInfo> labels;
  std::map<std::string, ast::SourceRange> outputs;
};

/// One `key: value` of an option list (props, schedule entries, named
/// constructor arguments).
struct OptionItem {
  llvm::StringRef name;
  ast::SourceRange nameRange;
  ast::Expr *value = nullptr;
};

//===----------------------------------------------------------------------===//
// The checker
//===----------------------------------------------------------------------===//

struct OptionSpec; // SemaOptions.h

class Sema {
public:
  explicit Sema(mlir::MLIRContext *ctx) : ctx(ctx) {}
  /// Checks every declaration; returns false if an error was reported.
  bool run(ast::Program &program);

  // --- Diagnostics (Sema.cpp) -------------------------------------------
  mlir::InFlightDiagnostic error(const ast::SourceRange &range);
  void note(mlir::InFlightDiagnostic &diag, const ast::SourceRange &range,
            const llvm::Twine &message);

  // --- Scopes (Sema.cpp) ------------------------------------------------
  void pushScope();
  void popScope();
  /// Declares `name` in the innermost scope; reports a redefinition there.
  /// `_` is never declared. Returns the symbol or nullptr.
  Symbol *declare(llvm::StringRef name, const ast::SourceRange &range,
                  Symbol sym);
  Symbol *lookup(llvm::StringRef name);
  Symbol *lookupGlobal(llvm::StringRef name);
  /// Every visible name, sorted, for "did you mean" suggestions.
  std::vector<std::string> visibleNames();
  /// What to add to "unknown name 'x'" used at `use`: "; 'x' is defined
  /// later, at file:line:col" when the declaration being checked declares
  /// a local `x` after `use`, else didYouMean(name, candidates).
  std::string unknownNameHint(llvm::StringRef name, const ast::SourceRange &use,
                              llvm::ArrayRef<std::string> candidates);
  /// Global names of the given kinds, sorted.
  std::vector<std::string> globalNames(llvm::ArrayRef<SymKind> kinds);

  /// Checks a global declaration once; false if it is being checked right
  /// now (a cycle). Saves and restores the local state around the check.
  bool ensureChecked(ast::Decl *decl);

  /// Resolves a written type; reports unknown names if `report`.
  ast::Type resolveType(const ast::TypeRef &ref, bool report = true);
  /// Checks parameters (types and defaults) and declares them.
  void checkParams(std::vector<ast::Param> &params);
  /// Checks `let name[: type] = value` and declares it in the innermost
  /// scope.
  void checkLet(llvm::StringRef name, const ast::SourceRange &nameRange,
                const ast::TypeRef *type, ast::Expr *value, SymKind kind,
                bool assignable);
  /// Resolves a global name that must be of one of `kinds`; reports unknown
  /// names and names of another kind (`what` names the expected kind, e.g.
  /// "a graph").
  Symbol *resolveGlobal(llvm::StringRef name, const ast::SourceRange &range,
                        llvm::ArrayRef<SymKind> kinds, llvm::StringRef what);

  // --- Expressions (SemaExpr.cpp) ---------------------------------------
  /// Checks `e`, fills in its type and returns it.
  ast::Type check(ast::Expr *e);
  /// The folded value of a checked expression, if known.
  const Value *valueOf(const ast::Expr *e) const;
  /// Checks `e` and reports "<what> expects <T>, got <U>" if its type does
  /// not fit `expected`. Returns whether it fits.
  bool checkAs(ast::Expr *e, const ast::Type &expected,
               const llvm::Twine &what);
  /// Checks a condition: must be bool.
  void checkCondition(ast::Expr *e);
  /// Checks a value used as a set of vertices: `all`, a vertex, or a list
  /// of vertices. Returns false (after reporting) otherwise.
  bool checkVertexSet(ast::Expr *e, const llvm::Twine &what);

  // --- Declarations (SemaTopology.cpp, SemaWalk.cpp, SemaAlgorithm.cpp,
  // SemaSchemas.cpp) ------------------------------------------------------
  void collectDevices(ast::TopologyDecl &topo);
  void checkTopology(ast::TopologyDecl &topo);
  void checkWalk(ast::WalkDecl &walk);
  void checkAlgorithm(ast::AlgorithmDecl &algo);
  void checkGraph(ast::GraphDecl &graph);
  void checkModel(ast::ModelDecl &model);
  void checkLayerGroups(const std::map<std::string, ast::Expr *> &args);
  void checkExperts(const std::map<std::string, ast::Expr *> &args);
  void checkJob(ast::JobDecl &job);
  /// An `align` job (SemaAlign.cpp): its mode, topology and `specs`.
  void checkAlignJob(ast::JobDecl &job, llvm::ArrayRef<OptionSpec> specs);
  /// The setup values of `walk` that only a run checks (its stop
  /// probability and length), computed with the parameters `job` gives it
  /// (`given`, by option name) and the defaults (SemaWalk.cpp).
  void checkWalkJob(ast::JobDecl &job, ast::WalkDecl &walk,
                    const std::map<std::string, ast::Expr *> &given);
  /// A train job's `parameter_server` (DisDP, SemaDisdp.cpp): `ps` its
  /// value.
  void checkParameterServer(const std::map<std::string, ast::Expr *> &given,
                            ast::Expr *ps);
  /// The adversarial-training options of a train job (`given`, by option
  /// name; SemaAdversarial.cpp).
  void checkAdversarialJob(const std::map<std::string, ast::Expr *> &given);
  void checkSchedule(ast::ScheduleDecl &schedule);
  /// A schedule named after a job: a finetune job's tiers and pins.
  void checkJobSchedule(ast::ScheduleDecl &schedule, ast::JobDecl &job);
  void checkDemand(ast::DemandDecl &demand);
  /// The options of a gather job (SemaDemand.cpp).
  void checkGatherJob(ast::DemandItem &item, size_t tiers);
  /// The options of a `blockio` item (SemaBlockIO.cpp).
  void checkBlockIO(ast::DemandItem &item);
  /// A blockio item's `codec` (SemaBlockIO.cpp).
  void checkCodec(ast::Expr &value);
  /// Checks an endpoint written outside topology `topo` (a demand's device
  /// set) against `topo`'s devices: names, instances, index bounds.
  void checkTopologyEndpoint(ast::TopologyDecl &topo, ast::Endpoint &ep);

  /// Statement mode: algorithm bodies or walk update blocks.
  enum class StmtMode { Algorithm, WalkUpdate };
  void checkBlock(ast::Block &block, StmtMode mode, bool topLevel);

  /// Checks property values against a schema (devices and links).
  void checkProps(std::vector<ast::Prop> &props,
                  llvm::ArrayRef<topo::PropertySpec> specs,
                  llvm::StringRef owner);

  mlir::MLIRContext *ctx;
  bool failed = false;

  // Locals, innermost last; globals by name.
  std::vector<std::unique_ptr<SymbolTable>> scopes;
  SymbolTable globals;

  // Where expressions are checked, and how to name it in messages ("a
  // constant expression", "'length'", ...).
  Where where = Where::Const;
  std::string whereText = "a constant expression";
  /// Whether the expression being checked is a loop's `where` condition
  /// (no compare_swap there).
  bool inLoopCondition = false;
  struct WhereScope {
    WhereScope(Sema &s, Where w, std::string text)
        : s(s), savedWhere(s.where), savedText(std::move(s.whereText)) {
      s.where = w;
      s.whereText = std::move(text);
    }
    ~WhereScope() {
      s.where = savedWhere;
      s.whereText = std::move(savedText);
    }
    Sema &s;
    Where savedWhere;
    std::string savedText;
  };
  struct ScopeGuard {
    explicit ScopeGuard(Sema &s) : s(s) { s.pushScope(); }
    ~ScopeGuard() { s.popScope(); }
    Sema &s;
  };

  // Nesting depth of expressions, statements and items, bounded so that
  // pathological input reports an error instead of exhausting the stack.
  static constexpr unsigned kMaxDepth = 512;
  unsigned depth = 0;
  /// Enters one level; false (after reporting at `range`) if too deep.
  bool enter(const ast::SourceRange &range);
  void leave();
  bool reportedTooDeep = false;

  /// The check state of a declaration without a symbol of its own (imports,
  /// schedules, redefinitions); the others keep it in their Symbol. Pointer
  /// keys: looked up, never iterated.
  llvm::DenseMap<const ast::Decl *, CheckState> checkState;
  /// Where `decl`'s check state lives.
  CheckState &checkStateOf(ast::Decl *decl);

  // Folded values. Each checked expression with a known value has an entry
  // here, found through its Expr::semaValue (1-based); symbols point at
  // them too. A deque: entries never move.
  struct FoldedValue {
    const ast::Expr *expr; ///< null for a symbol's converted value
    Value value;
  };
  std::deque<FoldedValue> values;
  /// Records `v` as the value of `e` (replacing an earlier one).
  void setValue(ast::Expr *e, Value v);
  /// Forgets the value of `e`.
  void clearValue(ast::Expr *e);
  /// A stable copy of `v` for a Symbol.
  const Value *keep(Value v);
  /// convert(*v, from, to), kept; `v` itself when that is the same value.
  const Value *keepConverted(const Value *v, const ast::Type &from,
                             const ast::Type &to);
  std::map<const ast::TopologyDecl *, TopoInfo> topoInfo;
  std::map<const ast::AlgorithmDecl *, AlgoInfo> algoInfo;
  /// Index bounds to check once every device of the current topology has
  /// its size (devices may be declared after the links that use them).
  struct PendingBound {
    std::string device;
    int64_t lo = 0, hi = 0; ///< half-open
    bool isRange = false;
    ast::SourceRange range;
  };
  std::vector<PendingBound> *pendingBounds = nullptr;
  /// The global declaration being checked (ensureChecked), when any.
  ast::Decl *currentDecl = nullptr;
  /// The topology or algorithm being checked, when any.
  ast::TopologyDecl *currentTopology = nullptr;
  ast::AlgorithmDecl *currentAlgorithm = nullptr;
  /// The graph the walk or algorithm being checked runs on, when known.
  ast::GraphDecl *currentGraph = nullptr;
  /// Inside a `vertices` loop: the locals declared before it that it
  /// reduces into (ast::outerReductions), each with its first reduction.
  /// They cannot be read in the loop. Pointer keys: looked up, never
  /// iterated.
  llvm::DenseMap<const Symbol *, const ast::AssignStmt *> loopReductions;
  /// Schedules seen so far, by target.
  std::map<std::string, ast::SourceRange> schedules;
};

} // namespace sluice::sema

#endif // SLUICE_FRONTENDS_SLUICE_SEMAINTERNAL_H
