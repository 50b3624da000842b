//===- Hwloc.cpp - Topology from hwloc's XML (lstopo --of xml) ------------===//
//
// hwloc 2 XML: <topology> holds one <object type="Machine"> whose subtree
// has Package objects (with Core and NUMANode descendants) and I/O
// objects: Bridge (bridge_type "0-1": a host bridge; "1-1": a PCI
// bridge), PCIDev (pci_type "CCCC [vvvv:dddd] ...", pci_link_speed in
// GB/s) and OSDev (cuda0, nvml0, mlx5_0, nvme0n1, with <info> children).
// <distances2 name="NVLinkBandwidth"> (or "XGMIBandwidth") gives MB/s
// between GPUs (and NVSwitches or CPUs) by gp_index.
//
// The machine: a cpu per Package (cores counted, memory of its NUMA
// nodes, CPUModel); GPUs (PCI class 0300/0302 of NVIDIA, AMD or Intel, or
// a CUDA/NVML/RSMI/OpenCL/LevelZero OSDev; not a BMC's VGA), NICs (class
// 02xx, or a network/OpenFabrics OSDev), NVMe drives (class 0108),
// NVSwitches (NVIDIA class 0680) as devices; a PCI bridge with two or more
// of them below it becomes a switch; every device or switch links to what
// is above it at its pci_link_speed; host bridges hang off the cpu of
// their package.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-import-topo/TopoImport.h"

#include <expat.h>

#include <cstring>
#include <map>
#include <memory>
#include <sstream>

using namespace sluice::import;

namespace {

struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<Element>> children;
  std::string text;
  size_t line = 0, column = 0;

  std::string attr(const std::string &key) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? std::string() : it->second;
  }
  std::string info(const std::string &key) const {
    for (const auto &c : children)
      if (c->name == "info" && c->attr("name") == key)
        return c->attr("value");
    return {};
  }
};

struct ParseState {
  std::unique_ptr<Element> root;
  std::vector<Element *> stack;
  XML_Parser parser = nullptr;
};

void XMLCALL onStart(void *data, const XML_Char *name, const XML_Char **attrs) {
  auto &s = *static_cast<ParseState *>(data);
  auto e = std::make_unique<Element>();
  e->name = name;
  for (size_t i = 0; attrs[i]; i += 2)
    e->attributes[attrs[i]] = attrs[i + 1];
  e->line = XML_GetCurrentLineNumber(s.parser);
  e->column = XML_GetCurrentColumnNumber(s.parser) + 1;
  Element *raw = e.get();
  if (s.stack.empty())
    s.root = std::move(e);
  else
    s.stack.back()->children.push_back(std::move(e));
  s.stack.push_back(raw);
}

void XMLCALL onEnd(void *data, const XML_Char *) {
  static_cast<ParseState *>(data)->stack.pop_back();
}

void XMLCALL onText(void *data, const XML_Char *text, int length) {
  auto &s = *static_cast<ParseState *>(data);
  if (!s.stack.empty())
    s.stack.back()->text.append(text, size_t(length));
}

std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

class Importer {
public:
  Importer(const std::string &path, const Defaults &defaults, Topology &out)
      : path(path), defaults(defaults), out(out) {}

  std::string error;

  bool run(const Element &root) {
    if (root.name != "topology")
      return fail(root, "expected a <topology> root element (hwloc XML), "
                        "got <" +
                            root.name + ">");
    const Element *machine = nullptr;
    for (const auto &c : root.children)
      if (c->name == "object" && c->attr("type") == "Machine")
        machine = c.get();
    if (!machine)
      return fail(root, "no <object type=\"Machine\"> in the topology");
    collectPackages(*machine);
    if (packages.empty()) {
      // No package objects: one cpu for the machine.
      Device d{"cpu", "cpu", 0, "", {}, "the machine (no Package objects)"};
      cpuOf[machine] = out.add(d);
      fillCpu(out.devices[cpuOf[machine]], *machine);
    }
    if (!visit(*machine, defaultCpu()))
      return false;
    for (const auto &c : root.children)
      if (c->name == "distances2" && !distances(*c))
        return false;
    // Sockets: a link between every pair of packages.
    for (size_t a = 0; a < packages.size(); ++a)
      for (size_t b = a + 1; b < packages.size(); ++b)
        out.links.push_back({cpuOf[packages[a]], cpuOf[packages[b]],
                             defaults.socketLink, "smp",
                             "socket interconnect, not in the XML", true});
    out.notes.push_back("from hwloc XML: " + std::to_string(out.count("gpu")) +
                        " GPUs, " + std::to_string(out.count("nic")) +
                        " NICs, " + std::to_string(out.count("ssd")) +
                        " NVMe drives, " + std::to_string(out.count("cpu")) +
                        " packages");
    out.notes.push_back("PCIe link bandwidths are hwloc's pci_link_speed "
                        "(nominal, per direction); add compute figures and "
                        "NIC line rates from the spec sheets");
    return true;
  }

private:
  bool fail(const Element &e, const std::string &message) {
    error = path + ":" + std::to_string(e.line) + ":" +
            std::to_string(e.column) + ": error: " + message;
    return false;
  }

