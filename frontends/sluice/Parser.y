//===- Parser.y - Bison grammar of the Sluice language ---------*- C++ -*-===//
//
// The grammar is docs/grammar.ebnf; each rule below cites the EBNF rule it
// implements. The parser builds the AST of frontends/sluice/AST.h and reports
// syntax errors through the MLIRContext's diagnostic engine.
//
// Tokens come from the Flex scanner (Lexer.l) through a small filter, yylex()
// at the end of this file, which tracks open brackets: at the end of the file,
// or when a top-level keyword such as `topology` shows up inside brackets, it
// reports the missing closers ("expected '}' to close topology 'dgx'") and
// inserts them so that the next declaration parses normally.
//
// Error recovery: `error` productions at declaration level and at the item /
// statement / property level inside braces, so one run reports one error per
// broken declaration or item. Declaration keywords call yyerrok so that an
// error right after a recovered one is still reported.
//
// Guards for hostile input: bracket nesting and AST height are limited to
// 256 levels (deeper input stops the parse with "nesting too deep"), integer
// literals that do not fit in i64 are errors, and the generated code needs no
// exceptions (errors are reported, never thrown).
//
//===----------------------------------------------------------------------===//

%require "3.8"
%language "c++"
%skeleton "lalr1.cc"

%define api.namespace {sluice::detail}
%define api.parser.class {Parser}
%define api.value.type variant
%define api.token.constructor
%define api.token.prefix {TOK_}
%define api.location.type {sluice::ast::SourceRange}
%define parse.error custom
%define parse.lac full
%locations
%param {sluice::detail::ParseContext &ctx}
%expect 0

%code requires {
#include "frontends/sluice/AST.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace sluice::detail {
class ParseContext;

/// The value of a NUMBER token: an i64 or an f64 literal.
struct NumberValue {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
};

/// The value of a QUANTITY token: `80 GiB` is {80, "GiB"}.
struct QuantityValue {
  double value = 0;
  std::string unit;
};

/// A name and where it was written.
struct NameRef {
  std::string name;
  ast::SourceRange range;
};

/// `let name [: type] = value`, shared by declarations, topology items,
/// walk items and statements.
struct LetParts {
  NameRef name;
  std::unique_ptr<ast::TypeRef> type;
  ast::ExprPtr value;
};

/// The items of a schedule block, in two lists.
struct ScheduleBody {
  std::vector<ast::Prop> props;
  std::vector<ast::ScheduleDecl::Labeled> labeled;
};
} // namespace sluice::detail
}

%code provides {
namespace sluice::detail {

/// Limit on bracket nesting and on the height of expression and statement
/// trees: deeper input is rejected so that no later recursion can overflow.
constexpr unsigned kMaxNesting = 256;

/// Limit on the size of one source file: flex keeps lengths and offsets in
/// an int.
constexpr size_t kMaxFileSize = (size_t(1) << 31) - 16;

/// State shared by the scanner, the token filter and the grammar actions of
/// one file.
class ParseContext {
public:
  ParseContext(mlir::MLIRContext *mlirCtx, llvm::StringRef file,
               ast::Module &module)
      : mlirCtx(mlirCtx), file(mlir::StringAttr::get(mlirCtx, file)),
        module(module) {}

  /// Reports a located error and remembers that parsing failed.
  void error(const ast::SourceRange &range, const llvm::Twine &message);
  /// Reports an error with a note at `noteRange`.
  void errorWithNote(const ast::SourceRange &range, const llvm::Twine &message,
                     const ast::SourceRange &noteRange,
                     const llvm::Twine &note);

  //===--------------------------------------------------------------------===//
  // Positions (maintained by the scanner)
  //===--------------------------------------------------------------------===//

  /// Starts a token at the current position and moves past `text`.
  void advance(const char *text, size_t length);
  /// Shortens the current token to its first `length` characters.
  void retract(const char *text, size_t length);
  /// The range of the current token.
  ast::SourceRange tokenRange() const;
  /// A range covering `length` characters of the current token from
  /// `offset` (for diagnostics inside a token; the token is on one line
  /// unless it is a string with escaped newlines).
  ast::SourceRange subRange(const char *text, size_t offset,
                            size_t length) const;

  //===--------------------------------------------------------------------===//
  // AST height bookkeeping (see kMaxNesting)
  //===--------------------------------------------------------------------===//

  unsigned height(const void *node) const;
  /// Records the height of a new node. Only heights above 1 are stored (a
  /// leaf is the common case); a leaf clears what a freed node at the same
  /// address left.
  void setHeight(const void *node, unsigned h) {
    if (h > 1)
      heights[node] = h;
    else
      heights.erase(node);
  }
  /// Checks a new node's height; on the first violation reports "nesting too
  /// deep" and stops the parse. Returns false if the node must not be built.
  bool checkHeight(unsigned h, const ast::SourceRange &range);

  mlir::MLIRContext *mlirCtx;
  mlir::StringAttr file; ///< interned once: every SourceLoc holds it
  ast::Module &module;
  void *scanner = nullptr;
  /// The scanner's copy of the file, followed by two NULs (createScanner).
  /// Flex writes into it (a NUL after the current match).
  std::vector<char> scanText;
  /// The file as read, for looking past the current match.
  llvm::StringRef source;
  /// Whether the `length` characters at `match` (in scanText) are followed
  /// by a `:` after blanks on the same line.
  bool followedByColon(const char *match, size_t length) const {
    size_t i = static_cast<size_t>(match - scanText.data()) + length;
    while (i < source.size() && (source[i] == ' ' || source[i] == '\t'))
      ++i;
    return i < source.size() && source[i] == ':';
  }
  unsigned errorCount = 0;
  /// Set after "nesting too deep": the filter returns end of file and no
  /// further syntax error is reported.
  bool stopped = false;

  // Scanner position: the next character, and the current token.
  unsigned line = 1, col = 1;
  unsigned tokLine = 1, tokCol = 1, tokEndLine = 1, tokEndCol = 1;
  ast::SourceRange commentStart;
  /// The previous raw token was an unexpected character (consecutive ones
  /// are reported once).
  bool lastWasBadChar = false;

  // Token filter state.
  struct Pending {
    Parser::symbol_type token;
    bool synthetic;
  };
  std::deque<Pending> pending;
  struct OpenBracket {
    Parser::symbol_kind_type closer;
    char open, close;
    ast::SourceRange range;
    std::string label; ///< "topology 'dgx'" for a declaration's brace
  };
  std::vector<OpenBracket> brackets;
  /// The token just handed to the parser was inserted by the filter.
  bool lastSynthetic = false;
  bool sawEnd = false;
  Parser::symbol_kind_type lastKind = Parser::symbol_kind::S_YYEOF;
  ast::SourceRange lastRange;
  bool haveLastRange = false;
  // The declaration being read at bracket depth 0, for labels.
  std::string declKeyword, declName;
  bool wantDeclName = false;

private:
  llvm::DenseMap<const void *, unsigned> heights;
};

/// The Flex scanner (Lexer.l).
Parser::symbol_type lexRaw(void *scanner);
/// Creates a scanner over `text` reporting to `ctx`; destroyScanner frees it.
void *createScanner(ParseContext &ctx, llvm::StringRef text);
void destroyScanner(void *scanner);

/// The token filter between the scanner and the parser.
Parser::symbol_type yylex(ParseContext &ctx);

/// Parses the whole buffer `text`; decls are appended to ctx.module.
/// Returns true if no error was reported.
bool parseBuffer(ParseContext &ctx, llvm::StringRef text);
/// Runs the scanner alone over `text` and counts its tokens (errors are
/// reported as by parseBuffer); fails if the file is too large to scan.
mlir::FailureOr<size_t> lexAll(ParseContext &ctx, llvm::StringRef text);
} // namespace sluice::detail
}

