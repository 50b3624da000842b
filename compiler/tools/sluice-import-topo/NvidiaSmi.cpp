//===- NvidiaSmi.cpp - Topology from `nvidia-smi topo -m` -----------------===//
//
// The matrix nvidia-smi prints:
//
//           GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity   GPU NUMA ID
//   GPU0     X      NV18    PXB     0-55,112-167    0               N/A
//   GPU1    NV18     X      PXB     0-55,112-167    0               N/A
//   NIC0    PXB     PXB      X
//
//   NIC Legend:
//     NIC0: mlx5_0
//
// Columns are device names (GPU<n>, NIC<n>, or older versions' mlx5_<n>)
// up to "CPU Affinity"; a row names its device, then one link kind per
// column, then (for GPUs) the affinities. Link kinds: X (self), NV<n> (n
// bonded NVLinks), PIX (at most one PCIe bridge), PXB (several bridges, no
// host bridge), PHB (a host bridge), NODE (host bridges of one NUMA node),
// SYS (or the older SOC: across the SMP interconnect).
//
// The machine: one cpu per NUMA node; NV<n> pairs as direct links of n x
// the per-link bandwidth, or, when every GPU pair shows the same NV<n>,
// one NVSwitch (the matrix of an NVSwitch system) linked to each GPU with
// n links; the PCIe tree from the PIX and PXB relations (a switch per
// group of devices that are PIX of each other, an upstream switch joining
// groups that are PXB), each tree on the cpu of its NUMA node.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-import-topo/TopoImport.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <sstream>

using namespace sluice::import;

namespace {

struct Token {
  std::string text;
  size_t column = 0; // 1-based
};

std::string stripAnsi(const std::string &line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() &&
             !std::isalpha(static_cast<unsigned char>(line[i])))
        ++i;
      continue;
    }
    out += line[i];
  }
  return out;
}

std::vector<Token> tokens(const std::string &line) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    if (i == line.size())
      break;
    size_t start = i;
    while (i < line.size() &&
           !std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    out.push_back({line.substr(start, i - start), start + 1});
  }
  return out;
}

bool isGpuName(const std::string &s) {
  return s.size() > 3 && s.compare(0, 3, "GPU") == 0 &&
         std::all_of(s.begin() + 3, s.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c));
         });
}

/// PCIe closeness: 1 PIX, 2 PXB, 3 PHB, 4 NODE, 5 SYS; 0 self; -n NV<n>.
enum Level { Self = 0, Pix = 1, Pxb = 2, Phb = 3, Node = 4, Sys = 5 };

