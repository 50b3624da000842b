//===- MLIRGen.cpp - Lowering the Sluice AST to MLIR ----------------------===//
//
// Topologies are elaborated in two steps. Elaboration evaluates a
// TopologyDecl under concrete parameter values into an ElabTopology (plain
// data: nodes and links with constant indices and property values; `for`
// loops unrolled, `[*]` and `[a..b]` expanded, instanced topologies
// elaborated first, measured matrices read). Emission then writes one
// topo.topology per elaborated topology, dependencies first.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/MLIRGen.h"

#include "dialects/Topo/IR/TopoOps.h"
#include "frontends/sluice/BandwidthMatrix.h"
#include "frontends/sluice/ConstEval.h"
#include "frontends/sluice/Frontend.h"
#include "frontends/sluice/MLIRGenAlgorithm.h"
#include "frontends/sluice/MLIRGenAlign.h"
#include "frontends/sluice/MLIRGenDemand.h"
#include "frontends/sluice/MLIRGenModel.h"
#include "frontends/sluice/MLIRGenWalk.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <map>
#include <set>

using namespace sluice;
using namespace sluice::ast;

namespace {

struct ElabSegment {
  std::string name;
  std::optional<int64_t> index;
};
using ElabPath = std::vector<ElabSegment>;

/// A device array, a scalar device, or an instance of another topology.
struct ElabNode {
  std::string name;
  bool isInstance = false;
  topo::DeviceKind kind = topo::DeviceKind::Gpu;
  std::string instanceOf; ///< symbol of the elaborated topology
  std::optional<int64_t> count;
  std::vector<std::pair<std::string, ConstValue>> props;
  SourceRange range;
};

struct ElabLink {
  ElabPath from, to;
  bool both = false;
  bool isOverride = false;
  bool measured = false;
  std::vector<std::pair<std::string, ConstValue>> props;
  SourceRange range;
};

struct ElabTopology {
  std::string symName;
  const TopologyDecl *decl = nullptr;
  std::vector<ElabNode> nodes;
  llvm::StringMap<size_t> nodeIndex;
  std::vector<ElabLink> links;
  /// `for` iterations run so far, over all loops (nested ones included).
  uint64_t loopIterations = 0;
};

/// Elaboration budgets of one topology. Each array and each loop is capped
/// on its own; these cap the products that nesting makes, before the memory
/// they would take is allocated.
constexpr uint64_t kMaxLoopIterations = 10000000;
constexpr uint64_t kMaxLinks = 10000000;

class MLIRGenImpl {
public:
  MLIRGenImpl(mlir::MLIRContext &ctx, const Program &program)
      : ctx(ctx), program(program), builder(&ctx) {}

  mlir::OwningOpRef<mlir::ModuleOp> run();

private:
  mlir::InFlightDiagnostic error(const SourceRange &r) {
    failed = true;
    return mlir::emitError(toLocation(&ctx, r));
  }
  mlir::Location loc(const SourceRange &r) { return toLocation(&ctx, r); }

  // Elaboration.
  ElabTopology *elaborate(const TopologyDecl &decl,
                          const std::vector<ConstValue> &paramValues,
                          const SourceRange &useSite);
  void elabItems(ElabTopology &topo, const std::vector<TopoItemPtr> &items,
                 ConstEnv &env, bool topLevel);
  void elabDevice(ElabTopology &topo, const DeviceItem &item, ConstEnv &env);
  void elabLink(ElabTopology &topo, const LinkItem &item, ConstEnv &env);
  void elabBandwidths(ElabTopology &topo, const BandwidthsItem &item,
                      ConstEnv &env);
  bool expandEndpoint(const ElabTopology &topo, const Endpoint &ep,
                      ConstEnv &env, std::vector<ElabPath> &out);
  bool evalProps(const std::vector<Prop> &props, ConstEnv &env,
                 std::vector<std::pair<std::string, ConstValue>> &out);
  std::optional<int64_t> evalInt(const Expr &e, ConstEnv &env,
                                 llvm::StringRef what);

