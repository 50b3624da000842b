//===- SemaTypes.cpp - Sema's values, type relations and names -----------===//
//
// The folded values Sema keeps, the relations between types (which type a
// slot accepts, the common type of two branches, the type arithmetic
// computes in: C's usual arithmetic conversions for i64, f32 and f64) and
// the conversions of folded values, and the wording helpers of messages.
// Split from Sema.cpp.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

#include "support/NumberFormat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace sluice;
using namespace sluice::sema;
using ast::Type;

//===----------------------------------------------------------------------===//
// Values and types
//===----------------------------------------------------------------------===//

Value Value::ofInt(int64_t v) {
  Value r;
  r.kind = Kind::Int;
  r.i = v;
  return r;
}
Value Value::ofFloat(double v) {
  Value r;
  r.kind = Kind::Float;
  r.f = v;
  return r;
}
Value Value::ofBool(bool v) {
  Value r;
  r.kind = Kind::Bool;
  r.b = v;
  return r;
}
Value Value::ofString(std::string v) {
  Value r;
  r.kind = Kind::String;
  r.payload = std::make_shared<const Payload>(Payload{std::move(v), {}});
  return r;
}
Value Value::ofList(std::vector<Value> v) {
  Value r;
  r.kind = Kind::List;
  r.payload = std::make_shared<const Payload>(Payload{{}, std::move(v)});
  return r;
}
std::optional<double> Value::asNumber() const {
  if (kind == Kind::Int)
    return static_cast<double>(i);
  if (kind == Kind::Float)
    return f;
  return std::nullopt;
}

std::string sema::typeName(const Type &t) { return t.str(); }

Dim sema::dimOf(const Type &t) {
  return t.kind == Type::Kind::Quantity ? t.dim : Dim::none();
}

bool sema::sameType(const Type &a, const Type &b) { return a == b; }

bool sema::assignable(const Type &to, const Type &from) {
  if (to.isUnknown() || from.isUnknown())
    return true;
  if (sameType(to, from))
    return true;
  if (from.kind == Type::Kind::Int &&
      (to.kind == Type::Kind::Float || to.kind == Type::Kind::Vertex))
    return true;
  // f32 converts to and from i64 and f64 (C's assignment conversions).
  auto plain = [](const Type &t) {
    return t.kind == Type::Kind::Int || t.kind == Type::Kind::Float ||
           t.kind == Type::Kind::Float32;
  };
  if ((to.kind == Type::Kind::Float32 && plain(from)) ||
      (from.kind == Type::Kind::Float32 && to.kind == Type::Kind::Float))
    return true;
  if (to.kind == Type::Kind::List && from.kind == Type::Kind::List) {
    if (!to.element || !from.element)
      return true;
    return assignable(*to.element, *from.element);
  }
  return false;
}

Type sema::arithResult(const Type &l, const Type &r, Dim d) {
  using K = Type::Kind;
  if (l.kind == K::Int && r.kind == K::Int)
    return Type::of(K::Int);
  if (d.isNone() && l.kind != K::Float && r.kind != K::Float &&
      (l.kind == K::Float32 || r.kind == K::Float32))
    return Type::of(K::Float32);
  return Type::quantity(d);
}

std::optional<Type> sema::join(const Type &a, const Type &b) {
  if (a.isUnknown())
    return b;
  if (b.isUnknown())
    return a;
  if (sameType(a, b))
    return a;
  auto is = [](const Type &t, Type::Kind k) { return t.kind == k; };
  using K = Type::Kind;
  auto plain = [&](const Type &t) {
    return is(t, K::Int) || is(t, K::Float) || is(t, K::Float32);
  };
  if (plain(a) && plain(b))
    return arithResult(a, b, Dim::none());
  if ((is(a, K::Int) && is(b, K::Vertex)) ||
      (is(a, K::Vertex) && is(b, K::Int)))
    return Type::of(K::Vertex);
  if (is(a, K::List) && is(b, K::List)) {
    Type ea = a.element ? *a.element : Type::unknown();
    Type eb = b.element ? *b.element : Type::unknown();
    if (auto e = join(ea, eb))
      return Type::list(*e);
  }
  return std::nullopt;
}

