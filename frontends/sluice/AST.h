//===- AST.h - Abstract syntax tree of the Sluice language -----*- C++ -*-===//
//
// Every node carries the source range it was parsed from. Expressions carry a
// semantic type slot that Sema fills in. Node classes use LLVM-style RTTI
// (llvm::isa/cast/dyn_cast) through a Kind enum. The grammar is
// docs/grammar.ebnf; docs/language.md is the user reference.
//
// Memory: inputs of millions of declarations are expected (bench/frontend),
// so nodes live in their Module's arena (NodePtr), ranges are 24 bytes and
// types 24, and the names of devices are arena strings.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_AST_H
#define SLUICE_FRONTENDS_SLUICE_AST_H

#include "mlir/IR/BuiltinAttributes.h"
#include "support/Units.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sluice::ast {

//===----------------------------------------------------------------------===//
// Locations
//===----------------------------------------------------------------------===//

/// A position in a source file: 16 bytes, since every node holds several.
/// The file name is interned in the MLIRContext that parsed it (the AST does
/// not outlive it) and is the SourceMgr buffer's identifier.
struct SourceLoc {
  mlir::StringAttr file; ///< null when unknown
  unsigned line = 0;     ///< 1-based; 0 means unknown.
  unsigned col = 0;      ///< 1-based.

  /// The file name; empty when unknown.
  llvm::StringRef fileName() const {
    return file ? file.getValue() : llvm::StringRef();
  }
};

/// The end of a range: a line and column in the file of its begin (8 bytes,
/// so that a range is 24).
struct EndLoc {
  unsigned line = 0; ///< 1-based; 0 means unknown.
  unsigned col = 0;  ///< 1-based.

  EndLoc() = default;
  EndLoc(unsigned line, unsigned col) : line(line), col(col) {}
  EndLoc(const SourceLoc &loc) : line(loc.line), col(loc.col) {}
};

struct SourceRange {
  SourceLoc begin;
  EndLoc end; ///< the last character, inclusive
};

//===----------------------------------------------------------------------===//
// Semantic types (filled in by Sema)
//===----------------------------------------------------------------------===//

/// A type is 24 bytes (every expression and symbol holds one): list and
/// vertex-property types share their element type.
struct Type {
  enum class Kind : uint8_t {
    Unknown, ///< not checked yet, or after an error (suppresses cascades)
    Int,     ///< i64
    Float,   ///< f64
    Float32, ///< f32 (vertex properties and lets of an algorithm only)
    Bool,
    String,
    Quantity, ///< a physical quantity with `dim`
    Vertex,
    List, ///< homogeneous list of `element`
    Enum, ///< a bare word used as an option value (format: snap)
    Graph,
    Topology,
    Walk,
    Algorithm,
    Model,
    Job,
    Frontier,
    VertexProp, ///< a vertex property of `element`'s type
  };
  Kind kind = Kind::Unknown;
  Dim dim;                             ///< for Quantity
  std::shared_ptr<const Type> element; ///< for List and VertexProp

  static Type unknown() { return Type(); }
  static Type of(Kind k) {
    Type t;
    t.kind = k;
    return t;
  }
  static Type quantity(Dim d) {
    if (d.isNone())
      return of(Kind::Float);
    Type t;
    t.kind = Kind::Quantity;
    t.dim = d;
    return t;
  }
  static Type list(Type elt) {
    Type t;
    t.kind = Kind::List;
    t.element = std::make_shared<const Type>(std::move(elt));
    return t;
  }
  bool isUnknown() const { return kind == Kind::Unknown; }
  bool isNumeric() const {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Float32 ||
           kind == Kind::Quantity;
  }
  bool operator==(const Type &o) const;
  bool operator!=(const Type &o) const { return !(*this == o); }
  /// "i64", "f64", "f32", "bandwidth", "[i64]", "graph", ...
  std::string str() const;
};

//===----------------------------------------------------------------------===//
// Node ownership
//===----------------------------------------------------------------------===//

/// AST nodes live in their Module's arena (Module::create): a NodePtr owns
/// its node's members, and destroying it runs the node's destructor; the
/// memory itself goes with the arena. No per-node heap block: a `let vN = N`
/// declaration and its literal are 112 + 72 bytes, back to back.
struct NodeDeleter {
  template <typename T> void operator()(T *node) const { node->~T(); }
};
template <typename T> using NodePtr = std::unique_ptr<T, NodeDeleter>;

