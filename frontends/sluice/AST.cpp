//===- AST.cpp - Sluice AST: spellings, types and the tree dump -----------===//
//
// The dump format (lit tests depend on it): one node per line, indented by
// two spaces per level, `<line:col-line:col>` ranges with an inclusive end
// and no file names. Children that need a role are printed with a prefix
// such as `count:` or `where:`. Expression types are appended (` : i64`)
// once Sema has filled them in.
//
//   TopologyDecl dgx <1:1-12:1>
//     DeviceItem kind=gpu name=gpu <2:3-2:40>
//       count: IntLit 8 <2:11-2:11>
//       Prop memory <2:16-2:29>
//         QuantityLit 80 GiB <2:24-2:29>
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/AST.h"

#include "support/NumberFormat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace sluice;
using namespace sluice::ast;

//===----------------------------------------------------------------------===//
// Spellings and types
//===----------------------------------------------------------------------===//

std::optional<std::string> ast::bareWord(const Expr *e) {
  if (auto *name = llvm::dyn_cast_or_null<NameExpr>(e))
    return name->name;
  auto *b = llvm::dyn_cast_or_null<BinaryExpr>(e);
  if (!b || b->op != BinaryOp::Sub)
    return std::nullopt;
  std::optional<std::string> lhs = bareWord(b->lhs.get());
  auto *rhs = llvm::dyn_cast_or_null<NameExpr>(b->rhs.get());
  if (!lhs || !rhs)
    return std::nullopt;
  // Written without spaces: `mtx-body`, not `mtx - body`.
  const SourceLoc &op = b->opRange.begin;
  if (b->lhs->range.end.line != op.line ||
      b->lhs->range.end.col + 1 != op.col ||
      rhs->range.begin.line != op.line || rhs->range.begin.col != op.col + 1)
    return std::nullopt;
  return *lhs + "-" + rhs->name;
}

llvm::StringRef ast::spell(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Not:
    return "not";
  }
  llvm_unreachable("unknown unary operator");
}

llvm::StringRef ast::spell(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::And:
    return "and";
  case BinaryOp::Or:
    return "or";
  }
  llvm_unreachable("unknown binary operator");
}

llvm::StringRef ast::spell(AssignOp op) {
  switch (op) {
  case AssignOp::Set:
    return "=";
  case AssignOp::Add:
    return "+=";
  case AssignOp::Sub:
    return "-=";
  case AssignOp::Mul:
    return "*=";
  case AssignOp::Min:
    return "min=";
  case AssignOp::Max:
    return "max=";
  }
  llvm_unreachable("unknown assignment operator");
}

static void collectReductions(const Block &block,
                              std::vector<const AssignStmt *> &out,
                              std::vector<std::string> &declared) {
  for (const StmtPtr &stmt : block) {
    if (!stmt)
      continue;
    if (auto *l = llvm::dyn_cast<LetStmt>(stmt.get()))
      declared.push_back(l->name);
    else if (auto *f = llvm::dyn_cast<FrontierStmt>(stmt.get()))
      declared.push_back(f->name);
    else if (auto *a = llvm::dyn_cast<AssignStmt>(stmt.get());
             a && !a->index && a->op != AssignOp::Set)
      out.push_back(a);
    else if (auto *r = llvm::dyn_cast<RepeatStmt>(stmt.get()))
      collectReductions(r->body, out, declared);
    else if (auto *w = llvm::dyn_cast<WhileStmt>(stmt.get()))
      collectReductions(w->body, out, declared);
    else if (auto *i = llvm::dyn_cast<IfStmt>(stmt.get())) {
      collectReductions(i->thenBody, out, declared);
      collectReductions(i->elseBody, out, declared);
    }
  }
}

