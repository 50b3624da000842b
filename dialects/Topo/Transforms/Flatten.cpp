//===- Flatten.cpp - Expand a topology into physical devices and links ----===//
//
// topo-flatten: turns the chosen topology into a flat one with one
// topo.device per physical device (named by its full path, e.g.
// "server[3].gpu[2]") and one topo.link per link between them. Arrays are
// expanded, instances replaced by copies of their topology's devices and
// links under the instance's path, and overrides applied. Each topology is
// flattened once (relative to itself) and its result reused for every
// instance of it.
//
//===----------------------------------------------------------------------===//
#include "dialects/Topo/Transforms/Passes.h"

#include "dialects/Topo/IR/TopoOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sluice::topo {
#define GEN_PASS_DEF_TOPOFLATTEN
#include "dialects/Topo/Transforms/Passes.h.inc"
} // namespace sluice::topo

using namespace mlir;
using namespace sluice;
using namespace sluice::topo;

namespace {

/// One physical device, named by its path relative to the topology being
/// flattened.
struct FlatDevice {
  std::string path;
  DeviceKind kind;
  DictionaryAttr props;
  Location loc;
};

/// One link between two physical devices (paths as in FlatDevice).
struct FlatLink {
  std::string from;
  std::string to;
  LinkDirection direction;
  DictionaryAttr props;
  bool measured;
  Location loc;
};

/// A flattened topology, in output order.
struct FlatTopology {
  std::vector<FlatDevice> devices;
  std::vector<FlatLink> links;
};

/// How many devices and links a topology flattens to (saturating).
struct FlatSize {
  uint64_t devices = 0;
  uint64_t links = 0;
};

/// The most devices and links a flat topology may have. Instances of arrays
/// of instances multiply; the product is checked before anything is copied.
constexpr uint64_t kMaxFlatDevices = 1000000;
constexpr uint64_t kMaxFlatLinks = 10000000;

/// Flattens topologies on demand and remembers each result.
class Flattener {
public:
  /// The devices and links of `topology`, paths relative to it; null after
  /// reporting an error.
  const FlatTopology *flatten(TopologyOp topology);

  /// What `topology` flattens to, without flattening it; nullopt on an
  /// instancing cycle or a missing target (flatten() reports those).
  std::optional<FlatSize> size(TopologyOp topology);

  /// Reports an error if `topology` flattens to more than the limits.
  LogicalResult checkSize(TopologyOp topology);

private:
  TopologyOp getTarget(InstanceOp instance);
  LogicalResult applyOverride(OverrideOp override,
                              std::vector<FlatLink> &links);

  SymbolTableCollection tables;
  /// Results by topology op. Only looked up, never iterated.
  llvm::DenseMap<Operation *, std::unique_ptr<FlatTopology>> done;
  /// Topologies being flattened, to stop on an instancing cycle.
  llvm::SmallPtrSet<Operation *, 8> active;
  /// size() results by topology op. Only looked up, never iterated.
  llvm::DenseMap<Operation *, std::optional<FlatSize>> sizes;
};

} // namespace

/// The path prefixes of the copies an instance makes: "server[0].",
/// "server[1].", ... for an array, "storage." for a scalar instance.
static std::vector<std::string> instancePrefixes(InstanceOp instance) {
  std::vector<std::string> prefixes;
  std::string name = instance.getSymName().str();
  if (!instance.isArray()) {
    prefixes.push_back(name + ".");
    return prefixes;
  }
  for (int64_t i = 0, e = instance.getNumInstances(); i < e; ++i)
    prefixes.push_back(name + "[" + std::to_string(i) + "].");
  return prefixes;
}

TopologyOp Flattener::getTarget(InstanceOp instance) {
  Operation *scope = instance->getParentOp()->getParentOp();
  auto target = dyn_cast_or_null<TopologyOp>(
      scope ? tables.lookupNearestSymbolFrom(scope, instance.getTargetAttr())
            : nullptr);
  if (!target)
    instance.emitOpError() << "no topology named " << instance.getTargetAttr();
  return target;
}