/// Allocates AST nodes. Each Module owns one; nodes must not outlive it.
class Arena {
public:
  template <typename T, typename... Args> NodePtr<T> create(Args &&...args) {
    return NodePtr<T>(new (allocator.Allocate<T>())
                          T(std::forward<Args>(args)...));
  }
  /// A copy of `text` in the arena.
  llvm::StringRef save(llvm::StringRef text) {
    if (text.empty())
      return llvm::StringRef();
    char *copy = allocator.Allocate<char>(text.size());
    std::copy(text.begin(), text.end(), copy);
    return llvm::StringRef(copy, text.size());
  }

private:
  llvm::BumpPtrAllocator allocator;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind : uint8_t {
    IntLit,
    FloatLit,
    QuantityLit,
    StringLit,
    BoolLit,
    Name,
    Call,
    Unary,
    Binary,
    If,
    Index,
    Member,
    List,
  };
  Expr(Kind kind, SourceRange range) : range(range), kind(kind) {}
  virtual ~Expr() = default;
  Kind getKind() const { return kind; }
  SourceRange range;
  Type type; ///< set by Sema
  const Kind kind;
  /// Sema's handle on the value it folded for this expression (0: none);
  /// meaningful to the Sema that set it only (it checks that it did).
  uint32_t semaValue = 0;
};
using ExprPtr = NodePtr<Expr>;

struct IntLitExpr : Expr {
  IntLitExpr(SourceRange r, int64_t v) : Expr(Kind::IntLit, r), value(v) {}
  int64_t value;
  static bool classof(const Expr *e) { return e->kind == Kind::IntLit; }
};

struct FloatLitExpr : Expr {
  FloatLitExpr(SourceRange r, double v) : Expr(Kind::FloatLit, r), value(v) {}
  double value;
  static bool classof(const Expr *e) { return e->kind == Kind::FloatLit; }
};

/// `80 GiB`: the number as written and the unit spelling.
struct QuantityLitExpr : Expr {
  QuantityLitExpr(SourceRange r, double v, std::string unit)
      : Expr(Kind::QuantityLit, r), value(v), unit(std::move(unit)) {}
  double value;
  std::string unit;
  static bool classof(const Expr *e) { return e->kind == Kind::QuantityLit; }
};

struct StringLitExpr : Expr {
  StringLitExpr(SourceRange r, std::string v)
      : Expr(Kind::StringLit, r), value(std::move(v)) {}
  std::string value; ///< escapes already decoded
  static bool classof(const Expr *e) { return e->kind == Kind::StringLit; }
};

struct BoolLitExpr : Expr {
  BoolLitExpr(SourceRange r, bool v) : Expr(Kind::BoolLit, r), value(v) {}
  bool value;
  static bool classof(const Expr *e) { return e->kind == Kind::BoolLit; }
};

struct NameExpr : Expr {
  NameExpr(SourceRange r, std::string n)
      : Expr(Kind::Name, r), name(std::move(n)) {}
  std::string name;
  static bool classof(const Expr *e) { return e->kind == Kind::Name; }
};

/// One call or constructor argument: positional (`name` empty) or named.
struct Arg {
  std::string name;
  SourceRange nameRange;
  ExprPtr value;
};

struct CallExpr : Expr {
  CallExpr(SourceRange r, std::string callee, SourceRange calleeRange,
           std::vector<Arg> args)
      : Expr(Kind::Call, r), callee(std::move(callee)),
        calleeRange(calleeRange), args(std::move(args)) {}
  std::string callee;
  SourceRange calleeRange;
  std::vector<Arg> args;
  static bool classof(const Expr *e) { return e->kind == Kind::Call; }
};

enum class UnaryOp { Neg, Not };
enum class BinaryOp {
  Add, Sub, Mul, Div, Mod,
  Eq, Ne, Lt, Le, Gt, Ge,
  And, Or,
};
llvm::StringRef spell(UnaryOp op);
llvm::StringRef spell(BinaryOp op);

struct UnaryExpr : Expr {
  UnaryExpr(SourceRange r, UnaryOp op, ExprPtr operand)
      : Expr(Kind::Unary, r), op(op), operand(std::move(operand)) {}
  UnaryOp op;
  ExprPtr operand;
  static bool classof(const Expr *e) { return e->kind == Kind::Unary; }
};

