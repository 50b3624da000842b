//===- ExtractTopoGraph.cpp - Analysis graph of a flat topology -----------===//
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"

using namespace sluice;
using namespace mlir;

topo::TopologyOp sluice::findFlatTopology(ModuleOp module) {
  topo::TopologyOp flat;
  for (auto t : module.getOps<topo::TopologyOp>())
    if (t.getFlat())
      flat = t;
  return flat;
}

FailureOr<analysis::TopoGraph> sluice::extractTopoGraph(ModuleOp module) {
  topo::TopologyOp flat = findFlatTopology(module);
  if (!flat) {
    module.emitError() << "no flat topology to analyse; run topo-flatten first";
    return failure();
  }

  analysis::TopoGraph graph;
  for (auto dev : flat.getBody()->getOps<topo::DeviceOp>()) {
    unsigned id = graph.addDevice(dev.getSymName(),
                                  topo::stringifyDeviceKind(dev.getKind()));
    for (NamedAttribute prop : dev.getProps()) {
      StringRef name = prop.getName().getValue();
      Attribute value = prop.getValue();
      if (auto q = dyn_cast<topo::QuantityAttr>(value))
        graph.addQuantity(id, name, q.getBaseValue(), q.getDim(), q.str());
      else if (auto b = dyn_cast<BoolAttr>(value)) // before IntegerAttr: i1
        graph.addBool(id, name, b.getValue());
      else if (auto i = dyn_cast<IntegerAttr>(value))
        graph.addInt(id, name, i.getInt());
      else if (auto s = dyn_cast<StringAttr>(value))
        graph.addString(id, name, s.getValue());
      else if (auto f = dyn_cast<FloatAttr>(value)) // a Number property
        graph.addQuantity(id, name, f.getValueAsDouble(), Dim::none());
    }
  }

  unsigned linkIndex = 0;
  for (auto link : flat.getBody()->getOps<topo::LinkOp>()) {
    auto from = graph.findDevice(link.getFrom().getPath());
    auto to = graph.findDevice(link.getTo().getPath());
    if (!from || !to)
      return link.emitError() << "link endpoint names no device of the flat "
                                 "topology";
    DictionaryAttr props = link.getProps();
    auto bw = dyn_cast_or_null<topo::QuantityAttr>(props.get("bandwidth"));
    auto lat = dyn_cast_or_null<topo::QuantityAttr>(props.get("latency"));
    auto type = dyn_cast_or_null<StringAttr>(props.get("type"));
    if (!bw)
      return link.emitError() << "link has no bandwidth";
    double latency = lat ? lat.getBaseValue() : 0.0;
    if (link.getMeasured()) {
      unsigned arc = graph.addMeasured(*from, *to, bw.getBaseValue(), latency);
      graph.arcs[arc].latencyKnown = lat != nullptr;
      continue;
    }
    unsigned first =
        graph.addLink(*from, *to, bw.getBaseValue(), latency,
                      link.getDirection() == topo::LinkDirection::Both,
                      linkIndex++, type ? type.getValue() : StringRef());
    // A link without `latency` has an unknown one, not a zero one.
    for (unsigned i = first, e = graph.arcs.size(); i != e; ++i)
      graph.arcs[i].latencyKnown = lat != nullptr;
  }
  return graph;
}
