//===- SemaOptions.cpp - Keyed options checked against tables -------------===//
//
// OptionChecker (SemaOptions.h): one routine for the keyed options of
// loads, schedules, model constructors and jobs.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaOptions.h"

#include "dialects/Graph/IR/GraphSchema.h"

#include "llvm/ADT/STLExtras.h"

using namespace sluice;
using namespace sluice::sema;
using ast::Type;
using K = ast::Type::Kind;

namespace {

/// The parallel kinds as written: `dynamic` takes its chunk, `dynamic(n)`.
llvm::ArrayRef<llvm::StringRef> parallelSpellings() {
  static const std::vector<llvm::StringRef> spellings = [] {
    std::vector<llvm::StringRef> s;
    for (llvm::StringRef name : graph::parallelNames())
      s.push_back(name == graph::stringifyParallel(graph::Parallel::Dynamic)
                      ? "dynamic(n)"
                      : name);
    return s;
  }();
  return spellings;
}

/// The frontier kinds as written: `buckets` takes its width,
/// `buckets(delta)`.
llvm::ArrayRef<llvm::StringRef> frontierSpellings() {
  static const std::vector<llvm::StringRef> spellings = [] {
    std::vector<llvm::StringRef> s;
    for (llvm::StringRef name : graph::frontierKindNames())
      s.push_back(
          name == graph::stringifyFrontierKind(graph::FrontierKind::Buckets)
              ? "buckets(delta)"
              : name);
    return s;
  }();
  return spellings;
}

/// The directions as written: `hybrid` also takes Beamer's thresholds,
/// `hybrid(alpha, beta)`.
llvm::ArrayRef<llvm::StringRef> directionSpellings() {
  static const std::vector<llvm::StringRef> spellings = [] {
    std::vector<llvm::StringRef> s(graph::directionNames().begin(),
                                   graph::directionNames().end());
    s.push_back("hybrid(alpha, beta)");
    return s;
  }();
  return spellings;
}

/// A positive number argument `what` of `callee` (i64 accepted).
void checkPositiveNumber(Sema &s, ast::Expr *arg, llvm::StringRef what,
                         llvm::StringRef callee) {
  Type t = s.check(arg);
  if (t.isUnknown())
    return;
  if (t.kind != K::Int && t.kind != K::Float)
    s.error(arg->range) << what << " of '" << callee << "' expects f64, got "
                        << typeName(t);
  else if (const Value *v = s.valueOf(arg);
           v && v->asNumber() && !(*v->asNumber() > 0))
    s.error(arg->range) << what << " of '" << callee
                        << "' must be positive, got " << formatValue(*v, t);
}

} // namespace