  // Emission.
  void emit(const ElabTopology &topo);
  mlir::DictionaryAttr propsAttr(
      const std::vector<std::pair<std::string, ConstValue>> &props);
  mlir::Attribute valueAttr(const ConstValue &v);
  topo::EndpointAttr endpointAttr(const ElabPath &path);

  mlir::MLIRContext &ctx;
  const Program &program;
  mlir::OpBuilder builder;
  bool failed = false;

  ConstEnv globals;
  llvm::StringMap<const TopologyDecl *> topologyDecls;
  /// Elaborated topologies by symbol; `order` lists them dependencies first.
  std::map<std::string, std::unique_ptr<ElabTopology>> elaborated;
  std::vector<ElabTopology *> order;
  std::vector<std::string> instStack; ///< for instancing cycles
  /// Iterations left (the current one included) of the `for` loops being
  /// elaborated, outermost first.
  std::vector<uint64_t> loopLeft;
};

} // namespace

static std::string pathString(const ElabPath &path) {
  std::string out;
  for (const ElabSegment &s : path) {
    if (!out.empty())
      out += ".";
    out += s.name;
    if (s.index)
      out += "[" + std::to_string(*s.index) + "]";
  }
  return out;
}

std::optional<int64_t> MLIRGenImpl::evalInt(const Expr &e, ConstEnv &env,
                                            llvm::StringRef what) {
  auto v = evaluateConstant(e, env, &ctx);
  if (!v) {
    failed = true;
    return std::nullopt;
  }
  if (v->kind != ConstValue::Kind::Int) {
    error(e.range) << what << " must be an integer, got " << v->str();
    return std::nullopt;
  }
  return v->i;
}

bool MLIRGenImpl::evalProps(
    const std::vector<Prop> &props, ConstEnv &env,
    std::vector<std::pair<std::string, ConstValue>> &out) {
  bool ok = true;
  for (const Prop &p : props) {
    auto v = evaluateConstant(*p.value, env, &ctx);
    if (!v) {
      failed = true;
      ok = false;
      continue;
    }
    out.emplace_back(p.name, std::move(*v));
  }
  return ok;
}

ElabTopology *MLIRGenImpl::elaborate(const TopologyDecl &decl,
                                     const std::vector<ConstValue> &values,
                                     const SourceRange &useSite) {
  // The symbol: the declaration's name, plus non-default parameter values.
  std::string sym = decl.name;
  std::string suffix;
  for (size_t i = 0; i < decl.params.size(); ++i) {
    const Param &p = decl.params[i];
    std::optional<ConstValue> dflt;
    if (p.defaultValue)
      dflt = evaluateConstant(*p.defaultValue, globals, &ctx);
    if (dflt && dflt->str() == values[i].str())
      continue;
    suffix += (suffix.empty() ? "" : ",") + p.name + "=" + values[i].str();
  }
  if (!suffix.empty())
    sym += "(" + suffix + ")";

  auto it = elaborated.find(sym);
  if (it != elaborated.end())
    return it->second.get();
  if (llvm::is_contained(instStack, sym)) {
    error(useSite) << "topology '" << decl.name << "' instances itself";
    return nullptr;
  }
  if (instStack.size() > 64) {
    error(useSite) << "topology instances nest deeper than 64 levels";
    return nullptr;
  }
  instStack.push_back(sym);
  auto topo = std::make_unique<ElabTopology>();
  topo->symName = sym;
  topo->decl = &decl;
  ConstEnv env = globals;
  env.push();
  for (size_t i = 0; i < decl.params.size(); ++i)
    env.bind(decl.params[i].name, values[i]);
  elabItems(*topo, decl.items, env, /*topLevel=*/true);
  instStack.pop_back();

  ElabTopology *raw = topo.get();
  elaborated[sym] = std::move(topo);
  order.push_back(raw);
  return raw;
}