%code {
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/ErrorHandling.h"
#include <algorithm>

using namespace sluice;
using namespace sluice::ast;
using sluice::detail::LetParts;
using sluice::detail::NameRef;
using sluice::detail::ParseContext;

/// A rule's range: from its first symbol to its last; an empty rule sits at
/// the end of the previous symbol. (A range's end has no file of its own.)
#define YYLLOC_DEFAULT(Current, Rhs, N)                                        \
  do {                                                                         \
    if (N) {                                                                   \
      (Current).begin = YYRHSLOC(Rhs, 1).begin;                                \
      (Current).end = YYRHSLOC(Rhs, N).end;                                    \
    } else {                                                                   \
      const sluice::ast::SourceRange &prev = YYRHSLOC(Rhs, 0);                 \
      (Current).begin = sluice::ast::SourceLoc{prev.begin.file, prev.end.line, \
                                               prev.end.col};                  \
      (Current).end = prev.end;                                                \
    }                                                                          \
  } while (false)

namespace {
SourceRange join(const SourceRange &a, const SourceRange &b) {
  return SourceRange{a.begin, b.end};
}

/// Registers a new expression of height 1 + max(children).
ExprPtr track(ParseContext &ctx, ExprPtr e,
              std::initializer_list<const Expr *> kids) {
  unsigned h = 0;
  for (const Expr *k : kids)
    h = std::max(h, ctx.height(k));
  ctx.setHeight(e.get(), h + 1);
  return e;
}

ExprPtr leaf(ParseContext &ctx, ExprPtr e) { return track(ctx, std::move(e), {}); }

ExprPtr makeBinary(ParseContext &ctx, BinaryOp op, const SourceRange &range,
                   const SourceRange &opRange, ExprPtr lhs, ExprPtr rhs) {
  unsigned h = 1 + std::max(ctx.height(lhs.get()), ctx.height(rhs.get()));
  if (!ctx.checkHeight(h, range))
    return lhs;
  Expr *l = lhs.get(), *r = rhs.get();
  return track(ctx,
               ctx.module.create<BinaryExpr>(range, op, opRange, std::move(lhs),
                                            std::move(rhs)),
               {l, r});
}

ExprPtr makeUnary(ParseContext &ctx, UnaryOp op, const SourceRange &range,
                  ExprPtr operand) {
  if (!ctx.checkHeight(1 + ctx.height(operand.get()), range))
    return operand;
  Expr *o = operand.get();
  return track(ctx, ctx.module.create<UnaryExpr>(range, op, std::move(operand)),
               {o});
}

ExprPtr makeIf(ParseContext &ctx, const SourceRange &range, ExprPtr c,
               ExprPtr t, ExprPtr f) {
  unsigned h = 1 + std::max({ctx.height(c.get()), ctx.height(t.get()),
                             ctx.height(f.get())});
  if (!ctx.checkHeight(h, range))
    return c;
  Expr *a = c.get(), *b = t.get(), *d = f.get();
  return track(ctx,
               ctx.module.create<IfExpr>(range, std::move(c), std::move(t),
                                        std::move(f)),
               {a, b, d});
}

ExprPtr makeIndex(ParseContext &ctx, const SourceRange &range, ExprPtr base,
                  ExprPtr index) {
  unsigned h = 1 + std::max(ctx.height(base.get()), ctx.height(index.get()));
  if (!ctx.checkHeight(h, range))
    return base;
  Expr *a = base.get(), *b = index.get();
  return track(ctx,
               ctx.module.create<IndexExpr>(range, std::move(base),
                                           std::move(index)),
               {a, b});
}

ExprPtr makeMember(ParseContext &ctx, const SourceRange &range, ExprPtr base,
                   std::string member) {
  if (!ctx.checkHeight(1 + ctx.height(base.get()), range))
    return base;
  Expr *a = base.get();
  return track(ctx,
               ctx.module.create<MemberExpr>(range, std::move(base),
                                            std::move(member)),
               {a});
}

/// Height of a node built over `exprs`; they are dropped if it is too deep.
bool checkListHeight(ParseContext &ctx, const SourceRange &range,
                     const std::vector<const Expr *> &kids, unsigned &h) {
  h = 0;
  for (const Expr *k : kids)
    h = std::max(h, ctx.height(k));
  ++h;
  return ctx.checkHeight(h, range);
}

ExprPtr makeList(ParseContext &ctx, const SourceRange &range,
                 std::vector<ExprPtr> elts) {
  std::vector<const Expr *> kids;
  for (const ExprPtr &e : elts)
    kids.push_back(e.get());
  unsigned h;
  if (!checkListHeight(ctx, range, kids, h)) {
    elts.clear();
    h = 1;
  }
  auto list = ctx.module.create<ListExpr>(range, std::move(elts));
  ctx.setHeight(list.get(), h);
  return list;
}

NodePtr<CallExpr> makeCall(ParseContext &ctx, const SourceRange &range,
                                   NameRef callee, std::vector<Arg> args) {
  std::vector<const Expr *> kids;
  for (const Arg &a : args)
    kids.push_back(a.value.get());
  unsigned h;
  if (!checkListHeight(ctx, range, kids, h)) {
    args.clear();
    h = 1;
  }
  auto call = ctx.module.create<CallExpr>(range, std::move(callee.name),
                                         callee.range, std::move(args));
  ctx.setHeight(call.get(), h);
  return call;
}

/// Statement heights count nested blocks (and `else if` chains).
unsigned blockHeight(ParseContext &ctx, const Block &block) {
  unsigned h = 0;
  for (const StmtPtr &s : block)
    h = std::max(h, ctx.height(s.get()));
  return h;
}

template <typename T>
StmtPtr trackStmt(ParseContext &ctx, NodePtr<T> s, unsigned h) {
  ctx.setHeight(s.get(), h);
  return s;
}

/// Registers a statement holding `blocks`; if it is nested too deeply the
/// blocks are emptied.
template <typename T>
StmtPtr finishNested(ParseContext &ctx, NodePtr<T> s,
                     std::initializer_list<Block *> blocks) {
  unsigned h = 0;
  for (Block *b : blocks)
    h = std::max(h, blockHeight(ctx, *b));
  ++h;
  if (!ctx.checkHeight(h, s->range)) {
    for (Block *b : blocks)
      b->clear();
    h = 1;
  }
  return trackStmt(ctx, std::move(s), h);
}

ExprPtr numberLiteral(ParseContext &ctx, const SourceRange &range,
                      const detail::NumberValue &v) {
  if (v.isFloat)
    return leaf(ctx, ctx.module.create<FloatLitExpr>(range, v.f));
  return leaf(ctx, ctx.module.create<IntLitExpr>(range, v.i));
}

TopoItemPtr letItem(ParseContext &ctx, const SourceRange &range,
                    LetParts parts) {
  auto item = ctx.module.create<LetItem>(range);
  item->name = std::move(parts.name.name);
  item->nameRange = parts.name.range;
  item->type = std::move(parts.type);
  item->value = std::move(parts.value);
  return item;
}
} // namespace
}

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

%token YYEOF 0 "end of file"
%token <std::string> IDENT "identifier"
%token <sluice::detail::NumberValue> NUMBER "number"
%token <sluice::detail::QuantityValue> QUANTITY "quantity"
%token <std::string> STRING "string"

// Reserved words.
%token IMPORT "'import'" LET "'let'" TOPOLOGY "'topology'" GRAPH "'graph'"
       WALK "'walk'" ALGORITHM "'algorithm'" SCHEDULE "'schedule'"
       MODEL "'model'" JOB "'job'" FOR "'for'" IF "'if'" THEN "'then'"
       ELSE "'else'" WHILE "'while'" REPEAT "'repeat'" AND "'and'" OR "'or'"
       NOT "'not'" TRUE "'true'" FALSE "'false'" DEMAND "'demand'"

// Soft keywords: keywords where the grammar needs them, names elsewhere.
%token <std::string> LINK "'link'" OVERRIDE "'override'"
       BANDWIDTHS "'bandwidths'" FROM "'from'" BETWEEN "'between'" IN "'in'"
       ON "'on'" LENGTH "'length'" START "'start'" STOP "'stop'"
       PROBABILITY "'probability'" WEIGHT "'weight'" STATE "'state'"
       UPDATE "'update'" VERTEX "'vertex'" FRONTIER "'frontier'"
       VERTICES "'vertices'" EDGES "'edges'" WHERE "'where'" OUTPUT "'output'"
       TO "'to'" OVER "'over'"

// Punctuation.
%token LBRACE "'{'" RBRACE "'}'" LPAREN "'('" RPAREN "')'" LBRACKET "'['"
       RBRACKET "']'" COMMA "','" SEMI "';'" COLON "':'" DOT "'.'"
       DOTDOT "'..'" ARROW "'->'" BIARROW "'<->'" ASSIGN "'='" EQ "'=='"
       NE "'!='" LT "'<'" LE "'<='" GT "'>'" GE "'>='" PLUS "'+'" MINUS "'-'"
       STAR "'*'" SLASH "'/'" PERCENT "'%'" PLUSEQ "'+='" MINUSEQ "'-='"
       STAREQ "'*='" AT "'@'" BANG "'!'" ANDAND "'&&'" OROR "'||'"

//===----------------------------------------------------------------------===//
// Nonterminal types
//===----------------------------------------------------------------------===//

%type <ast::DeclPtr> decl import_decl let_decl topology_decl graph_decl
      walk_decl algorithm_decl schedule_decl model_decl job_decl demand_decl
%type <LetParts> let_core
%type <std::string> name soft_kw key expr_name lvalue_name job_action
%type <std::unique_ptr<ast::TypeRef>> opt_type
%type <ast::TypeRef> type
%type <std::vector<ast::Param>> opt_params param_seq
%type <ast::Param> param
%type <std::vector<ast::TopoItemPtr>> topo_body
%type <ast::TopoItemPtr> topo_item device link_item override_item
      bandwidths_item for_item
%type <ast::ExprPtr> opt_count opt_where expr or_expr and_expr not_expr
      cmp_expr add_expr mul_expr unary postfix primary
