//===- sluice-import-topo.cpp - A .sluice topology from a real machine ----===//
//
//   sluice-import-topo FILE [--from=nvidia-smi|hwloc] [-o OUT.sluice]
//                      [--name=NAME] [--pcie-gen=3|4|5|6]
//                      [--nvlink-bandwidth=GB/s] [--socket-bandwidth=GB/s]
//
// Reads the output of `nvidia-smi topo -m` or hwloc's XML (`lstopo --of
// xml`; the kind is guessed from the content when --from is not given) and
// writes a topology the user edits and sluicec reads. A thin driver over
// TopoImport.h; docs/topology-import.md.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-import-topo/TopoImport.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory category("sluice-import-topo options");
static cl::opt<std::string> input(cl::Positional, cl::Required,
                                  cl::desc("<nvidia-smi topo -m output or "
                                           "hwloc XML>"),
                                  cl::cat(category));
static cl::opt<std::string> from("from",
                                 cl::desc("input kind: nvidia-smi or hwloc "
                                          "(default: from the content)"),
                                 cl::value_desc("kind"), cl::cat(category));
static cl::opt<std::string> output("o",
                                   cl::desc("output file (default: stdout)"),
                                   cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> name("name",
                                 cl::desc("topology name (default: the input "
                                          "file's stem)"),
                                 cl::cat(category));
static cl::opt<int> pcieGen("pcie-gen",
                            cl::desc("PCIe generation of links the input "
                                     "gives no speed for (3-6, default 4)"),
                            cl::init(4), cl::cat(category));
static cl::opt<double> nvlinkBandwidth(
    "nvlink-bandwidth",
    cl::desc("GB/s per direction of one NVLink in NV<n> (default 25: "
             "NVLink 2-4; 50 for NVLink 5)"),
    cl::init(25), cl::cat(category));
static cl::opt<double> socketBandwidth(
    "socket-bandwidth",
    cl::desc("GB/s per direction between CPU sockets (default 64)"),
    cl::init(64), cl::cat(category));

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sluice-import-topo: a .sluice topology from `nvidia-smi topo -m` "
      "output or hwloc XML\n");
  auto fail = [](const Twine &message) {
    errs() << "sluice-import-topo: error: " << message << "\n";
    return 1;
  };
  if (!from.empty() && from != "nvidia-smi" && from != "hwloc")
    return fail("--from must be nvidia-smi or hwloc, got '" + from + "'");
  if (pcieGen < 3 || pcieGen > 6)
    return fail("--pcie-gen must be 3, 4, 5 or 6, got " +
                Twine(pcieGen.getValue()));
  if (!(nvlinkBandwidth > 0) || !(socketBandwidth > 0))
    return fail("--nvlink-bandwidth and --socket-bandwidth must be positive");
  auto buffer = MemoryBuffer::getFileOrSTDIN(input);
  if (!buffer)
    return fail("cannot read '" + input + "': " + buffer.getError().message());
  std::string text = (*buffer)->getBuffer().str();
  std::string kind = from;
  if (kind.empty()) {
    StringRef t = StringRef(text).ltrim();
    kind = t.starts_with("<?xml") || t.starts_with("<topology") ? "hwloc"
                                                                : "nvidia-smi";
  }
  sluice::import::Defaults defaults;
  defaults.pcieGen = pcieGen;
  defaults.nvlinkPerLink = nvlinkBandwidth;
  defaults.socketLink = socketBandwidth;
  sluice::import::Topology topology;
  std::string error;
  bool ok =
      kind == "hwloc"
          ? sluice::import::readHwloc(input, text, defaults, topology, error)
          : sluice::import::readNvidiaSmi(input, text, defaults, topology,
                                          error);
  if (!ok) {
    errs() << error << "\n";
    return 1;
  }
  std::string topoName =
      !name.empty() ? name.getValue() : sys::path::stem(input).str();
  std::string source = sys::path::filename(input).str() + " (" +
                       (kind == "hwloc" ? "hwloc XML" : "nvidia-smi topo -m") +
                       ")";
  std::string result = sluice::import::writeSluice(topology, topoName, source);
  if (output.empty()) {
    outs() << result;
    return 0;
  }
  std::error_code ec;
  ToolOutputFile file(output, ec, sys::fs::OF_Text);
  if (ec)
    return fail("cannot write '" + output + "': " + ec.message());
  file.os() << result;
  file.keep();
  return 0;
}
