//===- SluiceWriter.cpp - An imported topology as .sluice text ------------===//
//
// Devices are grouped into arrays by name (gpu[8], nic[4], pcie[6]); an
// array's properties are written when all its elements agree (else each
// element's figures go into a comment). Links follow, one per line, with
// the source of each bandwidth in a comment; a bandwidth that is a default
// rather than a figure of the input says "guessed".
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-import-topo/TopoImport.h"

#include <cctype>
#include <map>
#include <sstream>

using namespace sluice::import;

size_t Topology::add(Device d) {
  devices.push_back(std::move(d));
  return devices.size() - 1;
}

size_t Topology::count(const std::string &array) const {
  size_t n = 0;
  for (const Device &d : devices)
    n += d.array == array;
  return n;
}

double Defaults::pcieX16() const {
  // 8, 16, 32 GT/s x 16 lanes, 128b/130b, per direction (Gen3/4/5); Gen6
  // 64 GT/s with FLIT encoding, about 121 GB/s.
  switch (pcieGen) {
  case 3:
    return 15.75;
  case 4:
    return 31.5;
  case 5:
    return 63;
  case 6:
    return 121;
  default:
    return 31.5;
  }
}

std::string sluice::import::identifierOf(const std::string &text) {
  std::string out;
  for (char c : text)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "machine_" + out;
  return out;
}

namespace {

std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s)
    if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20)
      out += c;
  return out + "\"";
}

std::string bandwidth(double gbps) {
  std::ostringstream s;
  s.precision(6);
  s << gbps << " GB/s";
  return s.str();
}

} // namespace

std::string sluice::import::writeSluice(const Topology &t,
                                        const std::string &name,
                                        const std::string &source) {
  std::ostringstream o;
  o << "// Imported by sluice-import-topo from " << source << ".\n";
  for (const std::string &n : t.notes)
    o << "// " << n << ".\n";
  o << "// Bandwidths are per direction. A link marked \"guessed\" has a "
       "default\n// bandwidth (docs/topology-import.md): replace it with "
       "your machine's figure.\n\n";
  o << "topology " << identifierOf(name) << " {\n";
  // Arrays in order of first appearance.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Device *>> arrays;
  for (const Device &d : t.devices) {
    if (!arrays.count(d.array))
      order.push_back(d.array);
    arrays[d.array].push_back(&d);
  }
  for (const std::string &a : order) {
    const auto &members = arrays[a];
    const Device &first = *members[0];
    bool same = true;
    for (const Device *d : members)
      same &= d->model == first.model && d->properties == first.properties;
    for (const Device *d : members)
      if (!d->note.empty() || !same) {
        o << "  // " << a << "[" << d->index << "]: " << d->note;
        if (!same && !d->model.empty())
          o << ", " << d->model;
        if (!same)
          for (const auto &[k, v] : d->properties)
            o << ", " << k << " " << v;
        o << "\n";
      }
    o << "  " << first.kind << " " << a << "[" << members.size() << "]";
    std::vector<std::string> props;
    if (same && !first.model.empty())
      props.push_back("model: " + quoted(first.model));
    if (same)
      for (const auto &[k, v] : first.properties)
        props.push_back(k + ": " + v);
    if (!props.empty()) {
      o << " {";
      for (size_t i = 0; i < props.size(); ++i)
        o << (i ? ", " : " ") << props[i];
      o << " }";
    }
    o << "\n";
  }
  o << "\n";
  for (const Link &l : t.links) {
    const Device &a = t.devices[l.a], &b = t.devices[l.b];
    o << "  link " << a.array << "[" << a.index << "] <-> " << b.array << "["
      << b.index << "] { bandwidth: " << bandwidth(l.bandwidth)
      << ", type: " << quoted(l.type) << " }";
    if (!l.note.empty() || l.guessed)
      o << " // " << (l.guessed ? "guessed: " : "") << l.note;
    o << "\n";
  }
  o << "}\n";
  return o.str();
}