%type <std::vector<ast::Prop>> opt_props props prop_items prop_seq
%type <ast::Prop> prop
%type <ast::LinkDir> link_dir
%type <ast::Endpoint> endpoint
%type <ast::Segment> segment
%type <ast::NodePtr<ast::CallExpr>> call
%type <std::vector<ast::WalkItem>> walk_body
%type <std::unique_ptr<ast::WalkItem>> walk_item
%type <std::vector<ast::Binder>> binders binder_seq out_names
%type <ast::Block> block stmts
%type <ast::StmtPtr> stmt if_stmt
%type <ast::NodePtr<ast::VerticesStmt>> vertices_stmt
%type <ast::NodePtr<ast::EdgesStmt>> edges_stmt
%type <NameRef> opt_from
%type <ast::AssignOp> assign_op
%type <ScheduleBody> sched_body
%type <ast::BinaryOp> cmp_op
%type <std::vector<ast::ExprPtr>> expr_seq
%type <std::vector<ast::Arg>> args arg_seq
%type <ast::Arg> arg
%type <ast::NodePtr<ast::DemandDecl>> demand_body
%type <ast::DemandItem> demand_item
%type <std::vector<ast::DemandClause>> demand_clauses
%type <ast::DemandClause> demand_clause
%type <std::string> demand_word
%type <std::vector<ast::Endpoint>> demand_targets endpoint_seq

%start program

%%

//===----------------------------------------------------------------------===//
// program = { decl } ;
//===----------------------------------------------------------------------===//

program
  : %empty
  | program decl  { if ($2) ctx.module.decls.push_back(std::move($2)); }
  | program error
  | program error junk_group
  ;

decl
  : import_decl     { $$ = std::move($1); }
  | let_decl        { $$ = std::move($1); }
  | topology_decl   { $$ = std::move($1); }
  | graph_decl      { $$ = std::move($1); }
  | walk_decl       { $$ = std::move($1); }
  | algorithm_decl  { $$ = std::move($1); }
  | schedule_decl   { $$ = std::move($1); }
  | model_decl      { $$ = std::move($1); }
  | job_decl        { $$ = std::move($1); }
  | demand_decl     { $$ = std::move($1); }
  ;

// A declaration keyword ends error recovery: the next error is reported even
// if fewer than three tokens were shifted since the last one.
kw_import    : IMPORT     { yyerrok; } ;
kw_let       : LET        { yyerrok; } ;
kw_topology  : TOPOLOGY   { yyerrok; } ;
kw_graph     : GRAPH      { yyerrok; } ;
kw_walk      : WALK       { yyerrok; } ;
kw_algorithm : ALGORITHM  { yyerrok; } ;
kw_schedule  : SCHEDULE   { yyerrok; } ;
kw_model     : MODEL      { yyerrok; } ;
kw_job       : JOB        { yyerrok; } ;
kw_demand    : DEMAND     { yyerrok; } ;

// After an error, a braced group is skipped as a whole, so that its '}' does
// not end the enclosing body.
junk_group
  : LBRACE junk RBRACE
  ;

junk
  : %empty
  | junk junk_token
  | junk junk_group
  ;

junk_token
  : IDENT { } | NUMBER { } | QUANTITY { } | STRING { }
  | IMPORT | LET | TOPOLOGY | GRAPH | WALK | ALGORITHM | SCHEDULE | MODEL | JOB
  | DEMAND
  | FOR | IF | THEN | ELSE | WHILE | REPEAT | AND | OR | NOT | TRUE | FALSE
  | soft_kw { } | VERTEX { } | FRONTIER { } | VERTICES { } | EDGES { }
  | OUTPUT { }
  | LPAREN | RPAREN | LBRACKET | RBRACKET | COMMA | SEMI | COLON | DOT
  | DOTDOT | ARROW | BIARROW | ASSIGN | EQ | NE | LT | LE | GT | GE | PLUS
  | MINUS | STAR | SLASH | PERCENT | PLUSEQ | MINUSEQ | STAREQ | AT | BANG
  | ANDAND | OROR
  ;

//===----------------------------------------------------------------------===//
// Names. Soft keywords are names wherever that is unambiguous.
//===----------------------------------------------------------------------===//

soft_kw
  : LINK { $$ = std::move($1); } | OVERRIDE { $$ = std::move($1); }
  | BANDWIDTHS { $$ = std::move($1); } | FROM { $$ = std::move($1); }
  | BETWEEN { $$ = std::move($1); } | IN { $$ = std::move($1); }
  | ON { $$ = std::move($1); } | LENGTH { $$ = std::move($1); }
  | START { $$ = std::move($1); } | STOP { $$ = std::move($1); }
  | PROBABILITY { $$ = std::move($1); } | WEIGHT { $$ = std::move($1); }
  | STATE { $$ = std::move($1); } | UPDATE { $$ = std::move($1); }
  | WHERE { $$ = std::move($1); }
  | TO { $$ = std::move($1); } | OVER { $$ = std::move($1); }
  ;

// Any name: identifiers and every soft keyword.
name
  : IDENT     { $$ = std::move($1); }
  | soft_kw   { $$ = std::move($1); }
  | VERTEX    { $$ = std::move($1); }
  | FRONTIER  { $$ = std::move($1); }
  | VERTICES  { $$ = std::move($1); }
  | EDGES     { $$ = std::move($1); }
  | OUTPUT    { $$ = std::move($1); }
  ;

// A name in an expression: `edges(...)` would be ambiguous with the edges
// statement, so `edges` is not one.
expr_name
  : IDENT     { $$ = std::move($1); }
  | soft_kw   { $$ = std::move($1); }
  | VERTEX    { $$ = std::move($1); }
  | FRONTIER  { $$ = std::move($1); }
  | VERTICES  { $$ = std::move($1); }
  | OUTPUT    { $$ = std::move($1); }
  ;

// The target of an assignment: not a word that starts another statement.
lvalue_name
  : IDENT     { $$ = std::move($1); }
  | soft_kw   { $$ = std::move($1); }
  ;

// Property keys, named arguments and members: also the declaration keywords
// (`{ graph: g }`, `f(model: m)`, `x.model`).
key
  : name       { $$ = std::move($1); }
  | IMPORT     { $$ = "import"; }
  | TOPOLOGY   { $$ = "topology"; }
  | GRAPH      { $$ = "graph"; }
  | WALK       { $$ = "walk"; }
  | ALGORITHM  { $$ = "algorithm"; }
  | SCHEDULE   { $$ = "schedule"; }
  | MODEL      { $$ = "model"; }
  | JOB        { $$ = "job"; }
  | DEMAND     { $$ = "demand"; }
  ;

//===----------------------------------------------------------------------===//
// import = "import" STRING ;
// let    = "let" IDENT [ ":" type ] "=" expr ;
//===----------------------------------------------------------------------===//

import_decl
  : kw_import STRING {
      auto d = ctx.module.create<ImportDecl>(@$);
      d->path = std::move($2);
      d->pathRange = @2;
      $$ = std::move(d);
    }
  ;

let_core
  : kw_let name opt_type ASSIGN expr {
      $$ = LetParts{NameRef{std::move($2), @2}, std::move($3), std::move($5)};
    }
  ;

let_decl
  : let_core {
      auto d = ctx.module.create<LetDecl>(@$);
      d->name = std::move($1.name.name);
      d->nameRange = $1.name.range;
      d->type = std::move($1.type);
      d->value = std::move($1.value);
      $$ = std::move(d);
    }
  ;

opt_type
  : %empty      { $$ = nullptr; }
  | COLON type  { $$ = std::make_unique<ast::TypeRef>(std::move($2)); }
  ;

// type = IDENT | "[" type "]" ;
type
  : name {
      TypeRef t;
      t.name = std::move($1);
      t.range = @$;
      $$ = std::move(t);
    }
  | LBRACKET type RBRACKET {
      TypeRef t;
      t.element = std::make_unique<TypeRef>(std::move($2));
      t.range = @$;
      $$ = std::move(t);
    }
  ;

// params = "(" [ param { "," param } ] ")" ; (a trailing comma is accepted)
opt_params
  : %empty                          { }
  | LPAREN RPAREN                   { }
  | LPAREN param_seq RPAREN         { $$ = std::move($2); }
  | LPAREN param_seq COMMA RPAREN   { $$ = std::move($2); }
  ;

param_seq
  : param                   { $$.push_back(std::move($1)); }
  | param_seq COMMA param   { $$ = std::move($1); $$.push_back(std::move($3)); }
  ;

// param = IDENT ":" type [ "=" expr ] ;
param
  : name COLON type {
      Param p;
      p.name = std::move($1);
      p.range = @$;
      p.type = std::move($3);
      $$ = std::move(p);
    }
  | name COLON type ASSIGN expr {
      Param p;
      p.name = std::move($1);
      p.range = @$;
      p.type = std::move($3);
      p.defaultValue = std::move($5);
      $$ = std::move(p);
    }
  ;

//===----------------------------------------------------------------------===//
// topology = "topology" IDENT [ params ] "{" { topo_item [";"] } "}" ;
//===----------------------------------------------------------------------===//

topology_decl
  : kw_topology name opt_params LBRACE topo_body RBRACE {
      auto d = ctx.module.create<TopologyDecl>(@$);
      d->name = std::move($2);
      d->nameRange = @2;
      d->params = std::move($3);
      d->items = std::move($5);
      d->items.shrink_to_fit(); // a large topology: up to half is spare
      $$ = std::move(d);
    }
  ;