  static bool isObject(const Element &e, const char *type) {
    return e.name == "object" && e.attr("type") == type;
  }

  void collectPackages(const Element &e) {
    for (const auto &c : e.children) {
      if (isObject(*c, "Package")) {
        packages.push_back(c.get());
        size_t k = packages.size() - 1;
        Device d{"cpu", "cpu",
                 k,     c->info("CPUModel"),
                 {},    "Package " + c->attr("os_index")};
        cpuOf[c.get()] = out.add(d);
        fillCpu(out.devices[cpuOf[c.get()]], *c);
      }
      if (c->name == "object")
        collectPackages(*c);
    }
  }

  void count(const Element &e, size_t &cores, uint64_t &memory) {
    for (const auto &c : e.children) {
      if (isObject(*c, "Core"))
        ++cores;
      if (isObject(*c, "NUMANode"))
        memory += std::strtoull(c->attr("local_memory").c_str(), nullptr, 10);
      if (c->name == "object")
        count(*c, cores, memory);
    }
  }

  void fillCpu(Device &d, const Element &e) {
    size_t cores = 0;
    uint64_t memory = 0;
    count(e, cores, memory);
    if (cores)
      d.properties.push_back({"cores", std::to_string(cores)});
    if (memory)
      d.properties.push_back(
          {"memory", fmt(double(memory) / double(1ull << 30)) + " GiB"});
  }

  size_t defaultCpu() const {
    return packages.empty() ? out.devices.size() - 1 : cpuOf.at(packages[0]);
  }

  /// A unit waiting for its parent: a device (or switch) and the GB/s of
  /// its link upwards (0: unknown).
  struct Unit {
    size_t device;
    double speed;
    const Element *at;
  };

  double linkSpeed(const Element &e) const {
    return std::strtod(e.attr("pci_link_speed").c_str(), nullptr);
  }

  /// PCI class and vendor from pci_type "0302 [10de:20b2] ...".
  static void pciClass(const Element &e, std::string &cls,
                       std::string &vendor) {
    std::string t = e.attr("pci_type");
    cls = t.substr(0, 4);
    size_t open = t.find('[');
    vendor = open != std::string::npos ? t.substr(open + 1, 4) : "";
  }

  /// The units below `e`: devices of interest and the switches that join
  /// them.
  bool units(const Element &e, std::vector<Unit> &outUnits) {
    for (const auto &c : e.children)
      if (!unitsOf(*c, outUnits))
        return false;
    return true;
  }

  /// The units of one object: itself when it is a device of interest, a
  /// switch when it is a PCI bridge above two or more units, else the units
  /// below it.
  bool unitsOf(const Element &c, std::vector<Unit> &outUnits) {
    if (c.name != "object")
      return true;
    const std::string type = c.attr("type");
    if (type == "PCIDev") {
      size_t d = 0;
      bool interesting = false;
      if (!pciDevice(c, d, interesting))
        return false;
      if (interesting)
        outUnits.push_back({d, linkSpeed(c), &c});
      return true;
    }
    if (type != "Bridge" && type != "PCIBridge" && type != "HostBridge")
      return true;
    std::vector<Unit> below;
    if (!units(c, below))
      return false;
    const bool host =
        type == "HostBridge" || c.attr("bridge_type").compare(0, 2, "0-") == 0;
    if (host || below.size() < 2) {
      // A bridge that joins nothing passes its unit up; the slower of the
      // two links bounds the path.
      const double speed = linkSpeed(c);
      for (Unit u : below) {
        if (!host && speed > 0 && (u.speed <= 0 || speed < u.speed))
          u.speed = speed;
        outUnits.push_back(u);
      }
      return true;
    }
    size_t sw = out.add({"switch",
                         "pcie",
                         out.count("pcie"),
                         "PCIe switch",
                         {},
                         "PCI bridge " + c.attr("pci_busid")});
    for (const Unit &u : below)
      addPcieLink(u, sw);
    outUnits.push_back({sw, linkSpeed(c), &c});
    return true;
  }

