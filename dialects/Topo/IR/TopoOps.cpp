//===- TopoOps.cpp - Operations of the topo dialect -----------------------===//
//
// Builders, the endpoint and link-direction syntax of topo.link and
// topo.override, and the verifiers: property schemas (TopoSchema.h),
// endpoint resolution through instances, and instancing cycles.
//
//===----------------------------------------------------------------------===//
#include "dialects/Topo/IR/TopoOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::topo;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

static ParseResult parseEndpoint(OpAsmParser &parser, EndpointAttr &attr) {
  FailureOr<EndpointAttr> parsed = EndpointAttr::parsePath(parser);
  if (failed(parsed))
    return failure();
  attr = *parsed;
  return success();
}

static void printEndpoint(OpAsmPrinter &printer, Operation *,
                          EndpointAttr attr) {
  attr.printPath(printer);
}

/// kind ::= `gpu` | `cpu` | `nvme` | `nic` | `smartnic` | `switch` | `csd`
static ParseResult parseDeviceKind(OpAsmParser &parser, DeviceKindAttr &attr) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<DeviceKind> kind = symbolizeDeviceKind(keyword);
  if (!kind) {
    std::string kinds;
    for (DeviceKind k : allDeviceKinds())
      kinds += (kinds.empty() ? "" : ", ") + stringifyDeviceKind(k).str();
    return parser.emitError(loc) << "unknown device kind '" << keyword
                                 << "'; expected one of " << kinds;
  }
  attr = DeviceKindAttr::get(parser.getContext(), *kind);
  return success();
}

static void printDeviceKind(OpAsmPrinter &printer, Operation *,
                            DeviceKindAttr attr) {
  printer << stringifyDeviceKind(attr.getValue());
}

/// direction ::= `->` | `<->`
static ParseResult parseLinkDirection(OpAsmParser &parser,
                                      LinkDirectionAttr &attr) {
  LinkDirection direction = LinkDirection::Forward;
  if (failed(parser.parseOptionalArrow())) {
    if (parser.parseLess() || parser.parseArrow())
      return failure();
    direction = LinkDirection::Both;
  }
  attr = LinkDirectionAttr::get(parser.getContext(), direction);
  return success();
}

static void printLinkDirection(OpAsmPrinter &printer, Operation *,
                               LinkDirectionAttr attr) {
  printer << (attr.getValue() == LinkDirection::Both ? "<->" : "->");
}

#define GET_OP_CLASSES
#include "dialects/Topo/IR/TopoOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Names outside flat topologies: letters, digits and '_' only, so that the
/// flattened paths (`server[3].gpu[2]`) are unambiguous.
static bool isHierarchicalName(StringRef name) {
  return !name.empty() && llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_';
  });
}

/// The topology of a device, instance, link or override: their
/// HasParent<"TopologyOp"> is verified before their verifiers and symbol
/// uses run.
static TopologyOp getParentTopology(Operation *op) {
  return cast<TopologyOp>(op->getParentOp());
}

static LogicalResult verifyCount(Operation *op, std::optional<int64_t> count) {
  if (count && *count < 1)
    return op->emitOpError() << "count must be at least 1, got " << *count;
  return success();
}

/// How a property value reads in a diagnostic: "80 GiB (bytes)", "integer".
static std::string describeValue(Attribute value) {
  if (auto quantity = dyn_cast<QuantityAttr>(value))
    return quantity.str() + " (" + quantity.getDim().name() + ")";
  if (isa<BoolAttr>(value))
    return "bool";
  if (isa<IntegerAttr>(value))
    return "integer";
  if (isa<StringAttr>(value))
    return "string";
  if (isa<FloatAttr>(value))
    return "a number without a unit";
  return "an attribute that is not a property value";
}

static bool isUnsigned(IntegerAttr value) {
  return value.getType().isUnsignedInteger();
}

static bool isPositive(IntegerAttr value) {
  return isUnsigned(value) ? !value.getValue().isZero()
                           : value.getValue().isStrictlyPositive();
}

static std::string integerText(IntegerAttr value) {
  llvm::SmallString<16> text;
  value.getValue().toString(text, 10,
                            /*Signed=*/!isUnsigned(value));
  return text.str().str();
}

