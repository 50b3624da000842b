//===- TopoSchema.cpp - Device kinds and their typed properties -----------===//
#include "dialects/Topo/IR/TopoSchema.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
#include <vector>

// The generated stringify/symbolize functions of the topo enums.
#include "dialects/Topo/IR/TopoEnums.cpp.inc"

using namespace sluice;
using namespace sluice::topo;

static const DeviceKind kKinds[] = {DeviceKind::Gpu,      DeviceKind::Cpu,
                                    DeviceKind::Nvme,     DeviceKind::Nic,
                                    DeviceKind::SmartNic, DeviceKind::Switch,
                                    DeviceKind::Csd};

llvm::ArrayRef<DeviceKind> topo::allDeviceKinds() { return kKinds; }

namespace {
PropertySpec q(llvm::StringRef n, Dim d, llvm::StringRef s) {
  return {n, PropValueKind::Quantity, d, true, s};
}
PropertySpec i(llvm::StringRef n, llvm::StringRef s) {
  return {n, PropValueKind::Integer, Dim(), true, s};
}
PropertySpec str(llvm::StringRef n, llvm::StringRef s) {
  return {n, PropValueKind::String, Dim(), false, s};
}
PropertySpec b(llvm::StringRef n, llvm::StringRef s) {
  return {n, PropValueKind::Bool, Dim(), false, s};
}
PropertySpec num(llvm::StringRef n, llvm::StringRef s) {
  return {n, PropValueKind::Number, Dim(), true, s};
}
PropertySpec price() { return q("price", Dim::price(), "list price"); }
PropertySpec power() { return q("power", Dim::power(), "board power"); }
PropertySpec model() { return str("model", "product name"); }
} // namespace

llvm::ArrayRef<PropertySpec> topo::deviceProperties(DeviceKind kind) {
  static const std::vector<PropertySpec> gpu = {
      q("memory", Dim::bytes(), "device memory capacity"),
      q("memory_bandwidth", Dim::bandwidth(), "device memory bandwidth"),
      q("compute", Dim::compute(), "peak dense throughput for the job dtype"),
      i("sms", "streaming multiprocessors"),
      model(), price(), power()};
  static const std::vector<PropertySpec> cpu = {
      i("cores", "physical cores"),
      q("memory", Dim::bytes(), "host memory attached to this socket"),
      q("memory_bandwidth", Dim::bandwidth(), "host memory bandwidth"),
      q("compute", Dim::compute(), "peak throughput"),
      q("frequency", Dim::frequency(), "base clock"),
      model(), price(), power()};
  static const std::vector<PropertySpec> nvme = {
      q("capacity", Dim::bytes(), "usable capacity"),
      q("read", Dim::bandwidth(), "sequential read bandwidth"),
      q("write", Dim::bandwidth(), "sequential write bandwidth"),
      i("iops", "random 4 KiB read IOPS"),
      model(), price(), power()};
  static const std::vector<PropertySpec> nic = {
      q("bandwidth", Dim::bandwidth(), "line rate"),
      b("rdma", "supports RDMA (GPUDirect)"),
      model(), price(), power()};
  static const std::vector<PropertySpec> smartnic = {
      q("bandwidth", Dim::bandwidth(), "line rate"),
      q("compute", Dim::compute(), "on-NIC compute throughput"),
      q("memory", Dim::bytes(), "on-NIC memory"), i("cores", "on-NIC cores"),
      b("rdma", "supports RDMA"),
      // SmartDS: the compression engine (docs/flows.md, "Storage middle
      // tier (SmartDS)").
      q("compress", Dim::bandwidth(),
        "compression engine throughput (input bytes)"),
      num("compress_ratio", "best ratio the compression engine reaches"),
      q("decompress", Dim::bandwidth(),
        "decompression engine throughput (output bytes)"),
      model(), price(), power()};
  static const std::vector<PropertySpec> sw = {
      i("ports", "port count"),
      q("bandwidth", Dim::bandwidth(), "switching capacity"),
      b("reduce", "can reduce in the network (SHARP-style)"),
      model(), price(), power()};
  static const std::vector<PropertySpec> csd = {
      q("capacity", Dim::bytes(), "usable capacity"),
      q("read", Dim::bandwidth(), "internal read bandwidth"),
      q("write", Dim::bandwidth(), "internal write bandwidth"),
      q("compute", Dim::compute(), "near-storage compute throughput"),
      q("memory", Dim::bytes(), "near-storage memory"),
      model(), price(), power()};
  switch (kind) {
  case DeviceKind::Gpu:
    return gpu;
  case DeviceKind::Cpu:
    return cpu;
  case DeviceKind::Nvme:
    return nvme;
  case DeviceKind::Nic:
    return nic;
  case DeviceKind::SmartNic:
    return smartnic;
  case DeviceKind::Switch:
    return sw;
  case DeviceKind::Csd:
    return csd;
  }
  llvm_unreachable("unknown device kind");
}

llvm::ArrayRef<PropertySpec> topo::linkProperties() {
  static const std::vector<PropertySpec> link = {
      q("bandwidth", Dim::bandwidth(), "attained bandwidth per direction"),
      {"latency", PropValueKind::Quantity, Dim::time(), false,
       "one-way latency"},
      str("type", "link technology, e.g. \"nvlink4\", \"pcie4x16\""),
  };
  return link;
}

const PropertySpec *topo::findProperty(llvm::ArrayRef<PropertySpec> specs,
                                       llvm::StringRef name) {
  for (const PropertySpec &s : specs)
    if (s.name == name)
      return &s;
  return nullptr;
}

std::string topo::listPropertyNames(llvm::ArrayRef<PropertySpec> specs) {
  std::string out;
  for (const PropertySpec &s : specs) {
    if (!out.empty())
      out += ", ";
    out += s.name.str();
  }
  return out;
}

std::string topo::describeValueKind(const PropertySpec &spec) {
  switch (spec.valueKind) {
  case PropValueKind::Quantity:
    return spec.dim.name();
  case PropValueKind::Integer:
    return "integer";
  case PropValueKind::String:
    return "string";
  case PropValueKind::Bool:
    return "bool";
  case PropValueKind::Number:
    return "number";
  }
  llvm_unreachable("unknown value kind");
}