  void addPcieLink(const Unit &u, size_t parent) {
    if (u.speed > 0)
      out.links.push_back({u.device, parent, u.speed, "pcie",
                           "pci_link_speed " + fmt(u.speed) + " GB/s", false});
    else
      out.links.push_back({u.device, parent, defaults.pcieX16(),
                           "pcie" + std::to_string(defaults.pcieGen) + "x16",
                           "no pci_link_speed in the XML", true});
  }

  bool pciDevice(const Element &e, size_t &device, bool &interesting) {
    std::string cls, vendor;
    pciClass(e, cls, vendor);
    const Element *cuda = nullptr, *gpuOs = nullptr, *net = nullptr,
                  *block = nullptr;
    for (const auto &c : e.children) {
      if (!isObject(*c, "OSDev"))
        continue;
      std::string sub = c->attr("subtype"), name = c->attr("name");
      std::string osType = c->attr("osdev_type");
      if (sub == "CUDA")
        cuda = c.get();
      // A compute GPU has a CUDA, NVML, RSMI, OpenCL or Level Zero OS
      // device; a DRM card alone (the BMC's VGA) does not make one.
      if (sub == "CUDA" || sub == "NVML" || sub == "RSMI" || sub == "OpenCL" ||
          sub == "LevelZero")
        gpuOs = gpuOs ? gpuOs : c.get();
      if (osType == "2" || osType == "3" || sub == "OpenFabrics")
        net = net ? net : c.get();
      if (osType == "0" || name.compare(0, 4, "nvme") == 0)
        block = block ? block : c.get();
    }
    Device d;
    d.note = "PCI " + e.attr("pci_busid");
    // Display controllers count when they are 3D controllers (0302) or VGA
    // (0300) of a GPU vendor: NVIDIA, AMD, Intel; not a server's ASPEED or
    // Matrox BMC graphics.
    const bool gpuVendor =
        vendor == "10de" || vendor == "1002" || vendor == "8086";
    if (((cls == "0300" || cls == "0302") && gpuVendor) || gpuOs) {
      d.kind = d.array = "gpu";
      const Element *info = cuda ? cuda : gpuOs;
      if (info) {
        d.model = info->info("GPUModel");
        std::string mem = info->info("CUDAGlobalMemorySize"); // KiB
        if (!mem.empty())
          d.properties.push_back(
              {"memory",
               fmt(std::strtod(mem.c_str(), nullptr) / (1 << 20)) + " GiB"});
        std::string sms = info->info("CUDAMultiProcessors");
        if (!sms.empty())
          d.properties.push_back({"sms", sms});
      }
    } else if (cls.compare(0, 2, "02") == 0 || net) {
      d.kind = d.array = "nic";
      d.model = e.info("PCIDevice");
      if (net)
        d.note += " (" + net->attr("name") + ")";
    } else if (cls == "0108" || block) {
      d.kind = "nvme";
      d.array = "ssd";
      d.model = e.info("PCIDevice");
      if (block)
        d.note += " (" + block->attr("name") + ")";
    } else if (cls == "0680" && vendor == "10de") {
      d.kind = "switch";
      d.array = "nvswitch";
      d.model = "NVSwitch";
    } else {
      interesting = false;
      return true;
    }
    d.index = out.count(d.array);
    interesting = true;
    device = out.add(d);
    byGp[e.attr("gp_index")] = device;
    for (const auto &c : e.children)
      if (isObject(*c, "OSDev"))
        byGp[c->attr("gp_index")] = device;
    return true;
  }