void MLIRGenImpl::elabItems(ElabTopology &topo,
                            const std::vector<TopoItemPtr> &items,
                            ConstEnv &env, bool topLevel) {
  // Devices first (links may name devices declared after them), then links
  // in declaration order. Lets are bound where they appear.
  if (topLevel) {
    for (const TopoItemPtr &item : items) {
      if (auto *let = llvm::dyn_cast<LetItem>(item.get())) {
        if (auto v = evaluateConstant(*let->value, env, &ctx))
          env.bind(let->name, *v);
        else
          failed = true;
      } else if (auto *dev = llvm::dyn_cast<DeviceItem>(item.get())) {
        elabDevice(topo, *dev, env);
      }
    }
  }
  for (const TopoItemPtr &item : items) {
    switch (item->getKind()) {
    case TopoItem::Kind::Device:
      if (!topLevel)
        error(item->range) << "devices cannot be declared inside a for loop; "
                              "declare an array instead";
      break;
    case TopoItem::Kind::Let:
      if (!topLevel) {
        auto *let = llvm::cast<LetItem>(item.get());
        if (auto v = evaluateConstant(*let->value, env, &ctx))
          env.bind(let->name, *v);
        else
          failed = true;
      }
      break;
    case TopoItem::Kind::Link:
      elabLink(topo, *llvm::cast<LinkItem>(item.get()), env);
      break;
    case TopoItem::Kind::Bandwidths:
      elabBandwidths(topo, *llvm::cast<BandwidthsItem>(item.get()), env);
      break;
    case TopoItem::Kind::For: {
      auto *loop = llvm::cast<ForItem>(item.get());
      auto lo = evalInt(*loop->lo, env, "a loop bound");
      auto hi = evalInt(*loop->hi, env, "a loop bound");
      if (!lo || !hi)
        break;
      if (*hi - *lo > 1000000) {
        error(loop->range) << "loop of " << (*hi - *lo)
                           << " iterations is too long (limit 1000000)";
        break;
      }
      uint64_t trips = *hi > *lo ? static_cast<uint64_t>(*hi - *lo) : 0;
      // Nested loops multiply: refuse before unrolling what cannot fit. The
      // estimate is the iterations run so far plus this loop's trips for
      // each iteration the enclosing loops have left (exact for rectangular
      // nests, never above the real total for triangular ones).
      uint64_t outer = 1;
      for (uint64_t left : loopLeft)
        outer = llvm::SaturatingMultiply(outer, left);
      uint64_t total = llvm::SaturatingAdd(
          topo.loopIterations, llvm::SaturatingMultiply(outer, trips));
      if (total > kMaxLoopIterations) {
        auto diag = error(loop->range);
        diag << "loop of " << trips << " iterations";
        if (!loopLeft.empty())
          diag << " inside loops of " << outer << " iterations";
        diag << " makes topology '" << topo.decl->name << "' run " << total
             << " loop iterations (limit " << kMaxLoopIterations << ")";
        break;
      }
      loopLeft.push_back(trips);
      for (int64_t i = *lo; i < *hi && !failed; ++i) {
        ++topo.loopIterations;
        env.push();
        env.bind(loop->var, ConstValue::ofInt(i));
        elabItems(topo, loop->body, env, /*topLevel=*/false);
        env.pop();
        --loopLeft.back();
      }
      loopLeft.pop_back();
      break;
    }
    }
  }
}