const FlatTopology *Flattener::flatten(TopologyOp topology) {
  auto it = done.find(topology);
  if (it != done.end())
    return it->second.get();
  if (!active.insert(topology).second) {
    topology.emitOpError() << "instancing cycle through @"
                           << topology.getSymName();
    return nullptr;
  }
  auto fail = [&]() -> const FlatTopology * {
    active.erase(topology);
    done[topology] = nullptr;
    return nullptr;
  };

  auto result = std::make_unique<FlatTopology>();
  Block *body = topology.getBody();

  // Devices, in declaration order; arrays and instances in index order.
  for (Operation &op : *body) {
    if (auto device = dyn_cast<DeviceOp>(op)) {
      std::string name = device.getSymName().str();
      if (!device.isArray()) {
        result->devices.push_back(
            {name, device.getKind(), device.getProps(), device.getLoc()});
        continue;
      }
      for (int64_t i = 0, e = device.getNumDevices(); i < e; ++i)
        result->devices.push_back({name + "[" + std::to_string(i) + "]",
                                   device.getKind(), device.getProps(),
                                   device.getLoc()});
    } else if (auto instance = dyn_cast<InstanceOp>(op)) {
      TopologyOp target = getTarget(instance);
      const FlatTopology *nested = target ? flatten(target) : nullptr;
      if (!nested)
        return fail();
      for (const std::string &prefix : instancePrefixes(instance))
        for (const FlatDevice &device : nested->devices)
          result->devices.push_back(
              {prefix + device.path, device.kind, device.props, device.loc});
    }
  }

  // Links, in the same order.
  for (Operation &op : *body) {
    if (auto link = dyn_cast<LinkOp>(op)) {
      result->links.push_back({link.getFrom().getPath(), link.getTo().getPath(),
                               link.getDirection(), link.getProps(),
                               link.getMeasured(), link.getLoc()});
    } else if (auto instance = dyn_cast<InstanceOp>(op)) {
      const FlatTopology *nested = flatten(getTarget(instance));
      for (const std::string &prefix : instancePrefixes(instance))
        for (const FlatLink &link : nested->links)
          result->links.push_back({prefix + link.from, prefix + link.to,
                                   link.direction, link.props, link.measured,
                                   link.loc});
    }
  }

  // Overrides, in declaration order, once every link is known.
  for (auto override : body->getOps<OverrideOp>())
    if (failed(applyOverride(override, result->links)))
      return fail();

  active.erase(topology);
  const FlatTopology *flat = result.get();
  done[topology] = std::move(result);
  return flat;
}

/// The copies an instance makes.
static uint64_t copiesOf(InstanceOp instance) {
  return instance.isArray() ? static_cast<uint64_t>(instance.getNumInstances())
                            : 1;
}

std::optional<FlatSize> Flattener::size(TopologyOp topology) {
  auto it = sizes.find(topology);
  if (it != sizes.end())
    return it->second;
  // A cycle leaves the entry nullopt; flatten() reports it.
  sizes[topology] = std::nullopt;
  FlatSize total;
  for (Operation &op : *topology.getBody()) {
    if (auto device = dyn_cast<DeviceOp>(op)) {
      uint64_t n = device.isArray() ? device.getNumDevices() : 1;
      total.devices = llvm::SaturatingAdd(total.devices, n);
    } else if (isa<LinkOp, OverrideOp>(op)) {
      // A link, or an override that may split a two-way link in two.
      total.links = llvm::SaturatingAdd<uint64_t>(total.links, 1);
    } else if (auto instance = dyn_cast<InstanceOp>(op)) {
      Operation *scope = instance->getParentOp()->getParentOp();
      auto target = dyn_cast_or_null<TopologyOp>(
          scope
              ? tables.lookupNearestSymbolFrom(scope, instance.getTargetAttr())
              : nullptr);
      std::optional<FlatSize> nested = target ? size(target) : std::nullopt;
      if (!nested)
        return std::nullopt;
      uint64_t copies = copiesOf(instance);
      total.devices = llvm::SaturatingAdd(
          total.devices, llvm::SaturatingMultiply(copies, nested->devices));
      total.links = llvm::SaturatingAdd(
          total.links, llvm::SaturatingMultiply(copies, nested->links));
    }
  }
  sizes[topology] = total;
  return total;
}

LogicalResult Flattener::checkSize(TopologyOp topology) {
  std::optional<FlatSize> total = size(topology);
  if (!total ||
      (total->devices <= kMaxFlatDevices && total->links <= kMaxFlatLinks))
    return success();
  InFlightDiagnostic diag = topology.emitError();
  diag << "topology '" << topology.getSymName() << "' flattens to "
       << total->devices << " devices and " << total->links
       << " links; at most " << kMaxFlatDevices << " devices and "
       << kMaxFlatLinks << " links are allowed";
  // Point at the instance that contributes the most.
  InstanceOp largest;
  uint64_t largestDevices = 0;
  FlatSize largestEach;
  for (auto instance : topology.getBody()->getOps<InstanceOp>()) {
    Operation *scope = instance->getParentOp()->getParentOp();
    auto target = dyn_cast_or_null<TopologyOp>(
        scope ? tables.lookupNearestSymbolFrom(scope, instance.getTargetAttr())
              : nullptr);
    std::optional<FlatSize> nested = target ? size(target) : std::nullopt;
    if (!nested)
      continue;
    uint64_t devices =
        llvm::SaturatingMultiply(copiesOf(instance), nested->devices);
    if (!largest || devices > largestDevices) {
      largest = instance;
      largestDevices = devices;
      largestEach = *nested;
    }
  }
  if (largest)
    diag.attachNote(largest.getLoc())
        << "'" << largest.getSymName() << "' makes " << copiesOf(largest)
        << (copiesOf(largest) == 1 ? " copy" : " copies") << " of topology '"
        << largest.getTarget() << "' (" << largestEach.devices
        << (largestEach.devices == 1 ? " device and " : " devices and ")
        << largestEach.links << (largestEach.links == 1 ? " link" : " links")
        << " each)";
  return failure();
}