namespace sluice::sema {

OptionSpec req(llvm::StringRef name, OptKind kind) {
  OptionSpec s{name, kind};
  s.required = true;
  s.positive = kind == OptKind::Int || kind == OptKind::IntList;
  return s;
}
OptionSpec pos(llvm::StringRef name, OptKind kind) {
  OptionSpec s{name, kind};
  s.positive = true;
  return s;
}
OptionSpec opt(llvm::StringRef name, OptKind kind) { return {name, kind}; }
/// A positive i64 of at most `max` (the runtime field it narrows to).
OptionSpec upTo(llvm::StringRef name, int64_t max) {
  OptionSpec s = pos(name, OptKind::Int);
  s.max = max;
  return s;
}
OptionSpec word(llvm::StringRef name, llvm::ArrayRef<llvm::StringRef> words) {
  return {name, OptKind::Word, words};
}


std::vector<std::string> specNames(llvm::ArrayRef<OptionSpec> specs) {
  std::vector<std::string> names;
  for (const OptionSpec &s : specs)
    names.push_back(s.name.str());
  return names;
}

/// Types the value of an option that was already reported (unknown key,
/// unknown owner) without reporting option words in it: a bare word that
/// names nothing, or a call such as `dynamic(64)` to no function.
/// The one positional argument of a schedule word written as a call
/// (`dynamic(64)`, `buckets(16.0)`); otherwise an error naming what the
/// argument is (`what`), the arguments checked, and null.
ast::Expr *singleArgument(Sema &s, ast::CallExpr &call, llvm::StringRef what) {
  bool named = llvm::any_of(
      call.args, [](const ast::Arg &a) { return !a.name.empty(); });
  if (call.args.size() == 1 && !named)
    return call.args[0].value.get();
  s.error(call.range) << "'" << call.callee << "' expects 1 argument ("
                      << what << "), got " << call.args.size();
  for (ast::Arg &a : call.args)
    s.check(a.value.get());
  return nullptr;
}

void checkLoose(Sema &s, ast::Expr *e) {
  if (auto *n = llvm::dyn_cast_or_null<ast::NameExpr>(e))
    if (!s.lookup(n->name))
      return;
  if (auto *c = llvm::dyn_cast_or_null<ast::CallExpr>(e))
    if (!isBuiltinFunction(c->callee)) {
      for (ast::Arg &a : c->args)
        checkLoose(s, a.value.get());
      return;
    }
  s.check(e);
}

/// The kind of a model ("transformer", "gnn", "distill"), or "".
llvm::StringRef modelKind(const Symbol *sym) {
  if (!sym || sym->kind != SymKind::Model || !sym->decl)
    return "";
  auto *model = llvm::cast<ast::ModelDecl>(sym->decl);
  return model->ctor ? llvm::StringRef(model->ctor->callee) : "";
}


std::map<std::string, ast::Expr *>
OptionChecker::run(llvm::ArrayRef<OptionItem> items,
                   llvm::ArrayRef<OptionSpec> specs) {
  Sema::WhereScope w(s, Where::Const, "a constant expression");
  std::map<std::string, ast::Expr *> given;
  std::map<std::string, ast::SourceRange> seen;
  for (const OptionItem &item : items) {
    auto [prev, inserted] = seen.emplace(item.name.str(), item.nameRange);
    if (!inserted) {
      auto diag = s.error(item.nameRange)
                  << "duplicate " << noun << " '" << item.name << "'";
      s.note(diag, prev->second, "previous value is here");
      checkLoose(s, item.value);
      continue;
    }
    auto spec = llvm::find_if(
        specs, [&](const OptionSpec &sp) { return sp.name == item.name; });
    if (spec != specs.end()) {
      checkValue(*spec, item.value);
      given[item.name.str()] = item.value;
      continue;
    }
    auto param = llvm::find_if(
        params, [&](const ast::Param &p) { return p.name == item.name; });
    if (param != params.end()) {
      Type t = s.resolveType(param->type, /*report=*/false);
      s.checkAs(item.value, t,
                "argument '" + param->name + "' of " + paramOwner);
      given[item.name.str()] = item.value;
      continue;
    }
    if (lenient) {
      checkLoose(s, item.value);
      continue;
    }
    std::vector<std::string> names = specNames(specs);
    for (const ast::Param &p : params)
      names.push_back(p.name);
    s.error(item.nameRange)
        << "unknown " << noun << " '" << item.name << "' for " << owner
        << "; expected one of: " << joinNames(names);
    checkLoose(s, item.value);
  }
  for (const OptionSpec &spec : specs)
    if (spec.required && !given.count(spec.name.str()))
      s.error(ownerRange) << owner << " is missing required " << noun << " '"
                          << spec.name << "'";
  for (const ast::Param &p : params)
    if (!p.defaultValue && !given.count(p.name))
      s.error(ownerRange) << owner << " is missing argument '" << p.name
                          << "' of " << paramOwner;
  return given;
}

void OptionChecker::unknownWord(const OptionSpec &spec, ast::NameExpr &n,
                                llvm::ArrayRef<llvm::StringRef> words) {
  s.error(n.range) << "unknown value '" << n.name << "' for " << what(spec)
                   << "; expected one of: " << joinNames(words);
}

void OptionChecker::checkInt(const OptionSpec &spec, ast::Expr *e) {
  Type t = s.check(e);
  if (!e || t.isUnknown())
    return;
  if (t.kind != K::Int) {
    s.error(e->range) << what(spec) << " expects i64, got " << typeName(t);
    return;
  }
  const Value *v = s.valueOf(e);
  if (!v)
    return;
  if (spec.positive && v->i <= 0)
    s.error(e->range) << what(spec) << " must be positive, got " << v->i;
  else if (spec.max && v->i > spec.max)
    s.error(e->range) << what(spec) << " must be at most " << spec.max
                      << ", got " << v->i;
}

void OptionChecker::checkValue(const OptionSpec &spec, ast::Expr *e) {
  if (!e)
    return;
  auto *name = llvm::dyn_cast<ast::NameExpr>(e);
  switch (spec.kind) {
  case OptKind::Int:
    checkInt(spec, e);
    return;
  case OptKind::Float: {
    Type t = s.check(e);
    if (t.isUnknown())
      return;
    if (t.kind != K::Int && t.kind != K::Float) {
      s.error(e->range) << what(spec) << " expects f64, got " << typeName(t);
      return;
    }
    if (const Value *v = s.valueOf(e))
      if (spec.positive && *v->asNumber() <= 0)
        s.error(e->range) << what(spec) << " must be positive, got "
                          << formatValue(*v, t);
    return;
  }
  case OptKind::Bool:
    s.checkAs(e, Type::of(K::Bool), what(spec));
    return;
  case OptKind::Bytes: {
    Type bytes = Type::quantity(Dim::bytes());
    if (!s.checkAs(e, bytes, what(spec)))
      return;
    if (const Value *v = s.valueOf(e))
      if (auto n = v->asNumber(); n && spec.positive && *n <= 0)
        s.error(e->range) << what(spec) << " must be positive, got "
                          << formatValue(*v, bytes);
    return;
  }
  case OptKind::String: {
    if (!s.checkAs(e, Type::of(K::String), what(spec)))
      return;
    if (const Value *v = s.valueOf(e))
      if (v->kind == Value::Kind::String && v->str().empty())
        s.error(e->range) << what(spec) << " must not be empty";
    return;
  }
  case OptKind::Word:
    if (name) {
      if (llvm::is_contained(spec.words, llvm::StringRef(name->name)))
        e->type = Type::of(K::Enum);
      else
        unknownWord(spec, *name, spec.words);
      return;
    }
    // A hyphenated word (`mtx-body`).
    if (std::optional<std::string> word = ast::bareWord(e)) {
      if (llvm::is_contained(spec.words, llvm::StringRef(*word)))
        e->type = Type::of(K::Enum);
      else
        s.error(e->range) << "unknown value '" << *word << "' for "
                          << what(spec)
                          << "; expected one of: " << joinNames(spec.words);
      return;
    }
    if (Type t = s.check(e); !t.isUnknown())
      s.error(e->range) << what(spec)
                        << " expects one of: " << joinNames(spec.words)
                        << "; got " << typeName(t);
    return;
  case OptKind::IntOrAuto:
    if (name && name->name == "auto") {
      e->type = Type::of(K::Enum);
      return;
    }
    if (name && !s.lookup(name->name)) {
      s.error(e->range) << "unknown value '" << name->name << "' for "
                        << what(spec) << "; expected 'auto' or a positive i64";
      return;
    }
    checkInt(spec, e);
    if (!e->type.isUnknown() && e->type.kind == K::Int)
      if (const Value *v = s.valueOf(e))
        if (v->i <= 0)
          s.error(e->range) << what(spec) << " must be positive, got " << v->i;
    return;
  case OptKind::Parallel:
    if (std::optional<graph::Parallel> kind =
            name ? graph::symbolizeParallel(name->name) : std::nullopt;
        kind && *kind != graph::Parallel::Dynamic) {
      e->type = Type::of(K::Enum);
      return;
    }
    if (auto *call = llvm::dyn_cast<ast::CallExpr>(e);
        call && call->callee == "dynamic") {
      ast::Expr *arg = singleArgument(s, *call, "the chunk size");
      if (!arg)
        return;
      Type t = s.check(arg);
      if (arg && !t.isUnknown()) {
        if (t.kind != K::Int)
          s.error(arg->range)
              << "chunk size of 'dynamic' expects i64, got " << typeName(t);
        else if (const Value *v = s.valueOf(arg); v && v->i <= 0)
          s.error(arg->range)
              << "chunk size of 'dynamic' must be positive, got " << v->i;
      }
      call->type = Type::of(K::Enum);
      return;
    }
    if (name) {
      unknownWord(spec, *name, parallelSpellings());
      return;
    }
    if (Type t = s.check(e); !t.isUnknown())
      s.error(e->range) << what(spec)
                        << " expects one of: " << joinNames(parallelSpellings())
                        << "; got " << typeName(t);
    return;
  case OptKind::Frontier:
    if (std::optional<graph::FrontierKind> kind =
            name ? graph::symbolizeFrontierKind(name->name) : std::nullopt;
        kind && *kind != graph::FrontierKind::Buckets) {
      e->type = Type::of(K::Enum);
      return;
    }
    if (auto *call = llvm::dyn_cast<ast::CallExpr>(e);
        call && call->callee == "buckets") {
      ast::Expr *arg = singleArgument(s, *call, "the bucket width delta");
      if (!arg)
        return;
      checkPositiveNumber(s, arg, "bucket width", "buckets");
      call->type = Type::of(K::Enum);
      return;
    }
    if (name) {
      unknownWord(spec, *name, frontierSpellings());
      return;
    }
    if (Type t = s.check(e); !t.isUnknown())
      s.error(e->range) << what(spec)
                        << " expects one of: " << joinNames(frontierSpellings())
                        << "; got " << typeName(t);
    return;
  case OptKind::Direction:
    if (name && graph::symbolizeDirection(name->name)) {
      e->type = Type::of(K::Enum);
      return;
    }
    if (auto *call = llvm::dyn_cast<ast::CallExpr>(e);
        call &&
        call->callee == graph::stringifyDirection(graph::Direction::Hybrid)) {
      bool named = llvm::any_of(
          call->args, [](const ast::Arg &a) { return !a.name.empty(); });
      if (call->args.size() != 2 || named) {
        s.error(call->range)
            << "'hybrid' expects 2 arguments (Beamer's alpha and beta: pull "
               "once the frontier's out-edges pass 1/alpha of the edges not "
               "yet scanned, push again below 1/beta of the vertices), got "
            << call->args.size();
        for (ast::Arg &a : call->args)
          s.check(a.value.get());
        return;
      }
      checkPositiveNumber(s, call->args[0].value.get(), "alpha", "hybrid");
      checkPositiveNumber(s, call->args[1].value.get(), "beta", "hybrid");
      call->type = Type::of(K::Enum);
      return;
    }
    if (name) {
      unknownWord(spec, *name, directionSpellings());
      return;
    }
    if (Type t = s.check(e); !t.isUnknown())
      s.error(e->range) << what(spec) << " expects one of: "
                        << joinNames(directionSpellings()) << "; got "
                        << typeName(t);
    return;
  case OptKind::IntList: {
    Type t = s.check(e);
    if (t.isUnknown())
      return;
    if (t.kind != K::List ||
        (t.element && !t.element->isUnknown() && t.element->kind != K::Int)) {
      s.error(e->range) << what(spec) << " expects [i64], got " << typeName(t);
      return;
    }
    if (const Value *v = s.valueOf(e))
      for (const Value &elt : v->elements())
        if (spec.positive && elt.kind == Value::Kind::Int && elt.i <= 0) {
          s.error(e->range)
              << what(spec) << " must contain positive numbers, got " << elt.i;
          break;
        }
    return;
  }
  case OptKind::Model:
  case OptKind::Graph: {
    const bool model = spec.kind == OptKind::Model;
    const SymKind kind = model ? SymKind::Model : SymKind::Graph;
    const char *noun = model ? "model" : "graph";
    if (!name) {
      if (Type t = s.check(e); !t.isUnknown())
        s.error(e->range) << what(spec) << " expects a " << noun << ", got "
                          << typeName(t);
      return;
    }
    Symbol *sym = s.lookup(name->name);
    if (!sym) {
      s.error(e->range) << "unknown " << noun << " '" << name->name << "'"
                        << didYouMean(name->name, s.globalNames({kind}));
      return;
    }
    if (sym->kind != kind) {
      auto diag = s.error(e->range) << "'" << name->name << "' is "
                                    << describeA(sym->kind) << ", not a "
                                    << noun;
      s.note(diag, sym->range, "'" + name->name + "' is declared here");
      return;
    }
    e->type = Type::of(model ? K::Model : K::Graph);
    return;
  }
  }
}

std::vector<OptionItem> itemsOf(std::vector<ast::Prop> &props) {
  std::vector<OptionItem> items;
  for (ast::Prop &p : props)
    items.push_back({p.name, p.nameRange, p.value.get()});
  return items;
}

const Value *argValue(Sema &s, const std::map<std::string, ast::Expr *> &args,
                      llvm::StringRef name) {
  auto it = args.find(name.str());
  if (it == args.end() || !it->second || it->second->type.isUnknown())
    return nullptr;
  const Value *v = s.valueOf(it->second);
  return v && v->kind == Value::Kind::Int ? v : nullptr;
}

} // namespace sluice::sema