std::vector<const AssignStmt *> ast::outerReductions(const Block &body) {
  std::vector<const AssignStmt *> all;
  std::vector<std::string> declared;
  collectReductions(body, all, declared);
  std::vector<const AssignStmt *> out;
  for (const AssignStmt *a : all)
    if (!llvm::is_contained(declared, a->target))
      out.push_back(a);
  return out;
}

bool Type::operator==(const Type &o) const {
  if (kind != o.kind)
    return false;
  if (kind == Kind::Quantity)
    return dim == o.dim;
  if (kind == Kind::List || kind == Kind::VertexProp) {
    if (!element || !o.element)
      return !element && !o.element;
    return *element == *o.element;
  }
  return true;
}

std::string Type::str() const {
  auto elementStr = [&] {
    return element ? element->str() : std::string("unknown");
  };
  switch (kind) {
  case Kind::Unknown:
    return "unknown";
  case Kind::Int:
    return "i64";
  case Kind::Float:
    return "f64";
  case Kind::Float32:
    return "f32";
  case Kind::Bool:
    return "bool";
  case Kind::String:
    return "string";
  case Kind::Quantity:
    return dim.name();
  case Kind::Vertex:
    return "vertex";
  case Kind::List:
    return "[" + elementStr() + "]";
  case Kind::Enum:
    return "option word";
  case Kind::Graph:
    return "graph";
  case Kind::Topology:
    return "topology";
  case Kind::Walk:
    return "walk";
  case Kind::Algorithm:
    return "algorithm";
  case Kind::Model:
    return "model";
  case Kind::Job:
    return "job";
  case Kind::Frontier:
    return "frontier";
  case Kind::VertexProp:
    return "vertex property of " + elementStr();
  }
  llvm_unreachable("unknown type kind");
}

//===----------------------------------------------------------------------===//
// Dump
//===----------------------------------------------------------------------===//

namespace {

void printEscaped(llvm::raw_ostream &os, llvm::StringRef s) {
  os << '"';
  for (char c : s) {
    switch (c) {
    case '"':
      os << "\\\"";
      break;
    case '\\':
      os << "\\\\";
      break;
    case '\n':
      os << "\\n";
      break;
    case '\t':
      os << "\\t";
      break;
    default:
      os << c;
    }
  }
  os << '"';
}

std::string typeRefStr(const TypeRef &t) {
  if (t.element)
    return "[" + typeRefStr(*t.element) + "]";
  return t.name;
}

std::string bindersStr(const std::vector<Binder> &binders) {
  std::string s = "(";
  for (size_t i = 0; i < binders.size(); ++i) {
    if (i)
      s += ", ";
    s += binders[i].name;
  }
  return s + ")";
}

class Dumper {
public:
  explicit Dumper(llvm::raw_ostream &os) : os(os) {}

  void decl(const Decl &d);

private:
  /// Starts a line: indentation and an optional role prefix.
  llvm::raw_ostream &line(llvm::StringRef role = "") {
    os.indent(2 * depth);
    if (!role.empty())
      os << role << ": ";
    return os;
  }
  void range(const SourceRange &r) {
    os << " <" << r.begin.line << ":" << r.begin.col << "-" << r.end.line
       << ":" << r.end.col << ">";
  }
  struct Nest {
    explicit Nest(Dumper &d) : d(d) { ++d.depth; }
    ~Nest() { --d.depth; }
    Dumper &d;
  };

  void expr(const Expr *e, llvm::StringRef role = "");
  void args(const std::vector<Arg> &args);
  void props(const std::vector<Prop> &props);
  void params(const std::vector<Param> &params);
  void endpoint(llvm::StringRef role, const Endpoint &ep);
  void topoItem(const TopoItem &item);
  void walkItem(const WalkItem &item);
  void block(const Block &b);
  void stmt(const Stmt &s);