bool parseLevel(const std::string &s, int &level) {
  static const std::map<std::string, int> kinds = {
      {"X", Self},    {"PIX", Pix}, {"PXB", Pxb}, {"PHB", Phb},
      {"NODE", Node}, {"SYS", Sys}, {"SOC", Sys}};
  auto it = kinds.find(s);
  if (it != kinds.end()) {
    level = it->second;
    return true;
  }
  if (s.size() > 2 && s.compare(0, 2, "NV") == 0 &&
      std::all_of(
          s.begin() + 2, s.end(),
          [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
      s.size() < 6) {
    level = -std::stoi(s.substr(2));
    return level < 0;
  }
  return false;
}

struct UnionFind {
  std::vector<size_t> parent;
  explicit UnionFind(size_t n) : parent(n) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  size_t find(size_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(size_t a, size_t b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent[std::max(a, b)] = std::min(a, b);
  }
};

std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

} // namespace

bool sluice::import::readNvidiaSmi(const std::string &path,
                                   const std::string &text,
                                   const Defaults &defaults, Topology &out,
                                   std::string &error) {
  auto fail = [&](size_t line, size_t column, const std::string &message) {
    error = path + ":" + std::to_string(line) + ":" + std::to_string(column) +
            ": error: " + message;
    return false;
  };
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r')
        line.pop_back();
      lines.push_back(stripAnsi(line));
    }
  }
  // The header: the first line whose first token is GPU0.
  size_t header = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    auto t = tokens(lines[i]);
    if (!t.empty() && t[0].text == "GPU0") {
      header = i;
      break;
    }
  }
  if (header == lines.size())
    return fail(1, 1,
                "no 'GPU0' column header: not the output of "
                "'nvidia-smi topo -m'");
  std::vector<std::string> names;
  for (const Token &t : tokens(lines[header])) {
    if (t.text == "CPU" || t.text == "NUMA" || t.text == "GPU" ||
        t.text == "Affinity" || t.text == "ID")
      break;
    if (std::find(names.begin(), names.end(), t.text) != names.end())
      return fail(header + 1, t.column,
                  "column '" + t.text + "' appears twice");
    names.push_back(t.text);
  }
  const size_t n = names.size();
  std::vector<std::vector<int>> level(n, std::vector<int>(n, Sys));
  std::vector<std::vector<std::pair<size_t, size_t>>> where(
      n, std::vector<std::pair<size_t, size_t>>(n));
  std::vector<bool> seen(n, false);
  std::vector<std::string> cpuAffinity(n), numaAffinity(n);
  std::map<std::string, std::string> legend;
  size_t i = header + 1;
  for (; i < lines.size(); ++i) {
    auto t = tokens(lines[i]);
    if (t.empty())
      continue;
    if (t[0].text == "Legend:" || t[0].text == "NIC")
      break;
    auto it = std::find(names.begin(), names.end(), t[0].text);
    if (it == names.end())
      return fail(i + 1, t[0].column,
                  "row '" + t[0].text + "' is not one of the " +
                      std::to_string(n) + " columns of the header");
    size_t r = size_t(it - names.begin());
    if (seen[r])
      return fail(i + 1, t[0].column, "row '" + t[0].text + "' appears twice");
    seen[r] = true;
    if (t.size() < n + 1)
      return fail(
          i + 1, lines[i].size() + 1,
          "row '" + t[0].text + "' has " + std::to_string(t.size() - 1) +
              " link kinds, the header has " + std::to_string(n) + " columns");
    for (size_t c = 0; c < n; ++c) {
      const Token &cell = t[c + 1];
      int l;
      if (!parseLevel(cell.text, l))
        return fail(i + 1, cell.column,
                    "unknown link kind '" + cell.text +
                        "' (expected X, NV<n>, PIX, PXB, PHB, NODE or SYS)");
      if ((l == Self) != (c == r))
        return fail(i + 1, cell.column,
                    c == r ? "expected 'X' on the diagonal, got '" + cell.text +
                                 "'"
                           : std::string("'X' off the diagonal"));
      level[r][c] = l;
      where[r][c] = {i + 1, cell.column};
    }
    if (t.size() > n + 1)
      cpuAffinity[r] = t[n + 1].text;
    if (t.size() > n + 2)
      numaAffinity[r] = t[n + 2].text;
  }
  for (size_t r = 0; r < n; ++r)
    if (!seen[r])
      return fail(header + 1, 1, "no row for column '" + names[r] + "'");
  for (size_t r = 0; r < n; ++r)
    for (size_t c = r + 1; c < n; ++c)
      if (level[r][c] != level[c][r])
        return fail(where[c][r].first, where[c][r].second,
                    "the matrix is not symmetric: " + names[r] + " -> " +
                        names[c] + " and " + names[c] + " -> " + names[r] +
                        " differ");
  // NIC legend: "NIC0: mlx5_0".
  for (; i < lines.size(); ++i) {
    auto t = tokens(lines[i]);
    if (t.size() == 2 && t[0].text.size() > 1 && t[0].text.back() == ':')
      legend[t[0].text.substr(0, t[0].text.size() - 1)] = t[1].text;
  }

  // Devices: GPUs, then NICs, in column order.
  std::vector<size_t> gpus, nics;
  for (size_t c = 0; c < n; ++c)
    (isGpuName(names[c]) ? gpus : nics).push_back(c);
  if (gpus.empty())
    return fail(header + 1, 1, "no GPU columns");
  // NUMA nodes: the GPUs' NUMA affinity (else their CPU affinity).
  std::vector<std::string> numaKey(n);
  for (size_t g : gpus)
    numaKey[g] = !numaAffinity[g].empty() && numaAffinity[g] != "N/A"
                     ? numaAffinity[g]
                     : cpuAffinity[g];
  for (size_t c : nics) {
    // The NUMA node of the closest GPU, when they share one.
    size_t best = gpus[0];
    for (size_t g : gpus)
      if (level[c][g] > 0 &&
          (level[c][best] <= 0 || level[c][g] < level[c][best]))
        best = g;
    numaKey[c] = level[c][best] > 0 && level[c][best] <= Node
                     ? numaKey[best]
                     : numaKey[gpus[0]];
  }
  std::vector<std::string> numaNodes;
  for (size_t g : gpus)
    if (std::find(numaNodes.begin(), numaNodes.end(), numaKey[g]) ==
        numaNodes.end())
      numaNodes.push_back(numaKey[g]);
  std::sort(numaNodes.begin(), numaNodes.end(),
            [](const std::string &a, const std::string &b) {
              bool na =
                  !a.empty() && std::isdigit(static_cast<unsigned char>(a[0]));
              bool nb =
                  !b.empty() && std::isdigit(static_cast<unsigned char>(b[0]));
              if (na && nb)
                return std::stol(a) < std::stol(b);
              return a < b;
            });
  std::vector<size_t> cpuOf(numaNodes.size());
  for (size_t k = 0; k < numaNodes.size(); ++k) {
    Device d{"cpu", "cpu", k, "", {}, "NUMA node " + numaNodes[k]};
    for (size_t g : gpus)
      if (numaKey[g] == numaNodes[k] && !cpuAffinity[g].empty()) {
        d.note += ", CPUs " + cpuAffinity[g];
        break;
      }
    cpuOf[k] = out.add(d);
  }
  std::vector<size_t> dev(n);
  for (size_t g : gpus)
    dev[g] = out.add({"gpu", "gpu", out.count("gpu"), "", {}, names[g]});
  for (size_t c : nics) {
    auto it = legend.find(names[c]);
    std::string name = it != legend.end() ? it->second : names[c];
    dev[c] =
        out.add({"nic",
                 "nic",
                 out.count("nic"),
                 "",
                 {},
                 names[c] + (it != legend.end() ? " (" + name + ")" : "")});
  }
  auto cpuFor = [&](size_t c) {
    size_t k =
        size_t(std::find(numaNodes.begin(), numaNodes.end(), numaKey[c]) -
               numaNodes.begin());
    return cpuOf[k < numaNodes.size() ? k : 0];
  };

  // NVLink.
  int common = 0;
  bool allSame = gpus.size() > 2;
  for (size_t a : gpus)
    for (size_t b : gpus)
      if (a != b) {
        if (!common)
          common = level[a][b];
        if (level[a][b] >= 0 || level[a][b] != common)
          allSame = false;
      }
  if (allSame) {
    size_t sw = out.add({"switch",
                         "nvswitch",
                         0,
                         "NVSwitch",
                         {},
                         "every GPU pair is NV" + std::to_string(-common) +
                             ": an NVSwitch system"});
    for (size_t g : gpus)
      out.links.push_back(
          {dev[g], sw, -common * defaults.nvlinkPerLink, "nvlink",
           "NV" + std::to_string(-common) + ": " + std::to_string(-common) +
               " links x " + fmt(defaults.nvlinkPerLink) + " GB/s",
           true});
  } else {
    for (size_t x = 0; x < gpus.size(); ++x)
      for (size_t y = x + 1; y < gpus.size(); ++y) {
        int l = level[gpus[x]][gpus[y]];
        if (l < 0)
          out.links.push_back({dev[gpus[x]], dev[gpus[y]],
                               -l * defaults.nvlinkPerLink, "nvlink",
                               "NV" + std::to_string(-l) + ": " +
                                   std::to_string(-l) + " links x " +
                                   fmt(defaults.nvlinkPerLink) + " GB/s",
                               true});
      }
  }

  // The PCIe tree: groups at PIX, then at PXB.
  const double x16 = defaults.pcieX16();
  const std::string pcieNote = "PCIe Gen" + std::to_string(defaults.pcieGen) +
                               " x16 nominal (not in the matrix)";
  const std::string pcieType =
      "pcie" + std::to_string(defaults.pcieGen) + "x16";
  UnionFind pix(n), pxb(n);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      if (a != b && level[a][b] > 0) {
        if (level[a][b] <= Pix)
          pix.unite(a, b);
        if (level[a][b] <= Pxb)
          pxb.unite(a, b);
      }
  // Level-1 roots: a switch for each PIX group of two or more.
  std::vector<size_t> unitOf(n); // the topology device at the top of c's group
  std::map<size_t, size_t> pixSwitch;
  for (size_t c = 0; c < n; ++c) {
    size_t root = pix.find(c);
    bool group = false;
    for (size_t o = 0; o < n; ++o)
      group |= o != c && pix.find(o) == root;
    if (!group) {
      unitOf[c] = dev[c];
      continue;
    }
    if (!pixSwitch.count(root))
      pixSwitch[root] = out.add({"switch",
                                 "pcie",
                                 out.count("pcie"),
                                 "PCIe switch",
                                 {},
                                 "devices at PIX of each other"});
    out.links.push_back(
        {dev[c], pixSwitch[root], x16, pcieType, pcieNote, true});
    unitOf[c] = pixSwitch[root];
  }
  // Level 2: an upstream switch for each PXB group of two or more units.
  std::map<size_t, std::vector<size_t>> pxbUnits;
  for (size_t c = 0; c < n; ++c) {
    auto &units = pxbUnits[pxb.find(c)];
    if (std::find(units.begin(), units.end(), unitOf[c]) == units.end())
      units.push_back(unitOf[c]);
  }
  for (auto &[root, units] : pxbUnits) {
    size_t top = units[0];
    if (units.size() > 1) {
      top = out.add({"switch",
                     "pcie",
                     out.count("pcie"),
                     "PCIe switch",
                     {},
                     "upstream of devices at PXB of each other"});
      for (size_t u : units)
        out.links.push_back({u, top, x16, pcieType, pcieNote, true});
    }
    out.links.push_back({top, cpuFor(root), x16, pcieType, pcieNote, true});
  }
  // Sockets.
  for (size_t a = 0; a < cpuOf.size(); ++a)
    for (size_t b = a + 1; b < cpuOf.size(); ++b)
      out.links.push_back({cpuOf[a], cpuOf[b], defaults.socketLink, "smp",
                           "SYS: the SMP interconnect, bandwidth not in the "
                           "matrix",
                           true});
  out.notes.push_back(
      "from 'nvidia-smi topo -m': " + std::to_string(gpus.size()) + " GPUs, " +
      std::to_string(nics.size()) + " NICs, " +
      std::to_string(numaNodes.size()) + " NUMA nodes");
  out.notes.push_back("one cpu per NUMA node; PHB and NODE devices hang off "
                      "their NUMA node's cpu; add device properties (memory, "
                      "compute, NIC line rates) from the spec sheets");
  return true;
}