topo_body
  : %empty                { }
  | topo_body topo_item   { $$ = std::move($1); $$.push_back(std::move($2)); }
  | topo_body SEMI        { $$ = std::move($1); }
  | topo_body COMMA       { $$ = std::move($1); }
  | topo_body error       { $$ = std::move($1); }
  | topo_body error junk_group { $$ = std::move($1); }
  ;

// topo_item = device | link | override | bandwidths | for_topo | let ;
topo_item
  : device            { $$ = std::move($1); }
  | link_item         { $$ = std::move($1); }
  | override_item     { $$ = std::move($1); }
  | bandwidths_item   { $$ = std::move($1); }
  | for_item          { $$ = std::move($1); }
  | let_core          { $$ = letItem(ctx, @$, std::move($1)); }
  ;

// device = IDENT [ "(" args ")" ] IDENT [ "[" expr "]" ] [ props ] ;
device
  : IDENT name opt_count opt_props {
      auto d = ctx.module.create<DeviceItem>(@$);
      d->kind = ctx.module.arena.save($1);
      d->kindRange = @1;
      d->name = ctx.module.arena.save($2);
      d->nameRange = @2;
      d->count = std::move($3);
      d->props = std::move($4);
      $$ = std::move(d);
    }
  | IDENT LPAREN args RPAREN name opt_count opt_props {
      auto d = ctx.module.create<DeviceItem>(@$);
      d->kind = ctx.module.arena.save($1);
      d->kindRange = @1;
      d->args = std::move($3);
      d->hasArgs = true;
      d->name = ctx.module.arena.save($5);
      d->nameRange = @5;
      d->count = std::move($6);
      d->props = std::move($7);
      $$ = std::move(d);
    }
  ;

opt_count
  : %empty                   { $$ = nullptr; }
  | LBRACKET expr RBRACKET   { $$ = std::move($2); }
  ;

// link = "link" endpoint link_dir endpoint [ props ] ;
link_item
  : LINK endpoint link_dir endpoint opt_props {
      auto l = ctx.module.create<LinkItem>(@$);
      l->from = std::move($2);
      l->dir = $3;
      l->to = std::move($4);
      l->props = std::move($5);
      $$ = std::move(l);
    }
  ;

// override = "override" endpoint link_dir endpoint props ;
override_item
  : OVERRIDE endpoint link_dir endpoint props {
      auto l = ctx.module.create<LinkItem>(@$);
      l->isOverride = true;
      l->from = std::move($2);
      l->dir = $3;
      l->to = std::move($4);
      l->props = std::move($5);
      $$ = std::move(l);
    }
  ;

// bandwidths = "bandwidths" "from" STRING "between" endpoint ;
bandwidths_item
  : BANDWIDTHS FROM STRING BETWEEN endpoint {
      auto b = ctx.module.create<BandwidthsItem>(@$);
      b->path = std::move($3);
      b->pathRange = @3;
      b->devices = std::move($5);
      $$ = std::move(b);
    }
  ;

// for_topo = "for" IDENT "in" expr ".." expr "{" { topo_item [";"] } "}" ;
for_item
  : FOR name IN expr DOTDOT expr LBRACE topo_body RBRACE {
      auto f = ctx.module.create<ForItem>(@$);
      f->var = std::move($2);
      f->varRange = @2;
      f->lo = std::move($4);
      f->hi = std::move($6);
      f->body = std::move($8);
      $$ = std::move(f);
    }
  ;

// link_dir = "->" | "<->" ;
link_dir
  : ARROW     { $$ = LinkDir::Forward; }
  | BIARROW   { $$ = LinkDir::Both; }
  ;

// endpoint = segment { "." segment } ;
endpoint
  : segment {
      $$.range = @$;
      $$.segments.push_back(std::move($1));
    }
  | endpoint DOT segment {
      $$ = std::move($1);
      $$.range = @$;
      $$.segments.push_back(std::move($3));
    }
  ;

// segment = IDENT [ "[" index "]" ] ; index = "*" | expr [ ".." expr ] ;
segment
  : name {
      $$.name = std::move($1);
      $$.range = @$;
    }
  | name LBRACKET STAR RBRACKET {
      $$.name = std::move($1);
      $$.range = @$;
      $$.indexKind = Segment::IndexKind::All;
    }
  | name LBRACKET expr RBRACKET {
      $$.name = std::move($1);
      $$.range = @$;
      $$.indexKind = Segment::IndexKind::Single;
      $$.lo = std::move($3);
    }
  | name LBRACKET expr DOTDOT expr RBRACKET {
      $$.name = std::move($1);
      $$.range = @$;
      $$.indexKind = Segment::IndexKind::Range;
      $$.lo = std::move($3);
      $$.hi = std::move($5);
    }
  ;

// props = "{" [ prop { "," prop } [ "," ] ] "}" ;
opt_props
  : %empty   { }
  | props    { $$ = std::move($1); }
  ;

props
  : LBRACE prop_items RBRACE   { $$ = std::move($2); }
  ;

prop_items
  : %empty           { }
  | prop_seq         { $$ = std::move($1); }
  | prop_seq COMMA   { $$ = std::move($1); }
  ;

prop_seq
  : prop                  { $$.push_back(std::move($1)); }
  | prop_seq COMMA prop   { $$ = std::move($1); $$.push_back(std::move($3)); }
  | error                 { }
  | prop_seq COMMA error  { $$ = std::move($1); }
  ;

// prop = IDENT ":" expr ;
prop
  : key COLON expr {
      $$.name = std::move($1);
      $$.nameRange = @1;
      $$.value = std::move($3);
    }
  ;

//===----------------------------------------------------------------------===//
// graph = "graph" IDENT "=" IDENT "(" args ")" ;
// model = "model" IDENT "=" IDENT "(" args ")" ;
// job   = "job" IDENT "=" IDENT IDENT "on" IDENT [ props ] ;
//===----------------------------------------------------------------------===//

graph_decl
  : kw_graph name ASSIGN call {
      auto d = ctx.module.create<GraphDecl>(@$);
      d->name = std::move($2);
      d->nameRange = @2;
      d->source = std::move($4);
      $$ = std::move(d);
    }
  ;

model_decl
  : kw_model name ASSIGN call {
      auto d = ctx.module.create<ModelDecl>(@$);
      d->name = std::move($2);
      d->nameRange = @2;
      d->ctor = std::move($4);
      $$ = std::move(d);
    }
  ;

call
  : name LPAREN args RPAREN {
      $$ = makeCall(ctx, @$, NameRef{std::move($1), @1}, std::move($3));
    }
  ;

job_decl
  : kw_job name ASSIGN job_action name ON name opt_props {
      auto d = ctx.module.create<JobDecl>(@$);
      d->name = std::move($2);
      d->nameRange = @2;
      d->action = std::move($4);
      d->actionRange = @4;
      d->subject = std::move($5);
      d->subjectRange = @5;
      d->target = std::move($7);
      d->targetRange = @7;
      d->props = std::move($8);
      $$ = std::move(d);
    }
  ;

//===----------------------------------------------------------------------===//
// demand      = "demand" IDENT "on" IDENT "{" { demand_part [ "," | ";" ] } "}" ;
// demand_part = IDENT ":" expr
//             | IDENT expr demand_clause { demand_clause } [ props ] ;
// demand_clause = ( "from" | "to" | "over" ) targets ;
// targets     = endpoint | "[" endpoint { "," endpoint } [ "," ] "]" ;
//===----------------------------------------------------------------------===//

demand_decl
  : kw_demand name ON name LBRACE demand_body RBRACE {
      NodePtr<DemandDecl> d = std::move($6);
      d->range = @$;
      d->name = std::move($2);
      d->nameRange = @2;
      d->topology = std::move($4);
      d->topologyRange = @4;
      $$ = std::move(d);
    }
  ;

demand_body
  : %empty { $$ = ctx.module.create<DemandDecl>(@$); }
  | demand_body demand_item {
      $$ = std::move($1);
      $$->items.push_back(std::move($2));
    }
  | demand_body IDENT COLON expr {
      $$ = std::move($1);
      Prop p;
      p.name = std::move($2);
      p.nameRange = @2;
      p.value = std::move($4);
      $$->props.push_back(std::move(p));
    }
  | demand_body SEMI        { $$ = std::move($1); }
  | demand_body COMMA       { $$ = std::move($1); }
  | demand_body error       { $$ = std::move($1); }
  | demand_body error junk_group { $$ = std::move($1); }
  ;

demand_item
  : IDENT expr demand_clauses {
      $$.kind = std::move($1);
      $$.kindRange = @1;
      $$.bytes = std::move($2);
      $$.clauses = std::move($3);
      $$.range = @$;
    }
  | IDENT expr demand_clauses props {
      $$.kind = std::move($1);
      $$.kindRange = @1;
      $$.bytes = std::move($2);
      $$.clauses = std::move($3);
      $$.props = std::move($4);
      $$.hasProps = true;
      $$.propsRange = @4;
      $$.range = @$;
    }
  ;