void MLIRGenImpl::elabDevice(ElabTopology &topo, const DeviceItem &item,
                             ConstEnv &env) {
  ElabNode node;
  node.name = item.name.str();
  node.range = item.range;
  if (item.count) {
    auto n = evalInt(*item.count, env, "an array size");
    if (!n)
      return;
    if (*n < 1 || *n > 1000000) {
      error(item.count->range) << "array size must be between 1 and 1000000, got "
                               << *n;
      return;
    }
    node.count = *n;
  }
  if (auto kind = topo::symbolizeDeviceKind(item.kind)) {
    if (item.hasArgs) {
      error(item.kindRange) << "device kind '" << item.kind
                            << "' takes no arguments";
      return;
    }
    node.kind = *kind;
    if (!evalProps(item.props, env, node.props))
      return;
  } else {
    auto declIt = topologyDecls.find(item.kind);
    if (declIt == topologyDecls.end()) {
      error(item.kindRange) << "unknown device kind or topology '" << item.kind
                            << "'";
      return;
    }
    if (!item.props.empty()) {
      error(item.props.front().nameRange)
          << "an instance of topology '" << item.kind
          << "' takes no properties; pass parameters in parentheses";
      return;
    }
    const TopologyDecl &decl = *declIt->second;
    std::vector<ConstValue> values(decl.params.size());
    std::vector<bool> given(decl.params.size(), false);
    size_t positional = 0;
    for (const Arg &a : item.args) {
      size_t idx = decl.params.size();
      if (a.name.empty()) {
        idx = positional++;
      } else {
        for (size_t k = 0; k < decl.params.size(); ++k)
          if (decl.params[k].name == a.name)
            idx = k;
      }
      if (idx >= decl.params.size()) {
        error(a.nameRange.begin.line ? a.nameRange : a.value->range)
            << "topology '" << decl.name << "' has no parameter "
            << (a.name.empty() ? "at this position" : "'" + a.name + "'");
        return;
      }
      auto v = evaluateConstant(*a.value, env, &ctx);
      if (!v) {
        failed = true;
        return;
      }
      values[idx] = *v;
      given[idx] = true;
    }
    for (size_t k = 0; k < decl.params.size(); ++k) {
      if (given[k])
        continue;
      if (!decl.params[k].defaultValue) {
        error(item.kindRange) << "missing argument '" << decl.params[k].name
                              << "' for topology '" << decl.name << "'";
        return;
      }
      auto v = evaluateConstant(*decl.params[k].defaultValue, globals, &ctx);
      if (!v) {
        failed = true;
        return;
      }
      values[k] = *v;
    }
    ElabTopology *inner = elaborate(decl, values, item.kindRange);
    if (!inner)
      return;
    node.isInstance = true;
    node.instanceOf = inner->symName;
  }
  if (topo.nodeIndex.count(node.name)) {
    error(item.nameRange) << "redefinition of '" << node.name
                          << "' in topology '" << topo.decl->name << "'";
    return;
  }
  topo.nodeIndex[node.name] = topo.nodes.size();
  topo.nodes.push_back(std::move(node));
}

bool MLIRGenImpl::expandEndpoint(const ElabTopology &topo, const Endpoint &ep,
                                 ConstEnv &env, std::vector<ElabPath> &out) {
  std::vector<ElabPath> paths = {ElabPath()};
  const ElabTopology *scope = &topo;
  for (const Segment &seg : ep.segments) {
    if (!scope) {
      error(seg.range) << "'" << seg.name
                       << "' follows a device, which has no parts";
      return false;
    }
    auto found = scope->nodeIndex.find(seg.name);
    if (found == scope->nodeIndex.end()) {
      error(seg.range) << "no device or instance named '" << seg.name
                       << "' in topology '" << scope->decl->name << "'";
      return false;
    }
    const ElabNode &node = scope->nodes[found->second];
    std::vector<std::optional<int64_t>> choices;
    auto checkIndex = [&](int64_t i, const SourceRange &r) {
      if (!node.count) {
        error(r) << "'" << seg.name << "' is not an array";
        return false;
      }
      if (i < 0 || i >= *node.count) {
        error(r) << "index " << i << " out of range for " << seg.name << "["
                 << *node.count << "]";
        return false;
      }
      return true;
    };
    switch (seg.indexKind) {
    case Segment::IndexKind::None:
      if (node.count) {
        error(seg.range) << "'" << seg.name << "' is an array of "
                         << *node.count << "; pick elements with [i], [a..b] "
                         << "or [*]";
        return false;
      }
      choices.push_back(std::nullopt);
      break;
    case Segment::IndexKind::Single: {
      auto i = evalInt(*seg.lo, env, "an index");
      if (!i || !checkIndex(*i, seg.lo->range))
        return false;
      choices.push_back(*i);
      break;
    }
    case Segment::IndexKind::All:
      if (!node.count) {
        error(seg.range) << "'" << seg.name << "' is not an array";
        return false;
      }
      for (int64_t i = 0; i < *node.count; ++i)
        choices.push_back(i);
      break;
    case Segment::IndexKind::Range: {
      auto lo = evalInt(*seg.lo, env, "a range bound");
      auto hi = evalInt(*seg.hi, env, "a range bound");
      if (!lo || !hi)
        return false;
      if (*lo >= *hi) {
        error(seg.range) << "empty range " << *lo << ".." << *hi;
        return false;
      }
      if (!checkIndex(*lo, seg.lo->range) ||
          !checkIndex(*hi - 1, seg.hi->range))
        return false;
      for (int64_t i = *lo; i < *hi; ++i)
        choices.push_back(i);
      break;
    }
    }
    uint64_t count =
        llvm::SaturatingMultiply<uint64_t>(paths.size(), choices.size());
    if (count > kMaxLinks) {
      error(ep.range) << "endpoint names " << count << " devices (limit "
                      << kMaxLinks << ")";
      return false;
    }
    std::vector<ElabPath> next;
    next.reserve(count);
    for (const ElabPath &p : paths)
      for (const auto &c : choices) {
        ElabPath q = p;
        q.push_back({seg.name, c});
        next.push_back(std::move(q));
      }
    paths = std::move(next);
    if (node.isInstance) {
      auto inner = elaborated.find(node.instanceOf);
      scope = inner == elaborated.end() ? nullptr : inner->second.get();
    } else {
      scope = nullptr;
    }
  }
  if (scope) {
    error(ep.range) << "'" << ep.segments.back().name
                    << "' is a topology instance; name a device inside it";
    return false;
  }
  out = std::move(paths);
  return true;
}