/// Checks `props` against `specs`. `owner` names the property's owner in
/// diagnostics: "property 'memory' of a gpu device", "link property
/// 'bandwidth'".
static LogicalResult
verifyProperties(Operation *op, DictionaryAttr props,
                 ArrayRef<PropertySpec> specs,
                 function_ref<std::string(StringRef)> owner,
                 function_ref<InFlightDiagnostic(StringRef)> unknownError) {
  for (NamedAttribute prop : props) {
    StringRef name = prop.getName().getValue();
    Attribute value = prop.getValue();
    const PropertySpec *spec = findProperty(specs, name);
    if (!spec)
      return unknownError(name)
             << "; expected one of " << listPropertyNames(specs);

    bool kindOk = false;
    switch (spec->valueKind) {
    case PropValueKind::Quantity:
      if (auto quantity = dyn_cast<QuantityAttr>(value))
        kindOk = quantity.getDim() == spec->dim;
      break;
    case PropValueKind::Integer:
      kindOk = isa<IntegerAttr>(value) && !isa<BoolAttr>(value);
      break;
    case PropValueKind::String:
      kindOk = isa<StringAttr>(value);
      break;
    case PropValueKind::Bool:
      kindOk = isa<BoolAttr>(value);
      break;
    case PropValueKind::Number:
      kindOk = isa<FloatAttr>(value) ||
               (isa<IntegerAttr>(value) && !isa<BoolAttr>(value));
      break;
    }
    if (!kindOk)
      return op->emitOpError()
             << owner(name) << " expects " << describeValueKind(*spec)
             << ", got " << describeValue(value);

    if (auto quantity = dyn_cast<QuantityAttr>(value)) {
      if (spec->positive && !(quantity.getValue() > 0))
        return op->emitOpError()
               << owner(name) << " must be positive, got " << quantity.str();
      if (!spec->positive && quantity.getValue() < 0)
        return op->emitOpError() << owner(name) << " must be non-negative, got "
                                 << quantity.str();
    } else if (auto number = dyn_cast<FloatAttr>(value);
               number && spec->positive && !(number.getValueAsDouble() > 0)) {
      return op->emitOpError() << owner(name) << " must be positive, got "
                               << number.getValueAsDouble();
    } else if (auto integer = dyn_cast<IntegerAttr>(value);
               integer && spec->positive && !isPositive(integer)) {
      return op->emitOpError() << owner(name) << " must be positive, got "
                               << integerText(integer);
    }
  }
  return success();
}

static LogicalResult verifyLinkProperties(Operation *op, DictionaryAttr props) {
  return verifyProperties(
      op, props, linkProperties(),
      [](StringRef name) { return ("link property '" + name + "'").str(); },
      [&](StringRef name) {
        return op->emitOpError() << "unknown link property '" << name << "'";
      });
}

/// Resolves `endpoint` inside `topology`: every segment but the last names an
/// instance, the last a device; indices are given exactly for arrays and in
/// range. Reports the first problem on `user`.
static LogicalResult resolveEndpoint(Operation *user, TopologyOp topology,
                                     EndpointAttr endpoint,
                                     SymbolTableCollection &tables) {
  TopologyOp scope = topology;
  ArrayRef<EndpointSegment> segments = endpoint.getSegments();
  for (size_t i = 0, e = segments.size(); i < e; ++i) {
    const EndpointSegment &segment = segments[i];
    StringRef name = segment.name.getValue();
    bool last = i + 1 == e;
    Operation *symbol = tables.lookupSymbolIn(scope, segment.name);
    if (!symbol)
      return user->emitOpError() << "no device or instance named '" << name
                                 << "' in @" << scope.getSymName();

    std::optional<int64_t> count;
    InstanceOp instance = dyn_cast<InstanceOp>(symbol);
    if (auto device = dyn_cast<DeviceOp>(symbol))
      count = device.getCount();
    else if (instance)
      count = instance.getCount();
    else
      return user->emitOpError()
             << "'" << name << "' in @" << scope.getSymName()
             << " is not a device or an instance";

    if (count && !segment.index)
      return user->emitOpError()
             << "'" << name << "' in @" << scope.getSymName()
             << " is an array of " << *count << "; expected an index";
    if (!count && segment.index)
      return user->emitOpError()
             << "'" << name << "' in @" << scope.getSymName()
             << " is not an array; unexpected index " << *segment.index;
    if (count && (*segment.index < 0 || *segment.index >= *count))
      return user->emitOpError()
             << "index " << *segment.index << " out of range for " << name
             << "[" << *count << "]";

    if (!instance) {
      if (last)
        return success();
      return user->emitOpError()
             << "'" << segment.str() << "' in @" << scope.getSymName()
             << " is a device; it has no member '"
             << segments[i + 1].name.getValue() << "'";
    }
    if (last)
      return user->emitOpError()
             << "'" << segment.str() << "' is an instance of "
             << instance.getTargetAttr() << ", not a device";
    Operation *parent = scope->getParentOp();
    auto target = dyn_cast_or_null<TopologyOp>(
        parent
            ? tables.lookupNearestSymbolFrom(parent, instance.getTargetAttr())
            : nullptr);
    if (!target)
      return user->emitOpError()
             << "'" << name << "' is an instance of "
             << instance.getTargetAttr() << ", which is not a topology";
    scope = target;
  }
  llvm_unreachable("endpoint verified to have at least one segment");
}