  /// Walks the normal objects; I/O subtrees hang off the nearest package.
  bool visit(const Element &e, size_t cpu) {
    auto it = cpuOf.find(&e);
    if (it != cpuOf.end())
      cpu = it->second;
    if (isObject(e, "Package"))
      byGp[e.attr("gp_index")] = cpu;
    for (const auto &c : e.children) {
      if (c->name != "object")
        continue;
      std::string type = c->attr("type");
      if (type == "Bridge" || type == "HostBridge" || type == "PCIBridge" ||
          type == "PCIDev") {
        std::vector<Unit> top;
        if (!unitsOf(*c, top))
          return false;
        for (const Unit &u : top)
          addPcieLink(u, cpu);
        continue;
      }
      if (!visit(*c, cpu))
        return false;
    }
    return true;
  }

  bool distances(const Element &d) {
    std::string name = d.attr("name");
    if (name != "NVLinkBandwidth" && name != "XGMIBandwidth")
      return true;
    if (d.attr("indexing") != "gp")
      return fail(d, "distances '" + name + "' are indexed by '" +
                         d.attr("indexing") + "', expected gp indexes");
    size_t count = std::strtoull(d.attr("nbobjs").c_str(), nullptr, 10);
    std::vector<std::string> indexes;
    std::vector<double> values;
    const Element *indexAt = &d;
    for (const auto &c : d.children) {
      std::istringstream in(c->text);
      if (c->name == "indexes") {
        indexAt = c.get();
        for (std::string s; in >> s;)
          indexes.push_back(s);
      } else if (c->name == "u64values") {
        for (std::string s; in >> s;) {
          char *end = nullptr;
          double v = std::strtod(s.c_str(), &end);
          if (!end || *end)
            return fail(*c,
                        "expected a number in <u64values>, got '" + s + "'");
          values.push_back(v);
        }
      }
    }
    if (count == 0 || indexes.size() != count || values.size() != count * count)
      return fail(d, "distances '" + name + "' declare " +
                         std::to_string(count) + " objects but have " +
                         std::to_string(indexes.size()) + " indexes and " +
                         std::to_string(values.size()) + " values (expected " +
                         std::to_string(count * count) + ")");
    std::vector<size_t> devs(count);
    for (size_t i = 0; i < count; ++i) {
      auto it = byGp.find(indexes[i]);
      if (it == byGp.end())
        return fail(*indexAt, "distances '" + name + "' name gp index " +
                                  indexes[i] +
                                  ", which is not a GPU, NVSwitch or package "
                                  "of the topology");
      devs[i] = it->second;
    }
    const std::string type = name == "NVLinkBandwidth" ? "nvlink" : "xgmi";
    for (size_t i = 0; i < count; ++i)
      for (size_t j = i + 1; j < count; ++j) {
        double v = std::max(values[i * count + j], values[j * count + i]);
        if (v > 0 && devs[i] != devs[j])
          out.links.push_back({devs[i], devs[j], v / 1000, type,
                               "hwloc " + name + " " + fmt(v) + " MB/s",
                               false});
      }
    return true;
  }

  const std::string &path;
  const Defaults &defaults;
  Topology &out;
  std::vector<const Element *> packages;
  std::map<const Element *, size_t> cpuOf;
  std::map<std::string, size_t> byGp;
};

} // namespace

bool sluice::import::readHwloc(const std::string &path, const std::string &text,
                               const Defaults &defaults, Topology &out,
                               std::string &error) {
  ParseState state;
  state.parser = XML_ParserCreate(nullptr);
  XML_SetUserData(state.parser, &state);
  XML_SetElementHandler(state.parser, onStart, onEnd);
  XML_SetCharacterDataHandler(state.parser, onText);
  if (XML_Parse(state.parser, text.data(), int(text.size()), 1) ==
      XML_STATUS_ERROR) {
    error = path + ":" +
            std::to_string(XML_GetCurrentLineNumber(state.parser)) + ":" +
            std::to_string(XML_GetCurrentColumnNumber(state.parser) + 1) +
            ": error: " + XML_ErrorString(XML_GetErrorCode(state.parser));
    XML_ParserFree(state.parser);
    return false;
  }
  XML_ParserFree(state.parser);
  if (!state.root) {
    error = path + ":1:1: error: empty XML document";
    return false;
  }
  Importer importer(path, defaults, out);
  if (!importer.run(*state.root)) {
    error = importer.error;
    return false;
  }
  return true;
}