demand_clauses
  : demand_clause                  { $$.push_back(std::move($1)); }
  | demand_clauses demand_clause   { $$ = std::move($1); $$.push_back(std::move($2)); }
  ;

demand_clause
  : demand_word demand_targets {
      $$.word = std::move($1);
      $$.wordRange = @1;
      $$.endpoints = std::move($2);
      $$.range = @$;
    }
  ;

demand_word
  : FROM   { $$ = std::move($1); }
  | TO     { $$ = std::move($1); }
  | OVER   { $$ = std::move($1); }
  ;

demand_targets
  : endpoint                                { $$.push_back(std::move($1)); }
  | LBRACKET endpoint_seq RBRACKET          { $$ = std::move($2); }
  | LBRACKET endpoint_seq COMMA RBRACKET    { $$ = std::move($2); }
  ;

endpoint_seq
  : endpoint                       { $$.push_back(std::move($1)); }
  | endpoint_seq COMMA endpoint    { $$ = std::move($1); $$.push_back(std::move($3)); }
  ;

// `walk` is a declaration keyword but also the action of a walk job.
job_action
  : name   { $$ = std::move($1); }
  | WALK   { $$ = "walk"; }
  ;

//===----------------------------------------------------------------------===//
// walk = "walk" IDENT [ params ] "on" IDENT "{" { walk_item [";"] } "}" ;
//===----------------------------------------------------------------------===//

walk_decl
  : kw_walk name opt_params ON name LBRACE walk_body RBRACE {
      auto d = ctx.module.create<WalkDecl>(@$);
      d->name = std::move($2);
      d->nameRange = @2;
      d->params = std::move($3);
      d->graph = std::move($5);
      d->graphRange = @5;
      d->items = std::move($7);
      $$ = std::move(d);
    }
  ;

walk_body
  : %empty               { }
  | walk_body walk_item  { $$ = std::move($1); $$.push_back(std::move(*$2)); }
  | walk_body SEMI       { $$ = std::move($1); }
  | walk_body COMMA      { $$ = std::move($1); }
  | walk_body error      { $$ = std::move($1); }
  | walk_body error junk_group { $$ = std::move($1); }
  ;

walk_item
  : LENGTH expr {
      $$ = std::make_unique<WalkItem>(WalkItem::Kind::Length, @$);
      $$->value = std::move($2);
    }
  | START expr {
      $$ = std::make_unique<WalkItem>(WalkItem::Kind::Start, @$);
      $$->value = std::move($2);
    }
  | STOP PROBABILITY expr {
      $$ = std::make_unique<WalkItem>(WalkItem::Kind::StopProbability, @$);
      $$->value = std::move($3);
    }
  | STOP binders ASSIGN expr {
      $$ = std::make_unique<WalkItem>(WalkItem::Kind::StopFn, @$);
      $$->binders = std::move($2);
      $$->value = std::move($4);
    }
  | WEIGHT binders ASSIGN expr {
      $$ = std::make_unique<WalkItem>(WalkItem::Kind::WeightFn, @$);
      $$->binders = std::move($2);
      $$->value = std::move($4);
    }
  | STATE name COLON type ASSIGN expr {
      $$ = std::make_unique<WalkItem>(WalkItem::Kind::State, @$);
      $$->name = std::move($2);
      $$->nameRange = @2;
      $$->type = std::make_unique<ast::TypeRef>(std::move($4));
      $$->value = std::move($6);
    }
  | UPDATE binders block {
      $$ = std::make_unique<WalkItem>(WalkItem::Kind::Update, @$);
      $$->binders = std::move($2);
      $$->body = std::move($3);
    }
  | let_core {
      $$ = std::make_unique<WalkItem>(WalkItem::Kind::Let, @$);
      $$->name = std::move($1.name.name);
      $$->nameRange = $1.name.range;
      $$->type = std::move($1.type);
      $$->value = std::move($1.value);
    }
  ;

// binders = "(" [ IDENT { "," IDENT } ] ")" ;
binders
  : LPAREN RPAREN              { }
  | LPAREN binder_seq RPAREN   { $$ = std::move($2); }
  ;

binder_seq
  : name                    { $$.push_back(Binder{std::move($1), @1}); }
  | binder_seq COMMA name   {
      $$ = std::move($1);
      $$.push_back(Binder{std::move($3), @3});
    }
  ;

//===----------------------------------------------------------------------===//
// algorithm = "algorithm" IDENT [ params ] "on" IDENT block ;
// block     = "{" { stmt [";"] } "}" ;
//===----------------------------------------------------------------------===//

algorithm_decl
  : kw_algorithm name opt_params ON name block {
      auto d = ctx.module.create<AlgorithmDecl>(@$);
      d->name = std::move($2);
      d->nameRange = @2;
      d->params = std::move($3);
      d->graph = std::move($5);
      d->graphRange = @5;
      d->body = std::move($6);
      $$ = std::move(d);
    }
  ;

block
  : LBRACE stmts RBRACE   { $$ = std::move($2); }
  ;

stmts
  : %empty       { }
  | stmts stmt   { $$ = std::move($1); if ($2) $$.push_back(std::move($2)); }
  | stmts SEMI   { $$ = std::move($1); }
  | stmts error  { $$ = std::move($1); }
  | stmts error junk_group { $$ = std::move($1); }
  ;

stmt
  : VERTEX name COLON type ASSIGN expr {
      auto s = ctx.module.create<VertexPropStmt>(@$);
      s->name = std::move($2);
      s->nameRange = @2;
      s->type = std::move($4);
      s->init = std::move($6);
      $$ = trackStmt(ctx, std::move(s), 1);
    }
  | VERTEX name COLON type {
      // No initial value: a vertex-typed property whose vertices start as
      // themselves (Sema refuses other types).
      auto s = ctx.module.create<VertexPropStmt>(@$);
      s->name = std::move($2);
      s->nameRange = @2;
      s->type = std::move($4);
      $$ = trackStmt(ctx, std::move(s), 1);
    }
  | FRONTIER name ASSIGN expr {
      auto s = ctx.module.create<FrontierStmt>(@$);
      s->name = std::move($2);
      s->nameRange = @2;
      s->init = std::move($4);
      $$ = trackStmt(ctx, std::move(s), 1);
    }
  | let_core {
      auto s = ctx.module.create<LetStmt>(@$);
      s->name = std::move($1.name.name);
      s->nameRange = $1.name.range;
      s->type = std::move($1.type);
      s->value = std::move($1.value);
      $$ = trackStmt(ctx, std::move(s), 1);
    }
  | REPEAT expr block {
      auto s = ctx.module.create<RepeatStmt>(@$);
      s->count = std::move($2);
      s->body = std::move($3);
      Block *body = &s->body;
      $$ = finishNested(ctx, std::move(s), {body});
    }
  | WHILE expr block {
      auto s = ctx.module.create<WhileStmt>(@$);
      s->cond = std::move($2);
      s->body = std::move($3);
      Block *body = &s->body;
      $$ = finishNested(ctx, std::move(s), {body});
    }
  | if_stmt           { $$ = std::move($1); }
  | vertices_stmt     {
      Block *body = &$1->body;
      $$ = finishNested(ctx, std::move($1), {body});
    }
  | AT name vertices_stmt {
      $3->label = std::move($2);
      $3->labelRange = join(@1, @2);
      $3->range = @$;
      Block *body = &$3->body;
      $$ = finishNested(ctx, std::move($3), {body});
    }
  | edges_stmt        {
      Block *body = &$1->body;
      $$ = finishNested(ctx, std::move($1), {body});
    }
  | AT name edges_stmt {
      $3->label = std::move($2);
      $3->labelRange = join(@1, @2);
      $3->range = @$;
      Block *body = &$3->body;
      $$ = finishNested(ctx, std::move($3), {body});
    }
  | OUTPUT out_names {
      auto s = ctx.module.create<OutputStmt>(@$);
      s->names = std::move($2);
      $$ = trackStmt(ctx, std::move(s), 1);
    }
  | lvalue_name assign_op expr {
      auto s = ctx.module.create<AssignStmt>(@$);
      s->target = std::move($1);
      s->targetRange = @1;
      s->op = $2;
      s->value = std::move($3);
      $$ = trackStmt(ctx, std::move(s), 1);
    }
  | lvalue_name LBRACKET expr RBRACKET assign_op expr {
      auto s = ctx.module.create<AssignStmt>(@$);
      s->target = std::move($1);
      s->targetRange = @1;
      s->index = std::move($3);
      s->op = $5;
      s->value = std::move($6);
      $$ = trackStmt(ctx, std::move(s), 1);
    }
  ;