void MLIRGenImpl::elabLink(ElabTopology &topo, const LinkItem &item,
                           ConstEnv &env) {
  std::vector<ElabPath> froms, tos;
  if (!expandEndpoint(topo, item.from, env, froms) ||
      !expandEndpoint(topo, item.to, env, tos))
    return;
  std::vector<std::pair<std::string, ConstValue>> props;
  if (!evalProps(item.props, env, props))
    return;
  uint64_t expanded =
      llvm::SaturatingMultiply<uint64_t>(froms.size(), tos.size());
  if (expanded > kMaxLinks) {
    error(item.range) << "link expands to " << expanded << " links (limit "
                      << kMaxLinks << ")";
    return;
  }
  if (topo.links.size() + expanded > kMaxLinks) {
    error(item.range) << "link makes topology '" << topo.decl->name << "' hold "
                      << topo.links.size() + expanded << " links (limit "
                      << kMaxLinks << ")";
    return;
  }
  // With `<->` between overlapping sets, each unordered pair is linked once.
  std::set<std::pair<std::string, std::string>> seen;
  for (const ElabPath &f : froms)
    for (const ElabPath &t : tos) {
      std::string fs = pathString(f), ts = pathString(t);
      if (item.dir == LinkDir::Both) {
        if (seen.count({ts, fs}))
          continue;
        seen.insert({fs, ts});
      }
      if (fs == ts) {
        // `gpu[*] <-> gpu[*]` means every pair of distinct GPUs.
        if (froms.size() > 1 || tos.size() > 1)
          continue;
        error(item.range) << "link from '" << pathString(f)
                          << "' to itself";
        return;
      }
      ElabLink link;
      link.from = f;
      link.to = t;
      link.both = item.dir == LinkDir::Both;
      link.isOverride = item.isOverride;
      link.props = props;
      link.range = item.range;
      topo.links.push_back(std::move(link));
    }
}

void MLIRGenImpl::elabBandwidths(ElabTopology &topo,
                                 const BandwidthsItem &item, ConstEnv &env) {
  std::vector<ElabPath> devices;
  if (!expandEndpoint(topo, item.devices, env, devices))
    return;
  // The matrix file is found relative to the .sluice file that names it.
  llvm::SmallString<256> path(item.path);
  if (!llvm::sys::path::is_absolute(path)) {
    path = llvm::sys::path::parent_path(item.range.begin.fileName());
    llvm::sys::path::append(path, item.path);
  }
  // Only regular files: a device such as /dev/zero would never end.
  if (llvm::sys::fs::exists(path) && !llvm::sys::fs::is_regular_file(path)) {
    error(item.pathRange) << "cannot read bandwidth matrix '" << item.path
                          << "': not a regular file";
    return;
  }
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error(item.pathRange) << "cannot read bandwidth matrix '" << item.path
                          << "': " << buffer.getError().message();
    return;
  }
  std::vector<std::string> names;
  for (const ElabPath &d : devices)
    names.push_back(pathString(d));
  auto matrix = parseBandwidthMatrix((*buffer)->getBuffer(), item.path, names);
  if (!matrix) {
    error(item.pathRange) << llvm::toString(matrix.takeError());
    return;
  }
  for (const MeasuredBandwidth &m : matrix->links) {
    ElabLink link;
    link.from = devices[m.from];
    link.to = devices[m.to];
    link.measured = true;
    link.props.emplace_back(
        "bandwidth", ConstValue::ofQuantity(m.value * matrix->factor,
                                            Dim::bandwidth(), matrix->unit));
    link.range = item.range;
    topo.links.push_back(std::move(link));
  }
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