static LogicalResult verifyEndpoints(Operation *op, EndpointAttr from,
                                     EndpointAttr to,
                                     SymbolTableCollection &tables) {
  TopologyOp topology = getParentTopology(op);
  if (failed(resolveEndpoint(op, topology, from, tables)) ||
      failed(resolveEndpoint(op, topology, to, tables)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// TopologyOp
//===----------------------------------------------------------------------===//

void TopologyOp::build(OpBuilder &builder, OperationState &state,
                       StringRef name, bool flat) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  if (flat)
    state.addAttribute(getFlatAttrName(state.name), builder.getUnitAttr());
  state.addRegion()->emplaceBlock();
}

LogicalResult TopologyOp::verifyRegions() {
  for (Operation &op : *getBody())
    if (!isa<DeviceOp, InstanceOp, LinkOp, OverrideOp>(op))
      return op.emitOpError()
             << "is not allowed in a topology; expected topo.device, "
                "topo.instance, topo.link or topo.override";
  return success();
}

//===----------------------------------------------------------------------===//
// DeviceOp
//===----------------------------------------------------------------------===//

void DeviceOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                     DeviceKind kind, std::optional<int64_t> count,
                     DictionaryAttr props) {
  build(builder, state, name, kind,
        count ? builder.getI64IntegerAttr(*count) : IntegerAttr(), props);
}

LogicalResult DeviceOp::verify() {
  if (failed(verifyCount(*this, getCount())))
    return failure();
  bool flat = getParentTopology(*this).getFlat();
  if (flat && getCount())
    return emitOpError() << "a device in a flat topology cannot be an array";
  if (!flat && !isHierarchicalName(getSymName()))
    return emitOpError() << "device name '" << getSymName()
                         << "' may only contain letters, digits and '_'";

  std::string kind = stringifyDeviceKind(getKind()).str();
  return verifyProperties(
      *this, getProps(), deviceProperties(getKind()),
      [&](StringRef name) {
        return ("property '" + name + "' of a " + kind + " device").str();
      },
      [&](StringRef name) {
        return emitOpError() << "unknown property '" << name << "' for a "
                             << kind << " device";
      });
}

//===----------------------------------------------------------------------===//
// InstanceOp
//===----------------------------------------------------------------------===//

void InstanceOp::build(OpBuilder &builder, OperationState &state,
                       StringRef name, StringRef target,
                       std::optional<int64_t> count) {
  build(builder, state, name, target,
        count ? builder.getI64IntegerAttr(*count) : IntegerAttr());
}

LogicalResult InstanceOp::verify() {
  if (failed(verifyCount(*this, getCount())))
    return failure();
  if (getParentTopology(*this).getFlat())
    return emitOpError() << "a flat topology cannot contain instances";
  if (!isHierarchicalName(getSymName()))
    return emitOpError() << "instance name '" << getSymName()
                         << "' may only contain letters, digits and '_'";
  return success();
}

/// The topologies `topology` instances, in declaration order (unresolved
/// targets are skipped; their instance ops report them).
static SmallVector<std::pair<InstanceOp, TopologyOp>>
instancedTopologies(TopologyOp topology, SymbolTableCollection &tables) {
  SmallVector<std::pair<InstanceOp, TopologyOp>> result;
  Operation *parent = topology->getParentOp();
  if (!parent)
    return result;
  for (auto instance : topology.getBody()->getOps<InstanceOp>())
    if (auto target = dyn_cast_or_null<TopologyOp>(
            tables.lookupNearestSymbolFrom(parent, instance.getTargetAttr())))
      result.push_back({instance, target});
  return result;
}

/// Whether `to` is reachable from `from` through instances; on success
/// `path` holds the topologies from `from` to `to`.
static bool reaches(TopologyOp from, TopologyOp to,
                    SymbolTableCollection &tables,
                    llvm::SmallPtrSetImpl<Operation *> &visited,
                    SmallVectorImpl<TopologyOp> &path) {
  path.push_back(from);
  if (from == to)
    return true;
  if (visited.insert(from).second)
    for (auto [instance, target] : instancedTopologies(from, tables))
      if (reaches(target, to, tables, visited, path))
        return true;
  path.pop_back();
  return false;
}

static bool reaches(TopologyOp from, TopologyOp to,
                    SymbolTableCollection &tables,
                    SmallVectorImpl<TopologyOp> &path) {
  llvm::SmallPtrSet<Operation *, 8> visited;
  return reaches(from, to, tables, visited, path);
}

LogicalResult InstanceOp::verifySymbolUses(SymbolTableCollection &tables) {
  TopologyOp self = getParentTopology(*this);
  Operation *parent = self->getParentOp();
  Operation *symbol =
      parent ? tables.lookupNearestSymbolFrom(parent, getTargetAttr())
             : nullptr;
  if (!symbol)
    return emitOpError() << "no topology named " << getTargetAttr();
  auto target = dyn_cast<TopologyOp>(symbol);
  if (!target)
    return emitOpError() << getTargetAttr() << " is not a topology";

  SmallVector<TopologyOp> cycle;
  if (!reaches(target, self, tables, cycle))
    return success();

  // Report each cycle once, deterministically even when topologies are
  // verified in parallel: in the first topology (in block order) of the
  // strongly connected component, at its first instance into it.
  for (Operation &op : *self->getBlock()) {
    auto other = dyn_cast<TopologyOp>(op);
    if (!other)
      continue;
    if (other == self)
      break;
    SmallVector<TopologyOp> ignored;
    if (reaches(self, other, tables, ignored) &&
        reaches(other, self, tables, ignored))
      return success();
  }
  for (auto [instance, instanced] : instancedTopologies(self, tables)) {
    SmallVector<TopologyOp> ignored;
    if (reaches(instanced, self, tables, ignored)) {
      if (instance != *this)
        return success();
      break;
    }
  }

  InFlightDiagnostic diag = emitOpError()
                            << "instancing cycle: @" << self.getSymName();
  for (TopologyOp topology : cycle)
    diag << " -> @" << topology.getSymName();
  return diag;
}

//===----------------------------------------------------------------------===//
// LinkOp
//===----------------------------------------------------------------------===//

LogicalResult LinkOp::verify() {
  if (getFrom() == getTo())
    return emitOpError() << "link connects " << getFrom().getPath()
                         << " to itself";
  if (failed(verifyLinkProperties(*this, getProps())))
    return failure();
  if (!getProps().get("bandwidth"))
    return emitOpError() << "link requires a bandwidth property";
  return success();
}

LogicalResult LinkOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyEndpoints(*this, getFrom(), getTo(), tables);
}

//===----------------------------------------------------------------------===//
// OverrideOp
//===----------------------------------------------------------------------===//

LogicalResult OverrideOp::verify() {
  if (getFrom() == getTo())
    return emitOpError() << "override connects " << getFrom().getPath()
                         << " to itself";
  if (getProps().empty())
    return emitOpError() << "override must set at least one property";
  return verifyLinkProperties(*this, getProps());
}

LogicalResult OverrideOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyEndpoints(*this, getFrom(), getTo(), tables);
}