/// `props` with the entries of `changes` set (added or replaced).
static DictionaryAttr mergeProps(DictionaryAttr props, DictionaryAttr changes) {
  NamedAttrList merged(props);
  for (NamedAttribute change : changes)
    merged.set(change.getName(), change.getValue());
  return merged.getDictionary(props.getContext());
}

LogicalResult Flattener::applyOverride(OverrideOp override,
                                       std::vector<FlatLink> &links) {
  std::string a = override.getFrom().getPath();
  std::string b = override.getTo().getPath();
  bool both = override.getDirection() == LinkDirection::Both;
  DictionaryAttr changes = override.getProps();
  bool matched = false;
  for (size_t i = 0; i < links.size(); ++i) {
    FlatLink &link = links[i];
    if (link.measured)
      continue;
    bool same = link.from == a && link.to == b;
    bool reversed = link.from == b && link.to == a;
    if (!same && !reversed)
      continue;
    if (both || (link.direction == LinkDirection::Forward && same)) {
      link.props = mergeProps(link.props, changes);
      matched = true;
      continue;
    }
    if (link.direction == LinkDirection::Forward)
      continue; // a forward link from b to a
    // `a -> b` on a link `a <-> b` (or `b <-> a`): split it, in the link's
    // own orientation first, and change only the direction from a to b.
    FlatLink first = link;
    first.direction = LinkDirection::Forward;
    FlatLink second = first;
    std::swap(second.from, second.to);
    (same ? first : second).props = mergeProps(link.props, changes);
    links[i] = std::move(first);
    links.insert(links.begin() + i + 1, std::move(second));
    ++i;
    matched = true;
  }
  if (!matched)
    return override.emitOpError()
           << "override matches no link between " << a << " and " << b;
  return success();
}

namespace {
struct TopoFlattenPass
    : public sluice::topo::impl::TopoFlattenBase<TopoFlattenPass> {
  using TopoFlattenBase::TopoFlattenBase;

  void runOnOperation() override;
};
} // namespace

/// The default topology: the last one that no topology instances.
static TopologyOp findDefaultTop(ModuleOp module) {
  llvm::StringSet<> instanced;
  for (auto topology : module.getOps<TopologyOp>())
    for (auto instance : topology.getBody()->getOps<InstanceOp>())
      instanced.insert(instance.getTarget());
  TopologyOp found;
  for (auto topology : module.getOps<TopologyOp>())
    if (!instanced.contains(topology.getSymName()))
      found = topology;
  return found;
}

void TopoFlattenPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (module.getOps<TopologyOp>().empty())
    return;

  TopologyOp chosen;
  if (top.empty()) {
    chosen = findDefaultTop(module);
    if (!chosen) {
      module.emitError() << "every topology is instanced by another one; "
                            "name the one to flatten with top=";
      return signalPassFailure();
    }
  } else {
    for (auto topology : module.getOps<TopologyOp>())
      if (topology.getSymName() == top)
        chosen = topology;
    if (!chosen) {
      module.emitError() << "no topology named @" << top << " to flatten";
      return signalPassFailure();
    }
  }

  Flattener flattener;
  if (failed(flattener.checkSize(chosen)))
    return signalPassFailure();
  const FlatTopology *flat = flattener.flatten(chosen);
  if (!flat)
    return signalPassFailure();

  MLIRContext *ctx = &getContext();
  OpBuilder builder(chosen);
  auto result = builder.create<TopologyOp>(chosen.getLoc(), chosen.getSymName(),
                                           /*flat=*/true);
  builder.setInsertionPointToEnd(result.getBody());
  for (const FlatDevice &device : flat->devices)
    builder.create<DeviceOp>(device.loc, device.path, device.kind,
                             /*count=*/std::nullopt, device.props);
  for (const FlatLink &link : flat->links)
    builder.create<LinkOp>(link.loc, EndpointAttr::getFlat(ctx, link.from),
                           link.direction, EndpointAttr::getFlat(ctx, link.to),
                           link.props, link.measured);

  for (auto topology : llvm::make_early_inc_range(module.getOps<TopologyOp>()))
    if (topology != result)
      topology.erase();
}