mlir::Attribute MLIRGenImpl::valueAttr(const ConstValue &v) {
  switch (v.kind) {
  case ConstValue::Kind::Int:
    return builder.getI64IntegerAttr(v.i);
  case ConstValue::Kind::Float:
    return builder.getF64FloatAttr(v.f);
  case ConstValue::Kind::Bool:
    return builder.getBoolAttr(v.b);
  case ConstValue::Kind::String:
  case ConstValue::Kind::Word:
    return builder.getStringAttr(v.s);
  case ConstValue::Kind::Quantity:
    return topo::QuantityAttr::get(&ctx, v.inUnit(), v.unit);
  case ConstValue::Kind::List: {
    llvm::SmallVector<mlir::Attribute> elts;
    for (const ConstValue &e : v.list)
      elts.push_back(valueAttr(e));
    return builder.getArrayAttr(elts);
  }
  }
  llvm_unreachable("unknown constant kind");
}

mlir::DictionaryAttr MLIRGenImpl::propsAttr(
    const std::vector<std::pair<std::string, ConstValue>> &props) {
  llvm::SmallVector<mlir::NamedAttribute> attrs;
  for (const auto &[name, value] : props)
    attrs.push_back(builder.getNamedAttr(name, valueAttr(value)));
  return builder.getDictionaryAttr(attrs);
}

topo::EndpointAttr MLIRGenImpl::endpointAttr(const ElabPath &path) {
  llvm::SmallVector<topo::EndpointSegment> segs;
  for (const ElabSegment &s : path)
    segs.push_back(topo::EndpointSegment::get(&ctx, s.name, s.index));
  return topo::EndpointAttr::get(&ctx, segs);
}

void MLIRGenImpl::emit(const ElabTopology &t) {
  auto topoOp = builder.create<topo::TopologyOp>(loc(t.decl->range), t.symName);
  mlir::OpBuilder::InsertionGuard guard(builder);
  mlir::Region &body = topoOp.getBodyRegion();
  if (body.empty())
    body.emplaceBlock();
  builder.setInsertionPointToStart(&body.front());
  for (const ElabNode &n : t.nodes) {
    if (n.isInstance)
      builder.create<topo::InstanceOp>(loc(n.range), n.name, n.instanceOf,
                                       n.count);
    else
      builder.create<topo::DeviceOp>(loc(n.range), n.name, n.kind, n.count,
                                     propsAttr(n.props));
  }
  for (const ElabLink &l : t.links) {
    auto dir = l.both ? topo::LinkDirection::Both : topo::LinkDirection::Forward;
    if (l.isOverride)
      builder.create<topo::OverrideOp>(loc(l.range), endpointAttr(l.from), dir,
                                       endpointAttr(l.to), propsAttr(l.props));
    else
      builder.create<topo::LinkOp>(loc(l.range), endpointAttr(l.from), dir,
                                   endpointAttr(l.to), propsAttr(l.props),
                                   l.measured);
  }
}