  llvm::raw_ostream &os;
  unsigned depth = 0;
};

void Dumper::expr(const Expr *e, llvm::StringRef role) {
  if (!e) {
    line(role) << "<null>\n";
    return;
  }
  line(role);
  switch (e->getKind()) {
  case Expr::Kind::IntLit:
    os << "IntLit " << llvm::cast<IntLitExpr>(e)->value;
    break;
  case Expr::Kind::FloatLit:
    os << "FloatLit " << formatNumber(llvm::cast<FloatLitExpr>(e)->value);
    break;
  case Expr::Kind::QuantityLit: {
    auto *q = llvm::cast<QuantityLitExpr>(e);
    os << "QuantityLit " << formatNumber(q->value) << " " << q->unit;
    break;
  }
  case Expr::Kind::StringLit:
    os << "StringLit ";
    printEscaped(os, llvm::cast<StringLitExpr>(e)->value);
    break;
  case Expr::Kind::BoolLit:
    os << "BoolLit " << (llvm::cast<BoolLitExpr>(e)->value ? "true" : "false");
    break;
  case Expr::Kind::Name:
    os << "Name " << llvm::cast<NameExpr>(e)->name;
    break;
  case Expr::Kind::Call:
    os << "Call " << llvm::cast<CallExpr>(e)->callee;
    break;
  case Expr::Kind::Unary:
    os << "Unary " << spell(llvm::cast<UnaryExpr>(e)->op);
    break;
  case Expr::Kind::Binary:
    os << "Binary " << spell(llvm::cast<BinaryExpr>(e)->op);
    break;
  case Expr::Kind::If:
    os << "If";
    break;
  case Expr::Kind::Index:
    os << "Index";
    break;
  case Expr::Kind::Member:
    os << "Member " << llvm::cast<MemberExpr>(e)->member;
    break;
  case Expr::Kind::List:
    os << "List";
    break;
  }
  range(e->range);
  if (!e->type.isUnknown())
    os << " : " << e->type.str();
  os << "\n";

  Nest nest(*this);
  switch (e->getKind()) {
  case Expr::Kind::Call:
    args(llvm::cast<CallExpr>(e)->args);
    break;
  case Expr::Kind::Unary:
    expr(llvm::cast<UnaryExpr>(e)->operand.get());
    break;
  case Expr::Kind::Binary: {
    auto *b = llvm::cast<BinaryExpr>(e);
    expr(b->lhs.get());
    expr(b->rhs.get());
    break;
  }
  case Expr::Kind::If: {
    auto *i = llvm::cast<IfExpr>(e);
    expr(i->cond.get(), "cond");
    expr(i->thenExpr.get(), "then");
    expr(i->elseExpr.get(), "else");
    break;
  }
  case Expr::Kind::Index: {
    auto *i = llvm::cast<IndexExpr>(e);
    expr(i->base.get());
    expr(i->index.get(), "index");
    break;
  }
  case Expr::Kind::Member:
    expr(llvm::cast<MemberExpr>(e)->base.get());
    break;
  case Expr::Kind::List:
    for (const ExprPtr &elt : llvm::cast<ListExpr>(e)->elements)
      expr(elt.get());
    break;
  default:
    break;
  }
}

void Dumper::args(const std::vector<Arg> &args) {
  for (const Arg &a : args) {
    if (a.name.empty()) {
      expr(a.value.get());
      continue;
    }
    line() << "NamedArg " << a.name;
    range(SourceRange{a.nameRange.begin,
                      a.value ? a.value->range.end : a.nameRange.end});
    os << "\n";
    Nest nest(*this);
    expr(a.value.get());
  }
}

void Dumper::props(const std::vector<Prop> &props) {
  for (const Prop &p : props) {
    line() << "Prop " << p.name;
    range(SourceRange{p.nameRange.begin,
                      p.value ? p.value->range.end : p.nameRange.end});
    os << "\n";
    Nest nest(*this);
    expr(p.value.get());
  }
}

void Dumper::params(const std::vector<Param> &params) {
  for (const Param &p : params) {
    line() << "Param " << p.name << " : " << typeRefStr(p.type);
    range(p.range);
    os << "\n";
    if (p.defaultValue) {
      Nest nest(*this);
      expr(p.defaultValue.get(), "default");
    }
  }
}

void Dumper::endpoint(llvm::StringRef role, const Endpoint &ep) {
  line(role) << "Endpoint";
  range(ep.range);
  os << "\n";
  Nest nest(*this);
  for (const Segment &s : ep.segments) {
    line() << "Segment " << s.name;
    switch (s.indexKind) {
    case Segment::IndexKind::None:
      break;
    case Segment::IndexKind::Single:
      os << " [i]";
      break;
    case Segment::IndexKind::All:
      os << " [*]";
      break;
    case Segment::IndexKind::Range:
      os << " [lo..hi]";
      break;
    }
    range(s.range);
    os << "\n";
    Nest inner(*this);
    if (s.indexKind == Segment::IndexKind::Single) {
      expr(s.lo.get(), "index");
    } else if (s.indexKind == Segment::IndexKind::Range) {
      expr(s.lo.get(), "lo");
      expr(s.hi.get(), "hi");
    }
  }
}

void Dumper::topoItem(const TopoItem &item) {
  switch (item.getKind()) {
  case TopoItem::Kind::Device: {
    auto &d = llvm::cast<DeviceItem>(item);
    line() << "DeviceItem kind=" << d.kind << " name=" << d.name;
    if (d.hasArgs)
      os << " args=" << d.args.size();
    range(d.range);
    os << "\n";
    Nest nest(*this);
    args(d.args);
    if (d.count)
      expr(d.count.get(), "count");
    props(d.props);
    return;
  }
  case TopoItem::Kind::Link: {
    auto &l = llvm::cast<LinkItem>(item);
    line() << (l.isOverride ? "OverrideItem " : "LinkItem ")
           << (l.dir == LinkDir::Forward ? "->" : "<->");
    range(l.range);
    os << "\n";
    Nest nest(*this);
    endpoint("from", l.from);
    endpoint("to", l.to);
    props(l.props);
    return;
  }
  case TopoItem::Kind::Bandwidths: {
    auto &b = llvm::cast<BandwidthsItem>(item);
    line() << "BandwidthsItem ";
    printEscaped(os, b.path);
    range(b.range);
    os << "\n";
    Nest nest(*this);
    endpoint("between", b.devices);
    return;
  }
  case TopoItem::Kind::For: {
    auto &f = llvm::cast<ForItem>(item);
    line() << "ForItem " << f.var;
    range(f.range);
    os << "\n";
    Nest nest(*this);
    expr(f.lo.get(), "lo");
    expr(f.hi.get(), "hi");
    for (const TopoItemPtr &i : f.body)
      topoItem(*i);
    return;
  }
  case TopoItem::Kind::Let: {
    auto &l = llvm::cast<LetItem>(item);
    line() << "LetItem " << l.name;
    if (l.type)
      os << " : " << typeRefStr(*l.type);
    range(l.range);
    os << "\n";
    Nest nest(*this);
    expr(l.value.get());
    return;
  }
  }
}

void Dumper::walkItem(const WalkItem &item) {
  switch (item.getKind()) {
  case WalkItem::Kind::Length:
    line() << "LengthItem";
    break;
  case WalkItem::Kind::Start:
    line() << "StartItem";
    break;
  case WalkItem::Kind::StopProbability:
    line() << "StopProbabilityItem";
    break;
  case WalkItem::Kind::StopFn:
    line() << "StopFnItem " << bindersStr(item.binders);
    break;
  case WalkItem::Kind::WeightFn:
    line() << "WeightFnItem " << bindersStr(item.binders);
    break;
  case WalkItem::Kind::State:
    line() << "StateItem " << item.name;
    break;
  case WalkItem::Kind::Update:
    line() << "UpdateItem " << bindersStr(item.binders);
    break;
  case WalkItem::Kind::Let:
    line() << "LetItem " << item.name;
    break;
  }
  if (item.type)
    os << " : " << typeRefStr(*item.type);
  range(item.range);
  os << "\n";
  Nest nest(*this);
  if (item.getKind() == WalkItem::Kind::Update)
    block(item.body);
  else
    expr(item.value.get());
}

void Dumper::block(const Block &b) {
  for (const StmtPtr &s : b)
    stmt(*s);
}

void Dumper::stmt(const Stmt &s) {
  switch (s.getKind()) {
  case Stmt::Kind::VertexProp: {
    auto &v = llvm::cast<VertexPropStmt>(s);
    line() << "VertexPropStmt " << v.name << " : " << typeRefStr(v.type);
    range(v.range);
    os << "\n";
    Nest nest(*this);
    if (v.init)
      expr(v.init.get());
    return;
  }
  case Stmt::Kind::Frontier: {
    auto &f = llvm::cast<FrontierStmt>(s);
    line() << "FrontierStmt " << f.name;
    range(f.range);
    os << "\n";
    Nest nest(*this);
    expr(f.init.get());
    return;
  }
  case Stmt::Kind::Let: {
    auto &l = llvm::cast<LetStmt>(s);
    line() << "LetStmt " << l.name;
    if (l.type)
      os << " : " << typeRefStr(*l.type);
    range(l.range);
    os << "\n";
    Nest nest(*this);
    expr(l.value.get());
    return;
  }
  case Stmt::Kind::Repeat: {
    auto &r = llvm::cast<RepeatStmt>(s);
    line() << "RepeatStmt";
    range(r.range);
    os << "\n";
    Nest nest(*this);
    expr(r.count.get(), "count");
    block(r.body);
    return;
  }
  case Stmt::Kind::While: {
    auto &w = llvm::cast<WhileStmt>(s);
    line() << "WhileStmt";
    range(w.range);
    os << "\n";
    Nest nest(*this);
    expr(w.cond.get(), "cond");
    block(w.body);
    return;
  }
  case Stmt::Kind::If: {
    auto &i = llvm::cast<IfStmt>(s);
    line() << "IfStmt";
    range(i.range);
    os << "\n";
    Nest nest(*this);
    expr(i.cond.get(), "cond");
    block(i.thenBody);
    if (!i.elseBody.empty()) {
      line() << "Else\n";
      Nest inner(*this);
      block(i.elseBody);
    }
    return;
  }
  case Stmt::Kind::Vertices: {
    auto &v = llvm::cast<VerticesStmt>(s);
    line() << "VerticesStmt";
    if (!v.label.empty())
      os << " @" << v.label;
    os << " " << bindersStr(v.binders);
    range(v.range);
    os << "\n";
    Nest nest(*this);
    if (v.where)
      expr(v.where.get(), "where");
    block(v.body);
    return;
  }
  case Stmt::Kind::Edges: {
    auto &e = llvm::cast<EdgesStmt>(s);
    line() << "EdgesStmt";
    if (!e.label.empty())
      os << " @" << e.label;
    if (!e.result.empty())
      os << " " << e.result << " =";
    os << " " << bindersStr(e.binders);
    if (!e.from.empty())
      os << " from " << e.from;
    range(e.range);
    os << "\n";
    Nest nest(*this);
    if (e.where)
      expr(e.where.get(), "where");
    block(e.body);
    return;
  }
  case Stmt::Kind::Output: {
    auto &o = llvm::cast<OutputStmt>(s);
    line() << "OutputStmt";
    for (const Binder &b : o.names)
      os << " " << b.name;
    range(o.range);
    os << "\n";
    return;
  }
  case Stmt::Kind::Assign: {
    auto &a = llvm::cast<AssignStmt>(s);
    line() << "AssignStmt " << a.target << " " << spell(a.op);
    range(a.range);
    os << "\n";
    Nest nest(*this);
    if (a.index)
      expr(a.index.get(), "index");
    expr(a.value.get());
    return;
  }
  }
}

void Dumper::decl(const Decl &d) {
  switch (d.getKind()) {
  case Decl::Kind::Import: {
    auto &i = llvm::cast<ImportDecl>(d);
    line() << "ImportDecl ";
    printEscaped(os, i.path);
    range(i.range);
    os << "\n";
    return;
  }
  case Decl::Kind::Let: {
    auto &l = llvm::cast<LetDecl>(d);
    line() << "LetDecl " << l.name;
    if (l.type)
      os << " : " << typeRefStr(*l.type);
    range(l.range);
    os << "\n";
    Nest nest(*this);
    expr(l.value.get());
    return;
  }
  case Decl::Kind::Topology: {
    auto &t = llvm::cast<TopologyDecl>(d);
    line() << "TopologyDecl " << t.name;
    range(t.range);
    os << "\n";
    Nest nest(*this);
    params(t.params);
    for (const TopoItemPtr &item : t.items)
      topoItem(*item);
    return;
  }
  case Decl::Kind::Graph: {
    auto &g = llvm::cast<GraphDecl>(d);
    line() << "GraphDecl " << g.name;
    range(g.range);
    os << "\n";
    Nest nest(*this);
    expr(g.source.get());
    return;
  }
  case Decl::Kind::Walk: {
    auto &w = llvm::cast<WalkDecl>(d);
    line() << "WalkDecl " << w.name << " on=" << w.graph;
    range(w.range);
    os << "\n";
    Nest nest(*this);
    params(w.params);
    for (const WalkItem &item : w.items)
      walkItem(item);
    return;
  }
  case Decl::Kind::Algorithm: {
    auto &a = llvm::cast<AlgorithmDecl>(d);
    line() << "AlgorithmDecl " << a.name << " on=" << a.graph;
    range(a.range);
    os << "\n";
    Nest nest(*this);
    params(a.params);
    block(a.body);
    return;
  }
  case Decl::Kind::Schedule: {
    auto &s = llvm::cast<ScheduleDecl>(d);
    line() << "ScheduleDecl " << s.name;
    range(s.range);
    os << "\n";
    Nest nest(*this);
    props(s.props);
    for (const ScheduleDecl::Labeled &l : s.labeled) {
      line() << "LabeledSchedule @" << l.label;
      range(l.labelRange);
      os << "\n";
      Nest inner(*this);
      props(l.props);
    }
    return;
  }
  case Decl::Kind::Model: {
    auto &m = llvm::cast<ModelDecl>(d);
    line() << "ModelDecl " << m.name;
    range(m.range);
    os << "\n";
    Nest nest(*this);
    expr(m.ctor.get());
    return;
  }
  case Decl::Kind::Job: {
    auto &j = llvm::cast<JobDecl>(d);
    line() << "JobDecl " << j.name << " action=" << j.action
           << " subject=" << j.subject << " target=" << j.target;
    range(j.range);
    os << "\n";
    Nest nest(*this);
    props(j.props);
    return;
  }
  case Decl::Kind::Demand: {
    auto &dm = llvm::cast<DemandDecl>(d);
    line() << "DemandDecl " << dm.name << " on=" << dm.topology;
    range(dm.range);
    os << "\n";
    Nest nest(*this);
    props(dm.props);
    for (const DemandItem &item : dm.items) {
      line() << "DemandItem " << item.kind;
      range(item.range);
      os << "\n";
      Nest inner(*this);
      expr(item.bytes.get());
      for (const DemandClause &c : item.clauses)
        for (const Endpoint &ep : c.endpoints)
          endpoint(c.word, ep);
      props(item.props);
    }
    return;
  }
  }
}

} // namespace

void ast::dump(const Module &module, llvm::raw_ostream &os) {
  Dumper dumper(os);
  for (const DeclPtr &d : module.decls)
    dumper.decl(*d);
}