// "if" expr block [ "else" ( block | if_stmt ) ]
if_stmt
  : IF expr block {
      auto s = ctx.module.create<IfStmt>(@$);
      s->cond = std::move($2);
      s->thenBody = std::move($3);
      Block *t = &s->thenBody;
      $$ = finishNested(ctx, std::move(s), {t});
    }
  | IF expr block ELSE block {
      auto s = ctx.module.create<IfStmt>(@$);
      s->cond = std::move($2);
      s->thenBody = std::move($3);
      s->elseBody = std::move($5);
      Block *t = &s->thenBody, *e = &s->elseBody;
      $$ = finishNested(ctx, std::move(s), {t, e});
    }
  | IF expr block ELSE if_stmt {
      auto s = ctx.module.create<IfStmt>(@$);
      s->cond = std::move($2);
      s->thenBody = std::move($3);
      s->elseBody.push_back(std::move($5));
      Block *t = &s->thenBody, *e = &s->elseBody;
      $$ = finishNested(ctx, std::move(s), {t, e});
    }
  ;

// [ label ] "vertices" binders [ "where" expr ] block
vertices_stmt
  : VERTICES binders opt_where block {
      $$ = ctx.module.create<VerticesStmt>(@$);
      $$->binders = std::move($2);
      $$->where = std::move($3);
      $$->body = std::move($4);
    }
  ;

// [ label ] [ IDENT "=" ] "edges" binders [ "from" IDENT ] [ "where" expr ]
// block
edges_stmt
  : EDGES binders opt_from opt_where block {
      $$ = ctx.module.create<EdgesStmt>(@$);
      $$->binders = std::move($2);
      $$->from = std::move($3.name);
      $$->fromRange = $3.range;
      $$->where = std::move($4);
      $$->body = std::move($5);
    }
  | lvalue_name ASSIGN EDGES binders opt_from opt_where block {
      $$ = ctx.module.create<EdgesStmt>(@$);
      $$->result = std::move($1);
      $$->resultRange = @1;
      $$->binders = std::move($4);
      $$->from = std::move($5.name);
      $$->fromRange = $5.range;
      $$->where = std::move($6);
      $$->body = std::move($7);
    }
  ;

opt_from
  : %empty      { }
  | FROM name   { $$ = NameRef{std::move($2), @2}; }
  ;

opt_where
  : %empty       { $$ = nullptr; }
  | WHERE expr   { $$ = std::move($2); }
  ;

out_names
  : name                   { $$.push_back(Binder{std::move($1), @1}); }
  | out_names COMMA name   {
      $$ = std::move($1);
      $$.push_back(Binder{std::move($3), @3});
    }
  ;

// assign_op = "=" | "+=" | "-=" | "*=" | "min=" | "max=" ;
assign_op
  : ASSIGN    { $$ = AssignOp::Set; }
  | PLUSEQ    { $$ = AssignOp::Add; }
  | MINUSEQ   { $$ = AssignOp::Sub; }
  | STAREQ    { $$ = AssignOp::Mul; }
  | IDENT ASSIGN {
      if ($1 == "min") {
        $$ = AssignOp::Min;
      } else if ($1 == "max") {
        $$ = AssignOp::Max;
      } else {
        ctx.error(@$, "unknown assignment operator '" + $1 +
                          "=', expected '=', '+=', '-=', '*=', 'min=' or "
                          "'max='");
        $$ = AssignOp::Set;
      }
    }
  ;

//===----------------------------------------------------------------------===//
// schedule = "schedule" IDENT "{" { sched_item [ "," | ";" ] } "}" ;
// sched_item = prop | label props ;
//===----------------------------------------------------------------------===//

schedule_decl
  : kw_schedule name LBRACE sched_body RBRACE {
      auto d = ctx.module.create<ScheduleDecl>(@$);
      d->name = std::move($2);
      d->nameRange = @2;
      d->props = std::move($4.props);
      d->labeled = std::move($4.labeled);
      $$ = std::move(d);
    }
  ;

sched_body
  : %empty               { }
  | sched_body prop      { $$ = std::move($1); $$.props.push_back(std::move($2)); }
  | sched_body AT name props {
      $$ = std::move($1);
      ScheduleDecl::Labeled l;
      l.label = std::move($3);
      l.labelRange = join(@2, @3);
      l.props = std::move($4);
      $$.labeled.push_back(std::move(l));
    }
  | sched_body COMMA     { $$ = std::move($1); }
  | sched_body SEMI      { $$ = std::move($1); }
  | sched_body error     { $$ = std::move($1); }
  | sched_body error junk_group { $$ = std::move($1); }
  ;

//===----------------------------------------------------------------------===//
// Expressions, lowest to highest precedence.
//===----------------------------------------------------------------------===//

// expr = "if" expr "then" expr "else" expr | or_expr ;
expr
  : IF expr THEN expr ELSE expr {
      $$ = makeIf(ctx, @$, std::move($2), std::move($4), std::move($6));
    }
  | or_expr   { $$ = std::move($1); }
  ;

or_expr
  : and_expr   { $$ = std::move($1); }
  | or_expr OR and_expr {
      $$ = makeBinary(ctx, BinaryOp::Or, @$, @2, std::move($1), std::move($3));
    }
  | or_expr OROR and_expr {
      $$ = makeBinary(ctx, BinaryOp::Or, @$, @2, std::move($1), std::move($3));
    }
  ;

and_expr
  : not_expr   { $$ = std::move($1); }
  | and_expr AND not_expr {
      $$ = makeBinary(ctx, BinaryOp::And, @$, @2, std::move($1), std::move($3));
    }
  | and_expr ANDAND not_expr {
      $$ = makeBinary(ctx, BinaryOp::And, @$, @2, std::move($1), std::move($3));
    }
  ;

not_expr
  : NOT not_expr    { $$ = makeUnary(ctx, UnaryOp::Not, @$, std::move($2)); }
  | BANG not_expr   { $$ = makeUnary(ctx, UnaryOp::Not, @$, std::move($2)); }
  | cmp_expr        { $$ = std::move($1); }
  ;

// Comparisons do not chain: `a < b < c` is a syntax error.
cmp_expr
  : add_expr   { $$ = std::move($1); }
  | add_expr cmp_op add_expr {
      $$ = makeBinary(ctx, $2, @$, @2, std::move($1), std::move($3));
    }
  | add_expr cmp_op add_expr cmp_op add_expr {
      ctx.error(@4, "comparison operators do not chain; combine the "
                    "comparisons with 'and'");
      $$ = makeBinary(ctx, $2, join(@1, @3), @2, std::move($1), std::move($3));
    }
  ;

cmp_op
  : EQ { $$ = BinaryOp::Eq; } | NE { $$ = BinaryOp::Ne; }
  | LT { $$ = BinaryOp::Lt; } | LE { $$ = BinaryOp::Le; }
  | GT { $$ = BinaryOp::Gt; } | GE { $$ = BinaryOp::Ge; }
  ;

add_expr
  : mul_expr   { $$ = std::move($1); }
  | add_expr PLUS mul_expr {
      $$ = makeBinary(ctx, BinaryOp::Add, @$, @2, std::move($1), std::move($3));
    }
  | add_expr MINUS mul_expr {
      $$ = makeBinary(ctx, BinaryOp::Sub, @$, @2, std::move($1), std::move($3));
    }
  ;

mul_expr
  : unary   { $$ = std::move($1); }
  | mul_expr STAR unary {
      $$ = makeBinary(ctx, BinaryOp::Mul, @$, @2, std::move($1), std::move($3));
    }
  | mul_expr SLASH unary {
      $$ = makeBinary(ctx, BinaryOp::Div, @$, @2, std::move($1), std::move($3));
    }
  | mul_expr PERCENT unary {
      $$ = makeBinary(ctx, BinaryOp::Mod, @$, @2, std::move($1), std::move($3));
    }
  ;

unary
  : MINUS unary   { $$ = makeUnary(ctx, UnaryOp::Neg, @$, std::move($2)); }
  | postfix       { $$ = std::move($1); }
  ;

// postfix = primary { "[" expr "]" | "." IDENT } ;
postfix
  : primary   { $$ = std::move($1); }
  | postfix LBRACKET expr RBRACKET {
      $$ = makeIndex(ctx, @$, std::move($1), std::move($3));
    }
  | postfix DOT key {
      $$ = makeMember(ctx, @$, std::move($1), std::move($3));
    }
  ;

primary
  : NUMBER     { $$ = numberLiteral(ctx, @$, $1); }
  | QUANTITY   {
      $$ = leaf(ctx, ctx.module.create<QuantityLitExpr>(@$, $1.value,
                                                       std::move($1.unit)));
    }
  | STRING     { $$ = leaf(ctx, ctx.module.create<StringLitExpr>(@$, std::move($1))); }
  | TRUE       { $$ = leaf(ctx, ctx.module.create<BoolLitExpr>(@$, true)); }
  | FALSE      { $$ = leaf(ctx, ctx.module.create<BoolLitExpr>(@$, false)); }
  | expr_name  { $$ = leaf(ctx, ctx.module.create<NameExpr>(@$, std::move($1))); }
  | expr_name LPAREN args RPAREN {
      $$ = makeCall(ctx, @$, NameRef{std::move($1), @1}, std::move($3));
    }
  | LPAREN expr RPAREN           { $$ = std::move($2); }
  | LBRACKET RBRACKET            { $$ = makeList(ctx, @$, {}); }
  | LBRACKET expr_seq RBRACKET   { $$ = makeList(ctx, @$, std::move($2)); }
  | LBRACKET expr_seq COMMA RBRACKET {
      $$ = makeList(ctx, @$, std::move($2));
    }
  ;