mlir::OwningOpRef<mlir::ModuleOp> MLIRGenImpl::run() {
  // The module is the main file as a whole (line 0): errors about the
  // program rather than a place in it (a job named on the command line that
  // it does not declare) name the file and quote no line.
  mlir::Location moduleLoc = mlir::UnknownLoc::get(&ctx);
  if (!program.modules.empty())
    moduleLoc =
        mlir::FileLineColLoc::get(&ctx, program.modules.back()->path, 0, 0);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(moduleLoc);

  // Top-level constants and the topology table.
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls) {
      if (auto *let = llvm::dyn_cast<LetDecl>(d.get())) {
        if (auto v = evaluateConstant(*let->value, globals, &ctx))
          globals.bind(let->name, *v);
        else
          failed = true;
      } else if (auto *t = llvm::dyn_cast<TopologyDecl>(d.get())) {
        topologyDecls[t->name] = t;
      }
    }
  if (failed)
    return nullptr;

  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls) {
      if (isWalkDecl(program, *d))
        continue; // lowered by mlirGenWalks below
      if (isAlgorithmDecl(program, *d))
        continue; // lowered by mlirGenAlgorithms below
      switch (d->getKind()) {
      case Decl::Kind::Import:
      case Decl::Kind::Let:
        break;
      case Decl::Kind::Topology: {
        // A parameterised topology is lowered with its defaults when every
        // parameter has one; otherwise only where it is instanced.
        auto *t = llvm::cast<TopologyDecl>(d.get());
        std::vector<ConstValue> values;
        bool allDefaults = true;
        for (const Param &p : t->params) {
          if (!p.defaultValue) {
            allDefaults = false;
            break;
          }
          auto v = evaluateConstant(*p.defaultValue, globals, &ctx);
          if (!v) {
            failed = true;
            allDefaults = false;
            break;
          }
          values.push_back(*v);
        }
        if (allDefaults)
          elaborate(*t, values, t->nameRange);
        break;
      }
      case Decl::Kind::Graph: // read by lowerDemands (MLIRGenDemand.cpp)
      case Decl::Kind::Walk:
      case Decl::Kind::Algorithm:
      case Decl::Kind::Schedule:
        break; // isWalkDecl or isAlgorithmDecl: never reached
      case Decl::Kind::Model: // transformers: lowerModels (MLIRGenModel.cpp)
        if (!checkModelSupported(llvm::cast<ModelDecl>(*d), &ctx))
          failed = true;
        break;
      case Decl::Kind::Job:
        if (isAlignJob(*d))
          break; // lowerAlignJobs (MLIRGenAlign.cpp)
        if (isModelJob(*d)) {
          if (!checkModelJobSupported(llvm::cast<JobDecl>(*d), program, &ctx))
            failed = true;
          break; // lowerModels (MLIRGenModel.cpp)
        }
        error(d->range) << "not supported yet: lowering job '" << d->name
                        << "' to MLIR (the plan dialect is not built yet)";
        break;
      case Decl::Kind::Demand:
        break; // after the topologies: lowerDemands (MLIRGenDemand.cpp)
      }
    }
  if (failed)
    return nullptr;

  builder.setInsertionPointToEnd(module->getBody());
  for (ElabTopology *t : order)
    emit(*t);
  if (mlir::failed(mlirGenWalks(*module, program, globals)))
    return nullptr;
  if (mlir::failed(mlirGenAlgorithms(*module, program, globals)))
    return nullptr;
  if (mlir::failed(lowerDemands(*module, program, globals)))
    return nullptr;
  if (mlir::failed(lowerModels(*module, program, globals)))
    return nullptr;
  if (mlir::failed(lowerAlignJobs(*module, program, globals)))
    return nullptr;
  if (mlir::failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

mlir::OwningOpRef<mlir::ModuleOp> sluice::mlirGen(mlir::MLIRContext &ctx,
                                                  const Program &program) {
  return MLIRGenImpl(ctx, program).run();
}

std::string sluice::defaultTopTopology(const Program &program) {
  if (program.modules.empty())
    return "";
  for (auto it = program.modules.back()->decls.rbegin();
       it != program.modules.back()->decls.rend(); ++it)
    if (llvm::isa<TopologyDecl>(it->get()))
      return (*it)->name;
  for (auto m = program.modules.rbegin(); m != program.modules.rend(); ++m)
    for (auto it = (*m)->decls.rbegin(); it != (*m)->decls.rend(); ++it)
      if (llvm::isa<TopologyDecl>(it->get()))
        return (*it)->name;
  return "";
}