Value sema::convert(const Value &v, const Type &from, const Type &to) {
  if (v.kind == Value::Kind::Int && to.kind == Type::Kind::Float)
    return Value::ofFloat(static_cast<double>(v.i));
  if (to.kind == Type::Kind::Float32)
    if (std::optional<double> x = v.asNumber())
      return Value::ofFloat(static_cast<float>(*x));
  if (v.kind == Value::Kind::List && to.kind == Type::Kind::List &&
      to.element) {
    Type fromElt = from.element ? *from.element : Type::unknown();
    std::vector<Value> elts;
    for (const Value &e : v.elements())
      elts.push_back(convert(e, fromElt, *to.element));
    return Value::ofList(std::move(elts));
  }
  return v;
}

std::string sema::formatValue(const Value &v, const Type &t) {
  switch (v.kind) {
  case Value::Kind::Int:
    return std::to_string(v.i);
  case Value::Kind::Float: {
    if (t.kind == Type::Kind::Quantity)
      return formatQuantity(v.f, t.dim);
    return formatNumber(v.f);
  }
  case Value::Kind::Bool:
    return v.b ? "true" : "false";
  case Value::Kind::String:
    return ("\"" + v.str() + "\"").str();
  case Value::Kind::List: {
    Type elt = t.element ? *t.element : Type::unknown();
    std::string out = "[";
    for (size_t i = 0; i < v.elements().size(); ++i) {
      if (i)
        out += ", ";
      out += formatValue(v.elements()[i], elt);
    }
    return out + "]";
  }
  }
  llvm_unreachable("unknown value kind");
}

std::string sema::didYouMean(llvm::StringRef name,
                             llvm::ArrayRef<std::string> candidates) {
  // Short names have too many neighbours to guess from.
  if (name.size() < 3)
    return "";
  unsigned limit = (name.size() + 2) / 3;
  const std::string *best = nullptr;
  unsigned bestDistance = limit + 1;
  for (const std::string &c : candidates) {
    if (c == name)
      continue;
    unsigned d = name.edit_distance(c, /*AllowReplacements=*/true, limit + 1);
    if (d < bestDistance) {
      bestDistance = d;
      best = &c;
    }
  }
  if (!best)
    return "";
  return "; did you mean '" + *best + "'?";
}

std::string sema::joinNames(llvm::ArrayRef<std::string> names) {
  std::string out;
  for (const std::string &n : names) {
    if (!out.empty())
      out += ", ";
    out += n;
  }
  return out;
}

std::string sema::joinNames(llvm::ArrayRef<llvm::StringRef> names) {
  std::string out;
  for (llvm::StringRef n : names) {
    if (!out.empty())
      out += ", ";
    out += n.str();
  }
  return out;
}

llvm::StringRef sema::describe(SymKind kind) {
  switch (kind) {
  case SymKind::Topology:
    return "topology";
  case SymKind::Graph:
    return "graph";
  case SymKind::Walk:
    return "walk";
  case SymKind::Algorithm:
    return "algorithm";
  case SymKind::Model:
    return "model";
  case SymKind::Job:
    return "job";
  case SymKind::Demand:
    return "demand";
  case SymKind::GlobalLet:
    return "global constant";
  case SymKind::Param:
    return "parameter";
  case SymKind::Let:
    return "local";
  case SymKind::LoopVar:
    return "loop variable";
  case SymKind::Binder:
    return "binder";
  case SymKind::State:
    return "state variable";
  case SymKind::VertexProp:
    return "vertex property";
  case SymKind::Frontier:
    return "frontier";
  }
  llvm_unreachable("unknown symbol kind");
}

std::string sema::describeA(SymKind kind) {
  llvm::StringRef d = describe(kind);
  bool vowel = llvm::StringRef("aeiou").contains(d.front());
  return (vowel ? "an " : "a ") + d.str();
}