expr_seq
  : expr                  { $$.push_back(std::move($1)); }
  | expr_seq COMMA expr   { $$ = std::move($1); $$.push_back(std::move($3)); }
  ;

// args = [ arg { "," arg } ] ; arg = [ IDENT ":" ] expr ;
args
  : %empty          { }
  | arg_seq         { $$ = std::move($1); }
  | arg_seq COMMA   { $$ = std::move($1); }
  ;

arg_seq
  : arg                 { $$.push_back(std::move($1)); }
  | arg_seq COMMA arg   { $$ = std::move($1); $$.push_back(std::move($3)); }
  ;

arg
  : expr             { $$.value = std::move($1); }
  | key COLON expr   {
      $$.name = std::move($1);
      $$.nameRange = @1;
      $$.value = std::move($3);
    }
  ;

%%

//===----------------------------------------------------------------------===//
// ParseContext
//===----------------------------------------------------------------------===//

namespace sluice::detail {

static mlir::Location toLoc(ParseContext &ctx, const ast::SourceLoc &loc) {
  return mlir::FileLineColLoc::get(ctx.mlirCtx, ctx.file, loc.line, loc.col);
}

void ParseContext::error(const ast::SourceRange &range,
                         const llvm::Twine &message) {
  ++errorCount;
  mlir::emitError(toLoc(*this, range.begin)) << message.str();
}

void ParseContext::errorWithNote(const ast::SourceRange &range,
                                 const llvm::Twine &message,
                                 const ast::SourceRange &noteRange,
                                 const llvm::Twine &note) {
  ++errorCount;
  mlir::InFlightDiagnostic diag = mlir::emitError(toLoc(*this, range.begin))
                                  << message.str();
  diag.attachNote(toLoc(*this, noteRange.begin)) << note.str();
}

void ParseContext::advance(const char *text, size_t length) {
  tokLine = tokEndLine = line;
  tokCol = tokEndCol = col;
  for (size_t i = 0; i < length; ++i) {
    tokEndLine = line;
    tokEndCol = col;
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
}

void ParseContext::retract(const char *text, size_t length) {
  line = tokLine;
  col = tokCol;
  advance(text, length);
}

ast::SourceRange ParseContext::tokenRange() const {
  return ast::SourceRange{ast::SourceLoc{file, tokLine, tokCol},
                          ast::SourceLoc{file, tokEndLine, tokEndCol}};
}

ast::SourceRange ParseContext::subRange(const char *text, size_t offset,
                                        size_t length) const {
  unsigned l = tokLine, c = tokCol;
  ast::SourceRange r;
  for (size_t i = 0; i < offset + length; ++i) {
    if (i == offset)
      r.begin = ast::SourceLoc{file, l, c};
    r.end = ast::SourceLoc{file, l, c};
    if (text[i] == '\n') {
      ++l;
      c = 1;
    } else {
      ++c;
    }
  }
  if (length == 0) {
    r.begin = ast::SourceLoc{file, l, c};
    r.end = r.begin;
  }
  return r;
}

unsigned ParseContext::height(const void *node) const {
  if (!node)
    return 0;
  auto it = heights.find(node);
  return it == heights.end() ? 1 : it->second;
}

bool ParseContext::checkHeight(unsigned h, const ast::SourceRange &range) {
  if (h <= kMaxNesting)
    return true;
  if (!stopped) {
    error(range, "nesting too deep (more than " + llvm::Twine(kMaxNesting) +
                     " levels)");
    stopped = true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Syntax error messages
//===----------------------------------------------------------------------===//

using Kind = Parser::symbol_kind_type;
using K = Parser::symbol_kind;

/// Groups of tokens that are named together when all of them are expected.
struct TokenGroup {
  const char *name;
  std::vector<Kind> members;
};

static const std::vector<TokenGroup> &tokenGroups() {
  static const std::vector<Kind> softNames = {
      K::S_LINK,  K::S_OVERRIDE,    K::S_BANDWIDTHS, K::S_FROM,
      K::S_BETWEEN, K::S_IN,        K::S_ON,         K::S_LENGTH,
      K::S_START, K::S_STOP,        K::S_PROBABILITY, K::S_WEIGHT,
      K::S_STATE, K::S_UPDATE,      K::S_WHERE, K::S_TO, K::S_OVER};
  auto with = [](std::vector<Kind> a, const std::vector<Kind> &b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  static const std::vector<TokenGroup> groups = {
      {"expression",
       with({K::S_NUMBER, K::S_QUANTITY, K::S_STRING, K::S_TRUE, K::S_FALSE,
             K::S_IDENT, K::S_LPAREN, K::S_LBRACKET, K::S_MINUS, K::S_NOT,
             K::S_BANG, K::S_IF, K::S_VERTEX, K::S_FRONTIER, K::S_VERTICES,
             K::S_OUTPUT},
            softNames)},
      {"declaration",
       {K::S_IMPORT, K::S_LET, K::S_TOPOLOGY, K::S_GRAPH, K::S_WALK,
        K::S_ALGORITHM, K::S_SCHEDULE, K::S_MODEL, K::S_JOB, K::S_DEMAND}},
      {"statement",
       with({K::S_IDENT, K::S_VERTEX, K::S_FRONTIER, K::S_LET, K::S_REPEAT,
             K::S_WHILE, K::S_IF, K::S_VERTICES, K::S_EDGES, K::S_AT,
             K::S_OUTPUT},
            softNames)},
      {"topology item",
       {K::S_IDENT, K::S_LINK, K::S_OVERRIDE, K::S_BANDWIDTHS, K::S_FOR,
        K::S_LET}},
      {"walk item",
       {K::S_LENGTH, K::S_START, K::S_STOP, K::S_WEIGHT, K::S_STATE,
        K::S_UPDATE, K::S_LET}},
      {"operator",
       {K::S_PLUS, K::S_MINUS, K::S_STAR, K::S_SLASH, K::S_PERCENT, K::S_EQ,
        K::S_NE, K::S_LT, K::S_LE, K::S_GT, K::S_GE, K::S_AND, K::S_OR,
        K::S_ANDAND, K::S_OROR, K::S_LBRACKET, K::S_DOT}},
      {"operator",
       {K::S_PLUS, K::S_MINUS, K::S_STAR, K::S_SLASH, K::S_PERCENT, K::S_AND,
        K::S_OR, K::S_ANDAND, K::S_OROR, K::S_LBRACKET, K::S_DOT}},
      {"identifier",
       with({K::S_IDENT, K::S_VERTEX, K::S_FRONTIER, K::S_VERTICES,
             K::S_EDGES, K::S_OUTPUT},
            softNames)},
      {"identifier", with({K::S_IDENT}, softNames)},
  };
  return groups;
}

/// How a token is named in messages: `identifier 'foo'`, `number`, `'{'`.
static std::string describe(const Parser::symbol_type &tok) {
  Kind kind = tok.kind();
  std::string name = Parser::symbol_name(kind);
  switch (kind) {
  case K::S_IDENT:
    return name + " '" + tok.value.as<std::string>() + "'";
  case K::S_YYUNDEF:
    return "invalid token";
  default:
    return name;
  }
}

void Parser::error(const location_type &loc, const std::string &message) {
  ctx.error(loc, message);
}

void Parser::report_syntax_error(const context &yyctx) const {
  // A token inserted by the filter follows an error it already reported, and
  // nothing is reported after "nesting too deep".
  if (ctx.lastSynthetic || ctx.stopped) {
    ++ctx.errorCount;
    return;
  }
  std::string message = "unexpected " + describe(yyctx.lookahead());

  std::vector<Kind> expected(YYNTOKENS);
  int n = yyctx.expected_tokens(expected.data(), YYNTOKENS);
  expected.resize(static_cast<size_t>(std::max(n, 0)));

  // Name groups of tokens ("expression", "declaration", ...), then drop the
  // optional separators, and list what is left if it is short.
  std::vector<std::string> names;
  auto has = [&](Kind k) {
    return std::find(expected.begin(), expected.end(), k) != expected.end();
  };
  for (const TokenGroup &g : tokenGroups()) {
    if (!std::all_of(g.members.begin(), g.members.end(), has))
      continue;
    names.push_back(g.name);
    auto inGroup = [&](Kind k) {
      return std::find(g.members.begin(), g.members.end(), k) !=
             g.members.end();
    };
    expected.erase(std::remove_if(expected.begin(), expected.end(), inGroup),
                   expected.end());
  }
  // Inside bodies the optional separators are noise.
  auto named = [&](llvm::StringRef group) {
    return std::find(names.begin(), names.end(), group) != names.end();
  };
  bool inBody = named("topology item") || named("walk item") ||
                named("statement");
  for (Kind k : expected) {
    if (inBody && (k == K::S_SEMI || k == K::S_COMMA))
      continue;
    if (k == K::S_YYEOF && named("declaration"))
      continue;
    names.push_back(Parser::symbol_name(k));
  }
  if (!names.empty() && names.size() <= 5) {
    message += ", expected ";
    for (size_t i = 0; i < names.size(); ++i) {
      if (i)
        message += i + 1 == names.size() ? " or " : ", ";
      message += names[i];
    }
  }
  ctx.error(yyctx.location(), message);
}

//===----------------------------------------------------------------------===//
// Token filter
//===----------------------------------------------------------------------===//

static bool isDeclKeyword(Kind k) {
  switch (k) {
  case K::S_IMPORT:
  case K::S_TOPOLOGY:
  case K::S_GRAPH:
  case K::S_WALK:
  case K::S_ALGORITHM:
  case K::S_SCHEDULE:
  case K::S_MODEL:
  case K::S_JOB:
  case K::S_DEMAND:
    return true;
  default:
    return false;
  }
}

static bool isNameToken(Kind k) {
  switch (k) {
  case K::S_IDENT:
  case K::S_LINK:
  case K::S_OVERRIDE:
  case K::S_BANDWIDTHS:
  case K::S_FROM:
  case K::S_BETWEEN:
  case K::S_IN:
  case K::S_ON:
  case K::S_LENGTH:
  case K::S_START:
  case K::S_STOP:
  case K::S_PROBABILITY:
  case K::S_WEIGHT:
  case K::S_STATE:
  case K::S_UPDATE:
  case K::S_VERTEX:
  case K::S_FRONTIER:
  case K::S_VERTICES:
  case K::S_EDGES:
  case K::S_WHERE:
  case K::S_OUTPUT:
  case K::S_TO:
  case K::S_OVER:
    return true;
  default:
    return false;
  }
}

/// The next token from the scanner, or one peeked earlier.
static ParseContext::Pending nextRaw(ParseContext &ctx) {
  if (!ctx.pending.empty()) {
    ParseContext::Pending p = std::move(ctx.pending.front());
    ctx.pending.pop_front();
    return p;
  }
  if (ctx.sawEnd || ctx.stopped) {
    ast::SourceLoc at =
        ctx.haveLastRange
            ? ast::SourceLoc{ctx.file, ctx.lastRange.end.line,
                             ctx.lastRange.end.col}
            : ast::SourceLoc{ctx.file, 1, 0};
    ++at.col;
    return {Parser::make_YYEOF(ast::SourceRange{at, at}), false};
  }
  Parser::symbol_type tok = lexRaw(ctx.scanner);
  if (tok.kind() == K::S_YYEOF) {
    ctx.sawEnd = true;
    // End of file: located just after the last token.
    ast::SourceLoc at =
        ctx.haveLastRange
            ? ast::SourceLoc{ctx.file, ctx.lastRange.end.line,
                             ctx.lastRange.end.col}
            : ast::SourceLoc{ctx.file, 1, 0};
    ++at.col;
    tok.location = ast::SourceRange{at, at};
  }
  return {std::move(tok), false};
}

/// Reports the innermost unclosed bracket at `where` and queues closers for
/// every open bracket before `next`.
static void closeAll(ParseContext &ctx, const ast::SourceRange &where,
                     ParseContext::Pending next) {
  const ParseContext::OpenBracket &inner = ctx.brackets.back();
  std::string closer = std::string("'") + inner.close + "'";
  if (!inner.label.empty())
    ctx.errorWithNote(where, "expected " + closer + " to close " + inner.label,
                      inner.range,
                      inner.label + " starts here");
  else
    ctx.errorWithNote(where, "expected " + closer, inner.range,
                      std::string("to match this '") + inner.open + "'");
  // Queue, in front of anything peeked: the closers, innermost first, then
  // the token itself.
  ctx.pending.push_front(std::move(next));
  for (const ParseContext::OpenBracket &b : ctx.brackets) {
    switch (b.close) {
    case '}':
      ctx.pending.push_front({Parser::make_RBRACE(where), true});
      break;
    case ')':
      ctx.pending.push_front({Parser::make_RPAREN(where), true});
      break;
    default:
      ctx.pending.push_front({Parser::make_RBRACKET(where), true});
      break;
    }
  }
}

static void openBracket(ParseContext &ctx, Kind kind,
                        const ast::SourceRange &range) {
  ParseContext::OpenBracket b;
  b.range = range;
  switch (kind) {
  case K::S_LBRACE:
    b.closer = K::S_RBRACE;
    b.open = '{';
    b.close = '}';
    if (ctx.brackets.empty() && !ctx.declKeyword.empty() &&
        !ctx.declName.empty())
      b.label = ctx.declKeyword + " '" + ctx.declName + "'";
    break;
  case K::S_LPAREN:
    b.closer = K::S_RPAREN;
    b.open = '(';
    b.close = ')';
    break;
  default:
    b.closer = K::S_RBRACKET;
    b.open = '[';
    b.close = ']';
    break;
  }
  ctx.brackets.push_back(std::move(b));
}

static void closeBracket(ParseContext &ctx, Kind closer) {
  for (size_t i = ctx.brackets.size(); i-- > 0;) {
    if (ctx.brackets[i].closer == closer) {
      ctx.brackets.resize(i);
      return;
    }
  }
}

Parser::symbol_type yylex(ParseContext &ctx) {
  ParseContext::Pending p = nextRaw(ctx);
  Kind kind = p.token.kind();

  if (!p.synthetic && !ctx.brackets.empty()) {
    // End of file inside brackets, or a declaration keyword inside brackets
    // (but not a key such as `{ graph: g }` or a member `x.graph`).
    bool missingClosers = kind == K::S_YYEOF;
    if (!missingClosers && isDeclKeyword(kind) && ctx.lastKind != K::S_DOT) {
      ParseContext::Pending next = nextRaw(ctx);
      missingClosers = next.token.kind() != K::S_COLON;
      ctx.pending.push_front(std::move(next));
    }
    if (missingClosers && !ctx.stopped) {
      ast::SourceRange where = p.token.location;
      closeAll(ctx, where, std::move(p));
      // The first closer; the filter does not look at synthetic tokens.
      return yylex(ctx);
    }
  }

  // Remember the declaration being read at depth 0, to label its brace.
  if (ctx.brackets.empty()) {
    bool walkAction = kind == K::S_WALK && ctx.lastKind == K::S_ASSIGN;
    if ((isDeclKeyword(kind) || kind == K::S_LET) && !walkAction) {
      std::string spelled = Parser::symbol_name(kind);
      // "'topology'" -> "topology"
      ctx.declKeyword = spelled.substr(1, spelled.size() - 2);
      ctx.declName.clear();
      ctx.wantDeclName = true;
    } else if (ctx.wantDeclName && isNameToken(kind)) {
      ctx.declName = p.token.value.as<std::string>();
      ctx.wantDeclName = false;
    } else {
      ctx.wantDeclName = false;
    }
  }

  switch (kind) {
  case K::S_LBRACE:
  case K::S_LPAREN:
  case K::S_LBRACKET:
    if (ctx.brackets.size() >= kMaxNesting && !ctx.stopped) {
      ctx.error(p.token.location, "nesting too deep (more than " +
                                      llvm::Twine(kMaxNesting) + " levels)");
      ctx.stopped = true;
    }
    if (ctx.stopped)
      return Parser::make_YYEOF(p.token.location);
    openBracket(ctx, kind, p.token.location);
    break;
  case K::S_RBRACE:
  case K::S_RPAREN:
  case K::S_RBRACKET:
    closeBracket(ctx, kind);
    break;
  default:
    break;
  }

  ctx.lastSynthetic = p.synthetic;
  ctx.lastKind = kind;
  if (kind != K::S_YYEOF && !p.synthetic) {
    ctx.lastRange = p.token.location;
    ctx.haveLastRange = true;
  }
  return std::move(p.token);
}

/// Creates ctx.scanner over `text`; reports files too large to scan.
static bool startScanner(ParseContext &ctx, llvm::StringRef text) {
  if (text.size() > kMaxFileSize) {
    ast::SourceLoc start{ctx.file, 1, 1};
    ctx.error(ast::SourceRange{start, start},
              "file too large (" + llvm::Twine(text.size()) +
                  " bytes; at most " + llvm::Twine(kMaxFileSize) + ")");
    return false;
  }
  ctx.scanner = createScanner(ctx, text);
  if (!ctx.scanner)
    llvm::report_bad_alloc_error("cannot allocate the Sluice scanner");
  return true;
}

mlir::FailureOr<size_t> lexAll(ParseContext &ctx, llvm::StringRef text) {
  if (!startScanner(ctx, text))
    return mlir::failure();
  size_t tokens = 0;
  while (lexRaw(ctx.scanner).kind() != K::S_YYEOF)
    ++tokens;
  destroyScanner(ctx.scanner);
  ctx.scanner = nullptr;
  return tokens;
}

bool parseBuffer(ParseContext &ctx, llvm::StringRef text) {
  if (!startScanner(ctx, text))
    return false;
  Parser parser(ctx);
  int rc = parser.parse();
  destroyScanner(ctx.scanner);
  ctx.scanner = nullptr;
  ctx.module.decls.shrink_to_fit(); // up to half is spare
  return rc == 0 && ctx.errorCount == 0;
}

} // namespace sluice::detail