struct BinaryExpr : Expr {
  BinaryExpr(SourceRange r, BinaryOp op, SourceRange opRange, ExprPtr lhs,
             ExprPtr rhs)
      : Expr(Kind::Binary, r), op(op), opRange(opRange), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  BinaryOp op;
  SourceRange opRange; ///< the operator token, for diagnostics
  ExprPtr lhs, rhs;
  static bool classof(const Expr *e) { return e->kind == Kind::Binary; }
};

struct IfExpr : Expr {
  IfExpr(SourceRange r, ExprPtr c, ExprPtr t, ExprPtr f)
      : Expr(Kind::If, r), cond(std::move(c)), thenExpr(std::move(t)),
        elseExpr(std::move(f)) {}
  ExprPtr cond, thenExpr, elseExpr;
  static bool classof(const Expr *e) { return e->kind == Kind::If; }
};

struct IndexExpr : Expr {
  IndexExpr(SourceRange r, ExprPtr base, ExprPtr index)
      : Expr(Kind::Index, r), base(std::move(base)), index(std::move(index)) {}
  ExprPtr base, index;
  static bool classof(const Expr *e) { return e->kind == Kind::Index; }
};

struct MemberExpr : Expr {
  MemberExpr(SourceRange r, ExprPtr base, std::string member)
      : Expr(Kind::Member, r), base(std::move(base)),
        member(std::move(member)) {}
  ExprPtr base;
  std::string member;
  static bool classof(const Expr *e) { return e->kind == Kind::Member; }
};

struct ListExpr : Expr {
  ListExpr(SourceRange r, std::vector<ExprPtr> elts)
      : Expr(Kind::List, r), elements(std::move(elts)) {}
  std::vector<ExprPtr> elements;
  static bool classof(const Expr *e) { return e->kind == Kind::List; }
};

//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

/// A written type: `f64`, `bandwidth`, `[i64]`.
struct TypeRef {
  std::string name;                  ///< empty for a list type
  std::unique_ptr<TypeRef> element;  ///< for `[T]`
  SourceRange range;
};

struct Param {
  std::string name;
  SourceRange range; ///< the whole `name: type = default`
  TypeRef type;
  ExprPtr defaultValue; ///< may be null
};

/// `key: value` in braces.
struct Prop {
  std::string name;
  SourceRange nameRange;
  ExprPtr value;
};

struct Binder {
  std::string name;
  SourceRange range;
};

//===----------------------------------------------------------------------===//
// Statements (algorithm bodies and walk update blocks)
//===----------------------------------------------------------------------===//

class Stmt {
public:
  enum class Kind : uint8_t {
    VertexProp,
    Frontier,
    Let,
    Repeat,
    While,
    If,
    Vertices,
    Edges,
    Output,
    Assign,
  };
  Stmt(Kind kind, SourceRange range) : range(range), kind(kind) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return kind; }
  SourceRange range;
  const Kind kind;
};
using StmtPtr = NodePtr<Stmt>;
using Block = std::vector<StmtPtr>;

struct VertexPropStmt : Stmt {
  VertexPropStmt(SourceRange r) : Stmt(Kind::VertexProp, r) {}
  std::string name;
  SourceRange nameRange;
  TypeRef type;
  /// Null for `vertex NAME: vertex`: every vertex starts as itself.
  ExprPtr init;
  static bool classof(const Stmt *s) { return s->kind == Kind::VertexProp; }
};

struct FrontierStmt : Stmt {
  FrontierStmt(SourceRange r) : Stmt(Kind::Frontier, r) {}
  std::string name;
  SourceRange nameRange;
  ExprPtr init;
  static bool classof(const Stmt *s) { return s->kind == Kind::Frontier; }
};

struct LetStmt : Stmt {
  LetStmt(SourceRange r) : Stmt(Kind::Let, r) {}
  std::string name;
  SourceRange nameRange;
  std::unique_ptr<TypeRef> type; ///< null when not written
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->kind == Kind::Let; }
};

struct RepeatStmt : Stmt {
  RepeatStmt(SourceRange r) : Stmt(Kind::Repeat, r) {}
  ExprPtr count;
  Block body;
  static bool classof(const Stmt *s) { return s->kind == Kind::Repeat; }
};

