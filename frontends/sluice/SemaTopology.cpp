//===- SemaTopology.cpp - Checking topology declarations ------------------===//
//
// Devices and instances, their properties (against TopoSchema), links and
// overrides with their endpoints, measured bandwidth matrices, loops and
// lets. Everything in a topology is a compile-time constant. The rules are
// listed in Sema.cpp.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

#include "llvm/ADT/STLExtras.h"

using namespace sluice;
using namespace sluice::sema;
using ast::Type;
using K = ast::Type::Kind;

static std::optional<topo::DeviceKind> builtinKind(llvm::StringRef name) {
  for (topo::DeviceKind k : topo::allDeviceKinds())
    if (topo::stringifyDeviceKind(k) == name)
      return k;
  return std::nullopt;
}

static std::vector<std::string> builtinKindNames() {
  std::vector<std::string> names;
  for (topo::DeviceKind k : topo::allDeviceKinds())
    names.push_back(topo::stringifyDeviceKind(k).str());
  return names;
}

DeviceInfo *TopoInfo::find(llvm::StringRef name) {
  auto it = llvm::partition_point(
      devices, [&](const DeviceInfo &d) { return d.name() < name; });
  return it != devices.end() && it->name() == name ? &*it : nullptr;
}

void Sema::collectDevices(ast::TopologyDecl &topo) {
  // One sorted array rather than a tree: a topology may hold millions of
  // devices, and a tree node costs twice the entry.
  std::vector<DeviceInfo> &devices = topoInfo[&topo].devices;
  auto named = [](const ast::TopoItemPtr &item) {
    auto *dev = llvm::dyn_cast_or_null<ast::DeviceItem>(item.get());
    return dev && !dev->name.empty() ? dev : nullptr;
  };
  devices.reserve(llvm::count_if(topo.items, named));
  for (ast::TopoItemPtr &item : topo.items) {
    ast::DeviceItem *dev = named(item);
    if (!dev)
      continue;
    DeviceInfo d;
    d.item = dev;
    d.order = static_cast<uint32_t>(devices.size());
    d.builtin = builtinKind(dev->kind);
    if (!d.builtin)
      if (Symbol *sym = lookupGlobal(dev->kind))
        if (sym->kind == SymKind::Topology)
          d.instanceOf = llvm::cast<ast::TopologyDecl>(sym->decl);
    d.isArray = dev->count != nullptr;
    devices.push_back(d);
  }
  llvm::sort(devices, [](const DeviceInfo &a, const DeviceInfo &b) {
    int c = a.name().compare(b.name());
    return c != 0 ? c < 0 : a.order < b.order;
  });
  // A name declared again is a redefinition of its first declaration:
  // reported in source order, and dropped.
  struct Redefinition {
    uint32_t order;
    const ast::DeviceItem *again, *first;
  };
  std::vector<Redefinition> redefined;
  size_t kept = 0;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (kept && devices[kept - 1].name() == devices[i].name()) {
      redefined.push_back(
          {devices[i].order, devices[i].item, devices[kept - 1].item});
      continue;
    }
    devices[kept++] = devices[i];
  }
  devices.resize(kept);
  llvm::sort(redefined, [](const Redefinition &a, const Redefinition &b) {
    return a.order < b.order;
  });
  for (const Redefinition &r : redefined) {
    auto diag = error(r.again->nameRange)
                << "redefinition of '" << r.again->name << "'";
    note(diag, r.first->nameRange,
         "previous definition of '" + r.again->name + "' is here");
  }
}

namespace {

/// Checks one topology's items; holds the state of that check.
class TopologyChecker {
public:
  TopologyChecker(Sema &s, ast::TopologyDecl &topo)
      : s(s), topo(topo), info(s.topoInfo[&topo]) {}

  void run();
  /// An endpoint written outside the topology (a demand's device set).
  void checkOutsideEndpoint(ast::Endpoint &ep) {
    bool hasSet = false;
    checkEndpoint(ep, hasSet);
  }

private:
  void checkItems(std::vector<ast::TopoItemPtr> &items, bool inLoop);
  void checkItem(ast::TopoItem &item, bool inLoop);
  void checkDevice(ast::DeviceItem &dev);
  void checkInstanceArgs(ast::DeviceItem &dev, ast::TopologyDecl &inner);
  void checkLink(ast::LinkItem &link);
  /// Checks an endpoint; sets `hasSet` if it names several devices.
  void checkEndpoint(ast::Endpoint &ep, bool &hasSet);
  void checkSegmentIndex(ast::Segment &seg, DeviceInfo &d, bool own,
                         bool &hasSet);
  /// Checks a device index; returns its value when known.
  std::optional<int64_t> checkIndexExpr(ast::Expr *e);
  void checkBound(const DeviceInfo &d, llvm::StringRef name, int64_t lo,
                  int64_t hi, bool isRange, const ast::SourceRange &range);