struct WhileStmt : Stmt {
  WhileStmt(SourceRange r) : Stmt(Kind::While, r) {}
  ExprPtr cond;
  Block body;
  static bool classof(const Stmt *s) { return s->kind == Kind::While; }
};

struct IfStmt : Stmt {
  IfStmt(SourceRange r) : Stmt(Kind::If, r) {}
  ExprPtr cond;
  Block thenBody;
  Block elseBody; ///< an `else if` is a single IfStmt here
  static bool classof(const Stmt *s) { return s->kind == Kind::If; }
};

/// `@label vertices(v) where cond { ... }`
struct VerticesStmt : Stmt {
  VerticesStmt(SourceRange r) : Stmt(Kind::Vertices, r) {}
  std::string label; ///< empty when unlabelled
  SourceRange labelRange;
  std::vector<Binder> binders;
  ExprPtr where; ///< may be null
  Block body;
  static bool classof(const Stmt *s) { return s->kind == Kind::Vertices; }
};

/// `@label out = edges(src, dst, w) from f where cond { ... }`
struct EdgesStmt : Stmt {
  EdgesStmt(SourceRange r) : Stmt(Kind::Edges, r) {}
  std::string label;
  SourceRange labelRange;
  std::string result; ///< frontier receiving updated destinations, or empty
  SourceRange resultRange;
  std::vector<Binder> binders;
  std::string from; ///< input frontier, or empty for all edges
  SourceRange fromRange;
  ExprPtr where;
  Block body;
  static bool classof(const Stmt *s) { return s->kind == Kind::Edges; }
};

struct OutputStmt : Stmt {
  OutputStmt(SourceRange r) : Stmt(Kind::Output, r) {}
  std::vector<Binder> names;
  static bool classof(const Stmt *s) { return s->kind == Kind::Output; }
};

enum class AssignOp { Set, Add, Sub, Mul, Min, Max };
llvm::StringRef spell(AssignOp op);

struct AssignStmt : Stmt {
  AssignStmt(SourceRange r) : Stmt(Kind::Assign, r) {}
  std::string target;
  SourceRange targetRange;
  ExprPtr index; ///< `x[v] = ...`; null for a scalar
  AssignOp op = AssignOp::Set;
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->kind == Kind::Assign; }
};

/// The reductions of a loop's `body` (`x += e`, `-=`, `*=`, `min=`,
/// `max=`, nested blocks included, in source order) into an unindexed name
/// that no `let` or `frontier` of the body declares: into a local declared
/// before the loop (docs/language.md, section 11.2), when that is what the
/// name is. Sema and MLIRGen share this one reading.
std::vector<const AssignStmt *> outerReductions(const Block &body);

//===----------------------------------------------------------------------===//
// Topology items
//===----------------------------------------------------------------------===//

/// One segment of an endpoint path: `gpu`, `gpu[3]`, `gpu[*]`, `gpu[0..4]`.
struct Segment {
  enum class IndexKind { None, Single, All, Range };
  std::string name;
  SourceRange range;
  IndexKind indexKind = IndexKind::None;
  ExprPtr lo; ///< Single: the index; Range: the first index
  ExprPtr hi; ///< Range: one past the last index
};

/// `server[3].gpu[2]`
struct Endpoint {
  std::vector<Segment> segments;
  SourceRange range;
};

enum class LinkDir { Forward, Both }; ///< `->` or `<->`

class TopoItem {
public:
  enum class Kind : uint8_t { Device, Link, Bandwidths, For, Let };
  TopoItem(Kind kind, SourceRange range) : range(range), kind(kind) {}
  virtual ~TopoItem() = default;
  Kind getKind() const { return kind; }
  SourceRange range;
  const Kind kind; ///< last: subclasses put small members after it
};
using TopoItemPtr = NodePtr<TopoItem>;

/// `gpu gpu[8] { memory: 80 GiB }` or `dgx_a100 server[16]` or
/// `server(gpus: 4) node[2]`.
struct DeviceItem : TopoItem {
  DeviceItem(SourceRange r) : TopoItem(Kind::Device, r) {}
  bool hasArgs = false; ///< first: fills the padding after TopoItem::kind
  /// Device kind or topology name. Like `name`, in the module's arena:
  /// topologies may hold millions of devices.
  llvm::StringRef kind;
  SourceRange kindRange;
  std::vector<Arg> args; ///< instantiation arguments for a topology
  llvm::StringRef name;
  SourceRange nameRange;
  ExprPtr count; ///< array size; null for a single device
  std::vector<Prop> props;
  static bool classof(const TopoItem *i) { return i->kind == Kind::Device; }
};