  Sema &s;
  ast::TopologyDecl &topo;
  TopoInfo &info;
  std::vector<Sema::PendingBound> pending;
};

void TopologyChecker::run() {
  ast::TopologyDecl *savedTopology = s.currentTopology;
  std::vector<Sema::PendingBound> *savedPending = s.pendingBounds;
  s.currentTopology = &topo;
  s.pendingBounds = &pending;
  {
    Sema::WhereScope w(s, Where::Const, "a constant expression");
    Sema::ScopeGuard params(s);
    s.checkParams(topo.params);
    Sema::ScopeGuard body(s);
    checkItems(topo.items, /*inLoop=*/false);
  }
  // Indices into this topology's arrays, now that every size is known.
  for (const Sema::PendingBound &p : pending) {
    if (DeviceInfo *d = info.find(p.device))
      checkBound(*d, p.device, p.lo, p.hi, p.isRange, p.range);
  }
  s.currentTopology = savedTopology;
  s.pendingBounds = savedPending;
}

void TopologyChecker::checkItems(std::vector<ast::TopoItemPtr> &items,
                                 bool inLoop) {
  for (ast::TopoItemPtr &item : items)
    if (item)
      checkItem(*item, inLoop);
}

void TopologyChecker::checkItem(ast::TopoItem &item, bool inLoop) {
  if (!s.enter(item.range))
    return;
  switch (item.getKind()) {
  case ast::TopoItem::Kind::Device: {
    auto &dev = llvm::cast<ast::DeviceItem>(item);
    if (inLoop) {
      s.error(dev.nameRange)
          << "device '" << dev.name
          << "' cannot be declared inside a for loop; declare an array "
             "instead, e.g. '"
          << dev.kind << " " << dev.name << "[n]'";
      break;
    }
    checkDevice(dev);
    break;
  }
  case ast::TopoItem::Kind::Link:
    checkLink(llvm::cast<ast::LinkItem>(item));
    break;
  case ast::TopoItem::Kind::Bandwidths: {
    auto &bw = llvm::cast<ast::BandwidthsItem>(item);
    if (bw.path.empty())
      s.error(bw.pathRange) << "bandwidth matrix path is empty";
    bool hasSet = false;
    checkEndpoint(bw.devices, hasSet);
    if (!hasSet && !bw.devices.segments.empty())
      s.error(bw.devices.range)
          << "'bandwidths' needs a set of devices, e.g. '"
          << bw.devices.segments.back().name << "[*]' or '"
          << bw.devices.segments.back().name << "[0..4]'";
    break;
  }
  case ast::TopoItem::Kind::For: {
    auto &loop = llvm::cast<ast::ForItem>(item);
    for (ast::Expr *bound : {loop.lo.get(), loop.hi.get()}) {
      Type t = s.check(bound);
      if (bound && !t.isUnknown() && t.kind != K::Int)
        s.error(bound->range) << "loop bound must be i64, got " << typeName(t);
    }
    Sema::ScopeGuard scope(s);
    Symbol var;
    var.kind = SymKind::LoopVar;
    var.type = Type::of(K::Int);
    s.declare(loop.var, loop.varRange, std::move(var));
    checkItems(loop.body, /*inLoop=*/true);
    break;
  }
  case ast::TopoItem::Kind::Let: {
    auto &let = llvm::cast<ast::LetItem>(item);
    s.checkLet(let.name, let.nameRange, let.type.get(), let.value.get(),
               SymKind::Let,
               /*assignable=*/false);
    break;
  }
  }
  s.leave();
}

void TopologyChecker::checkDevice(ast::DeviceItem &dev) {
  DeviceInfo *d = info.find(dev.name);
  if (d && d->item != &dev)
    d = nullptr;

  if (std::optional<topo::DeviceKind> kind = builtinKind(dev.kind)) {
    if (dev.hasArgs || !dev.args.empty()) {
      s.error(dev.kindRange)
          << "device kind '" << dev.kind << "' takes no arguments";
      for (ast::Arg &a : dev.args)
        s.check(a.value.get());
    }
    s.checkProps(dev.props, topo::deviceProperties(*kind), dev.kind);
  } else {
    Symbol *sym = s.lookupGlobal(dev.kind);
    ast::TopologyDecl *inner = sym && sym->kind == SymKind::Topology
                                   ? llvm::cast<ast::TopologyDecl>(sym->decl)
                                   : nullptr;
    if (inner) {
      if (inner == &topo) {
        s.error(dev.kindRange)
            << "topology '" << topo.name << "' cannot contain itself";
        for (ast::Arg &a : dev.args)
          s.check(a.value.get());
      } else if (!s.ensureChecked(inner)) {
        auto diag = s.error(dev.kindRange)
                    << "instantiating topology '" << inner->name
                    << "' here forms a cycle: it contains '" << topo.name
                    << "'";
        s.note(diag, inner->nameRange,
               "topology '" + inner->name + "' is declared here");
        for (ast::Arg &a : dev.args)
          s.check(a.value.get());
      } else {
        checkInstanceArgs(dev, *inner);
      }
      if (!dev.props.empty()) {
        s.error(dev.props.front().nameRange)
            << "properties cannot be set on an instance of topology '"
            << inner->name << "'; pass arguments instead";
        for (ast::Prop &p : dev.props)
          s.check(p.value.get());
      }
    } else {
      if (sym) {
        auto diag = s.error(dev.kindRange)
                    << "'" << dev.kind << "' is " << describeA(sym->kind)
                    << ", not a device kind or topology";
        s.note(diag, sym->range, "'" + dev.kind + "' is declared here");
      } else {
        std::vector<std::string> candidates = builtinKindNames();
        for (std::string &n : s.globalNames({SymKind::Topology}))
          candidates.push_back(n);
        s.error(dev.kindRange)
            << "unknown device kind '" << dev.kind << "'"
            << didYouMean(dev.kind, candidates)
            << " (expected one of: " << joinNames(builtinKindNames())
            << ", or a topology)";
      }
      for (ast::Arg &a : dev.args)
        s.check(a.value.get());
      for (ast::Prop &p : dev.props)
        s.check(p.value.get());
    }
  }

  if (dev.count) {
    Type t = s.check(dev.count.get());
    if (!t.isUnknown() && t.kind != K::Int) {
      s.error(dev.count->range)
          << "array size must be i64, got " << typeName(t);
    } else if (const Value *v = s.valueOf(dev.count.get())) {
      if (v->i <= 0)
        s.error(dev.count->range)
            << "array size must be positive, got " << v->i;
      else if (d)
        d->count = v->i;
    }
  }
}

void TopologyChecker::checkInstanceArgs(ast::DeviceItem &dev,
                                        ast::TopologyDecl &inner) {
  std::vector<const ast::Arg *> given(inner.params.size(), nullptr);
  size_t nextPositional = 0;
  bool seenNamed = false;
  std::vector<std::string> paramNames;
  for (ast::Param &p : inner.params)
    paramNames.push_back(p.name);

  for (ast::Arg &a : dev.args) {
    size_t index;
    if (a.name.empty()) {
      if (seenNamed) {
        s.error(a.value ? a.value->range : dev.kindRange)
            << "positional argument after named arguments";
        s.check(a.value.get());
        continue;
      }
      if (nextPositional >= inner.params.size()) {
        s.error(a.value ? a.value->range : dev.kindRange)
            << "too many arguments for topology '" << inner.name
            << "': expected at most " << inner.params.size() << ", got "
            << dev.args.size();
        s.check(a.value.get());
        continue;
      }
      index = nextPositional++;
    } else {
      seenNamed = true;
      auto found = llvm::find(paramNames, a.name);
      if (found == paramNames.end()) {
        s.error(a.nameRange)
            << "unknown parameter '" << a.name << "' for topology '"
            << inner.name << "'"
            << (paramNames.empty()
                    ? std::string("; it takes no parameters")
                    : "; expected one of: " + joinNames(paramNames));
        s.check(a.value.get());
        continue;
      }
      index = static_cast<size_t>(found - paramNames.begin());
      if (given[index]) {
        auto diag = s.error(a.nameRange)
                    << "duplicate argument '" << a.name << "'";
        const ast::Arg *prev = given[index];
        s.note(diag,
               prev->name.empty() && prev->value ? prev->value->range
                                                 : prev->nameRange,
               "previous value is here");
        s.check(a.value.get());
        continue;
      }
    }
    given[index] = &a;
    ast::Param &p = inner.params[index];
    Type pt = s.resolveType(p.type, /*report=*/false);
    s.checkAs(a.value.get(), pt,
              "argument '" + p.name + "' of topology '" + inner.name + "'");
  }
  for (size_t i = 0; i < inner.params.size(); ++i)
    if (!given[i] && !inner.params[i].defaultValue)
      s.error(dev.kindRange) << "missing argument '" << inner.params[i].name
                             << "' for topology '" << inner.name << "'";
}

void TopologyChecker::checkLink(ast::LinkItem &link) {
  bool hasSet = false;
  checkEndpoint(link.from, hasSet);
  checkEndpoint(link.to, hasSet);
  s.checkProps(link.props, topo::linkProperties(), "link");
  if (link.isOverride) {
    if (link.props.empty())
      s.error(link.range) << "override sets no properties; expected one of: "
                          << topo::listPropertyNames(topo::linkProperties());
    return;
  }
  bool hasBandwidth = llvm::any_of(
      link.props, [](const ast::Prop &p) { return p.name == "bandwidth"; });
  if (!hasBandwidth)
    s.error(link.range) << "link is missing required property 'bandwidth'";
}

void TopologyChecker::checkEndpoint(ast::Endpoint &ep, bool &hasSet) {
  TopoInfo *cur = &info;
  ast::TopologyDecl *curTopo = &topo;
  for (size_t i = 0; i < ep.segments.size(); ++i) {
    ast::Segment &seg = ep.segments[i];
    DeviceInfo *found = cur->find(seg.name);
    if (!found) {
      std::vector<std::string> names;
      for (const DeviceInfo &entry : cur->devices)
        names.push_back(entry.name().str());
      s.error(seg.range) << "unknown device '" << seg.name << "' in topology '"
                         << curTopo->name << "'" << didYouMean(seg.name, names);
      // Still type the indices.
      for (size_t j = i; j < ep.segments.size(); ++j) {
        s.check(ep.segments[j].lo.get());
        s.check(ep.segments[j].hi.get());
      }
      return;
    }
    DeviceInfo &d = *found;
    checkSegmentIndex(seg, d, /*own=*/i == 0, hasSet);
    bool last = i + 1 == ep.segments.size();
    if (last) {
      if (d.instanceOf) {
        auto diag = s.error(seg.range)
                    << "'" << seg.name << "' is an instance of topology '"
                    << d.instanceOf->name
                    << "'; an endpoint must name a device inside it";
        auto innerIt = s.topoInfo.find(d.instanceOf);
        if (innerIt != s.topoInfo.end() && !innerIt->second.devices.empty()) {
          const DeviceInfo &first = innerIt->second.devices.front();
          std::string example = seg.name + (d.isArray ? "[0]" : "") + "." +
                                first.name().str() +
                                (first.isArray ? "[0]" : "");
          s.note(diag, seg.range, "for example '" + example + "'");
        }
      }
      return;
    }
    ast::Segment &next = ep.segments[i + 1];
    if (d.builtin) {
      s.error(next.range) << "'" << seg.name << "' is a "
                          << topo::stringifyDeviceKind(*d.builtin)
                          << " and has no devices inside it";
      for (size_t j = i + 1; j < ep.segments.size(); ++j) {
        s.check(ep.segments[j].lo.get());
        s.check(ep.segments[j].hi.get());
      }
      return;
    }
    if (!d.instanceOf || d.instanceOf == &topo ||
        !s.ensureChecked(d.instanceOf)) {
      // An unknown kind or a cycle: reported at the declaration.
      for (size_t j = i + 1; j < ep.segments.size(); ++j) {
        s.check(ep.segments[j].lo.get());
        s.check(ep.segments[j].hi.get());
      }
      return;
    }
    curTopo = d.instanceOf;
    cur = &s.topoInfo[curTopo];
  }
}

std::optional<int64_t> TopologyChecker::checkIndexExpr(ast::Expr *e) {
  Type t = s.check(e);
  if (!e || t.isUnknown())
    return std::nullopt;
  if (t.kind != K::Int) {
    s.error(e->range) << "device index must be i64, got " << typeName(t);
    return std::nullopt;
  }
  const Value *v = s.valueOf(e);
  if (!v)
    return std::nullopt;
  if (v->i < 0) {
    s.error(e->range) << "device index must not be negative, got " << v->i;
    return std::nullopt;
  }
  return v->i;
}

void TopologyChecker::checkSegmentIndex(ast::Segment &seg, DeviceInfo &d,
                                        bool own, bool &hasSet) {
  if (seg.indexKind == ast::Segment::IndexKind::None) {
    if (d.isArray)
      s.error(seg.range) << "'" << seg.name << "' is an array; index it: '"
                         << seg.name << "[i]', '" << seg.name << "[*]' or '"
                         << seg.name << "[lo..hi]'";
    return;
  }
  if (!d.isArray) {
    s.error(seg.range) << "'" << seg.name
                       << "' is not an array and cannot be indexed";
    s.check(seg.lo.get());
    s.check(seg.hi.get());
    return;
  }
  std::optional<int64_t> lo, hi;
  bool isRange = false;
  switch (seg.indexKind) {
  case ast::Segment::IndexKind::None:
    return;
  case ast::Segment::IndexKind::All:
    hasSet = true;
    return;
  case ast::Segment::IndexKind::Single:
    lo = checkIndexExpr(seg.lo.get());
    if (lo)
      hi = *lo + 1;
    break;
  case ast::Segment::IndexKind::Range:
    hasSet = true;
    isRange = true;
    lo = checkIndexExpr(seg.lo.get());
    hi = checkIndexExpr(seg.hi.get());
    if (lo && hi && *lo >= *hi) {
      s.error(seg.range) << "index range " << *lo << ".." << *hi << " of '"
                         << seg.name << "' is empty";
      return;
    }
    break;
  }
  if (!lo || !hi)
    return;
  if (own && s.pendingBounds) {
    s.pendingBounds->push_back({seg.name, *lo, *hi, isRange, seg.range});
    return;
  }
  checkBound(d, seg.name, *lo, *hi, isRange, seg.range);
}

void TopologyChecker::checkBound(const DeviceInfo &d, llvm::StringRef name,
                                 int64_t lo, int64_t hi, bool isRange,
                                 const ast::SourceRange &range) {
  if (!d.count || hi <= *d.count)
    return;
  if (isRange)
    s.error(range) << "index range " << lo << ".." << hi
                   << " is out of range for '" << name << "' (" << *d.count
                   << " devices)";
  else
    s.error(range) << "index " << lo << " is out of range for '" << name
                   << "' (" << *d.count << " devices)";
}

} // namespace