/// `link a -> b { ... }` and `override a <-> b { ... }`.
struct LinkItem : TopoItem {
  LinkItem(SourceRange r) : TopoItem(Kind::Link, r) {}
  bool isOverride = false;
  Endpoint from;
  LinkDir dir = LinkDir::Both;
  Endpoint to;
  std::vector<Prop> props;
  static bool classof(const TopoItem *i) { return i->kind == Kind::Link; }
};

/// `bandwidths from "p2p.json" between gpu[*]`
struct BandwidthsItem : TopoItem {
  BandwidthsItem(SourceRange r) : TopoItem(Kind::Bandwidths, r) {}
  std::string path;
  SourceRange pathRange;
  Endpoint devices;
  static bool classof(const TopoItem *i) { return i->kind == Kind::Bandwidths; }
};

struct ForItem : TopoItem {
  ForItem(SourceRange r) : TopoItem(Kind::For, r) {}
  std::string var;
  SourceRange varRange;
  ExprPtr lo, hi; ///< half-open range lo..hi
  std::vector<TopoItemPtr> body;
  static bool classof(const TopoItem *i) { return i->kind == Kind::For; }
};

struct LetItem : TopoItem {
  LetItem(SourceRange r) : TopoItem(Kind::Let, r) {}
  std::string name;
  SourceRange nameRange;
  std::unique_ptr<TypeRef> type; ///< null when not written
  ExprPtr value;
  static bool classof(const TopoItem *i) { return i->kind == Kind::Let; }
};

//===----------------------------------------------------------------------===//
// Walk items
//===----------------------------------------------------------------------===//