void Sema::checkTopology(ast::TopologyDecl &topo) {
  TopologyChecker(*this, topo).run();
}

void Sema::checkProps(std::vector<ast::Prop> &props,
                      llvm::ArrayRef<topo::PropertySpec> specs,
                      llvm::StringRef owner) {
  WhereScope w(*this, Where::Const, "a constant expression");
  std::map<std::string, ast::SourceRange> seen;
  for (ast::Prop &p : props) {
    Type t = check(p.value.get());
    auto [prev, inserted] = seen.emplace(p.name, p.nameRange);
    if (!inserted) {
      auto diag = error(p.nameRange) << "duplicate property '" << p.name << "'";
      note(diag, prev->second, "previous value is here");
      continue;
    }
    const topo::PropertySpec *spec = topo::findProperty(specs, p.name);
    if (!spec) {
      error(p.nameRange) << "unknown property '" << p.name << "' for " << owner
                         << "; expected one of: "
                         << topo::listPropertyNames(specs);
      continue;
    }
    Type expected;
    switch (spec->valueKind) {
    case topo::PropValueKind::Quantity:
      expected = Type::quantity(spec->dim);
      break;
    case topo::PropValueKind::Integer:
      expected = Type::of(K::Int);
      break;
    case topo::PropValueKind::String:
      expected = Type::of(K::String);
      break;
    case topo::PropValueKind::Bool:
      expected = Type::of(K::Bool);
      break;
    case topo::PropValueKind::Number:
      expected = Type::of(K::Float);
      break;
    }
    if (!p.value || t.isUnknown())
      continue;
    if (!assignable(expected, t)) {
      error(p.value->range)
          << "property '" << p.name << "' of " << owner << " expects "
          << typeName(expected) << ", got " << typeName(t);
      continue;
    }
    const Value *v = valueOf(p.value.get());
    std::optional<double> x = v ? v->asNumber() : std::nullopt;
    if (!x)
      continue;
    if (spec->positive && *x <= 0)
      error(p.value->range) << "property '" << p.name << "' of " << owner
                            << " must be positive, got " << formatValue(*v, t);
    else if (!spec->positive && *x < 0)
      error(p.value->range)
          << "property '" << p.name << "' of " << owner
          << " must not be negative, got " << formatValue(*v, t);
  }
}

void Sema::checkTopologyEndpoint(ast::TopologyDecl &topo, ast::Endpoint &ep) {
  std::vector<PendingBound> *savedPending = pendingBounds;
  pendingBounds = nullptr;
  TopologyChecker(*this, topo).checkOutsideEndpoint(ep);
  pendingBounds = savedPending;
}