class WalkItem {
public:
  enum class Kind { Length, Start, StopProbability, StopFn, WeightFn, State,
                    Update, Let };
  WalkItem(Kind kind, SourceRange range) : kind(kind), range(range) {}
  Kind getKind() const { return kind; }
  const Kind kind;
  SourceRange range;
  std::vector<Binder> binders; ///< StopFn, WeightFn, Update
  std::string name;            ///< State, Let
  SourceRange nameRange;
  std::unique_ptr<TypeRef> type; ///< State, Let (null for a Let without one)
  ExprPtr value;               ///< all but Update
  Block body;                  ///< Update
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

class Decl {
public:
  enum class Kind : uint8_t {
    Import,
    Let,
    Topology,
    Graph,
    Walk,
    Algorithm,
    Schedule,
    Model,
    Job,
    Demand
  };
  Decl(Kind kind, SourceRange range) : range(range), kind(kind) {}
  virtual ~Decl() = default;
  Kind getKind() const { return kind; }
  SourceRange range;
  const Kind kind;
  std::string name; ///< empty for imports
  SourceRange nameRange;
};
using DeclPtr = NodePtr<Decl>;

struct ImportDecl : Decl {
  ImportDecl(SourceRange r) : Decl(Kind::Import, r) {}
  std::string path; ///< as written
  SourceRange pathRange;
  static bool classof(const Decl *d) { return d->kind == Kind::Import; }
};

struct LetDecl : Decl {
  LetDecl(SourceRange r) : Decl(Kind::Let, r) {}
  std::unique_ptr<TypeRef> type; ///< null when not written
  ExprPtr value;
  static bool classof(const Decl *d) { return d->kind == Kind::Let; }
};

struct TopologyDecl : Decl {
  TopologyDecl(SourceRange r) : Decl(Kind::Topology, r) {}
  std::vector<Param> params;
  std::vector<TopoItemPtr> items;
  static bool classof(const Decl *d) { return d->kind == Kind::Topology; }
};

/// `graph g = load("file", format: snap, undirected)`
struct GraphDecl : Decl {
  GraphDecl(SourceRange r) : Decl(Kind::Graph, r) {}
  NodePtr<CallExpr> source;
  static bool classof(const Decl *d) { return d->kind == Kind::Graph; }
};

struct WalkDecl : Decl {
  WalkDecl(SourceRange r) : Decl(Kind::Walk, r) {}
  std::vector<Param> params;
  std::string graph;
  SourceRange graphRange;
  std::vector<WalkItem> items;
  static bool classof(const Decl *d) { return d->kind == Kind::Walk; }
};

struct AlgorithmDecl : Decl {
  AlgorithmDecl(SourceRange r) : Decl(Kind::Algorithm, r) {}
  std::vector<Param> params;
  std::string graph;
  SourceRange graphRange;
  Block body;
  static bool classof(const Decl *d) { return d->kind == Kind::Algorithm; }
};

/// `schedule pagerank { sampler: auto, @s1 { direction: pull } }`.
/// `name` is the walk or algorithm it schedules.
struct ScheduleDecl : Decl {
  ScheduleDecl(SourceRange r) : Decl(Kind::Schedule, r) {}
  std::vector<Prop> props; ///< applies to the whole target
  struct Labeled {
    std::string label;
    SourceRange labelRange;
    std::vector<Prop> props;
  };
  std::vector<Labeled> labeled;
  static bool classof(const Decl *d) { return d->kind == Kind::Schedule; }
};

/// `model gpt3 = transformer(layers: 96, ...)`
struct ModelDecl : Decl {
  ModelDecl(SourceRange r) : Decl(Kind::Model, r) {}
  NodePtr<CallExpr> ctor;
  static bool classof(const Decl *d) { return d->kind == Kind::Model; }
};

/// `job tune = finetune gpt3 on workstation { batch: 8 }`
struct JobDecl : Decl {
  JobDecl(SourceRange r) : Decl(Kind::Job, r) {}
  /// finetune, train, infer, distill, gather, walk, run, align
  std::string action;
  SourceRange actionRange;
  std::string subject;
  SourceRange subjectRange;
  std::string target;
  SourceRange targetRange;
  std::vector<Prop> props;
  static bool classof(const Decl *d) { return d->kind == Kind::Job; }
};

/// One clause of a demand item: `from cpu[0]`, `to [gpu[0], gpu[1]]`,
/// `over gpu[*]`.
struct DemandClause {
  std::string word; ///< from, to, over
  SourceRange wordRange;
  std::vector<Endpoint> endpoints;
  SourceRange range;
};

/// One transfer set of a demand: `transfer 8 GiB from cpu[0] to gpu[*]`,
/// `allreduce 2 GiB over gpu[*]`, `gather 64 GiB from [ssd[*]] to gpu[*]`.
struct DemandItem {
  std::string kind; ///< transfer, gather, allreduce, allgather, ...
  SourceRange kindRange;
  ExprPtr bytes;
  std::vector<DemandClause> clauses;
  /// The options of a gather job (`gather feats from ... to ... { items:
  /// ..., item_bytes: ..., access: ... }`); hasProps even when empty.
  std::vector<Prop> props;
  bool hasProps = false;
  SourceRange propsRange;
  SourceRange range;
};

/// `demand feats on dgx { chunk: 64 MiB, gather 8 GiB from ... to ... }`
struct DemandDecl : Decl {
  DemandDecl(SourceRange r) : Decl(Kind::Demand, r) {}
  std::string topology;
  SourceRange topologyRange;
  std::vector<Prop> props; ///< options of the whole demand
  std::vector<DemandItem> items;
  static bool classof(const Decl *d) { return d->kind == Kind::Demand; }
};

/// One parsed file.
struct Module {
  Arena arena;      ///< first: its nodes are destroyed before it
  std::string path; ///< as opened
  std::vector<DeclPtr> decls;

  /// A new node in this module's arena.
  template <typename T, typename... Args> NodePtr<T> create(Args &&...args) {
    return arena.create<T>(std::forward<Args>(args)...);
  }
};

/// The main file and everything it imports, imports first (a file appears
/// once even if imported several times).
struct Program {
  std::vector<std::unique_ptr<Module>> modules;
};

/// The bare word an option value spells: a name (`snap`), or a hyphenated
/// word written without spaces (`mtx-body`, which parses as a subtraction
/// of names). std::nullopt for anything else.
std::optional<std::string> bareWord(const Expr *e);

/// Prints the AST as an indented tree with `<line:col-line:col>` ranges
/// (no file names, so dumps are stable across checkouts). Used by
/// `sluicec --emit=ast`; lit tests check it.
void dump(const Module &module, llvm::raw_ostream &os);

} // namespace sluice::ast

#endif // SLUICE_FRONTENDS_SLUICE_AST_H
