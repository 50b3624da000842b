//===- sluice-flow-exec.cpp - Run a flow schedule and check it -----------===//
//
// sluice-flow-exec SCHEDULE.json [--time-scale=F] [--byte-scale=F]
//                  [--chunk-bytes=N] [--backend=host|cuda] [--json] ...
// sluice-flow-exec --measure-compression [--codec=zstd|lz4] [--block-bytes=N]
//                  [--compressibility=F] [--level=N] [--seconds=F] [--json]
//
// Reads a schedule as SluiceFlow's writeScheduleJSON prints it, converts it
// (ScheduleLoader.h), runs it with libsluicert's flow executor
// (sluice/flow.h) and prints, per transfer and overall, the achieved finish
// next to the predicted one, and the result of the checks. Exit status: 0
// when every check passed, 1 when a check failed, 2 for bad input or
// options. See docs/flows.md ("Executor").
//
// With --measure-compression it runs no schedule: it measures the host
// codec of a storage middle tier (sluice/compress.h: zstd or lz4 on one
// core, on generated blocks) and prints its compression and decompression
// rates per core and the ratio, the figure
// sluicec --measure-compression gives plan-middle-tier (docs/flows.md,
// "Storage middle tier (SmartDS)").
//
//===----------------------------------------------------------------------===//
#include "dialects/Common/ToolVersion.h"
#include "compiler/tools/sluice-flow-exec/ScheduleLoader.h"

#include "sluice/compress.h"
#include "sluice/flow.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <string>

using namespace sluice;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("sluice-flow-exec options");
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<schedule.json>"),
                               cl::init("-"), cl::cat(category));
cl::opt<double> timeScale(
    "time-scale",
    cl::desc("Wall seconds per schedule second (capacities and rates are "
             "divided by it)"),
    cl::init(1.0), cl::cat(category));
cl::opt<double> byteScale(
    "byte-scale",
    cl::desc("Multiply every byte count and time of the schedule by this "
             "(rates stay)"),
    cl::init(1.0), cl::cat(category));
cl::opt<uint64_t> chunkBytes(
    "chunk-bytes",
    cl::desc("Chunk size; 0 takes the JSON timeline's, else one chunk per "
             "transfer"),
    cl::init(0), cl::cat(category));
cl::opt<uint64_t> chunksPerPath(
    "chunks-per-path",
    cl::desc("Without --chunk-bytes: cut every path into this many chunks"),
    cl::init(0), cl::cat(category));
cl::opt<std::string> scheduleName(
    "schedule",
    cl::desc("In a plan file (sluicec --emit=plan --format=json), the "
             "schedule to run (default: the only one)"),
    cl::init(""), cl::cat(category));
cl::opt<std::string> backend("backend", cl::desc("host (default) or cuda"),
                             cl::init("host"), cl::cat(category));
cl::opt<bool> jsonOutput("json", cl::desc("Print the report as JSON"),
                         cl::cat(category));
cl::opt<bool> validateOnly("validate-only",
                           cl::desc("Check the schedule without running it"),
                           cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::desc("Seed of the data patterns"),
                       cl::init(0x5eed), cl::cat(category));
cl::opt<double> rateTolerance(
    "rate-tolerance",
    cl::desc("Relative slack of the capacity check (default 1e-6)"),
    cl::init(1e-6), cl::cat(category));
cl::opt<uint64_t> maxMemory(
    "max-memory", cl::desc("Refuse schedules needing more bytes of regions"),
    cl::init(uint64_t(4) << 30), cl::cat(category));
cl::opt<double> maxWall(
    "max-wall-seconds",
    cl::desc("Refuse schedules that would run longer (default 3600)"),
    cl::init(3600), cl::cat(category));
cl::opt<std::string> gpuPrefix(
    "gpu-prefix",
    cl::desc("Nodes whose last name component starts with this get GPU "
             "memory under --backend=cuda"),
    cl::init("gpu"), cl::cat(category));

cl::opt<bool> measureCompression(
    "measure-compression",
    cl::desc("Measure the host codec (zstd or lz4, one core) on generated "
             "blocks "
             "instead of running a schedule"),
    cl::cat(category));
cl::opt<uint64_t> blockBytes("block-bytes",
                             cl::desc("--measure-compression: block size"),
                             cl::init(4096), cl::cat(category));
cl::opt<double> compressibility(
    "compressibility",
    cl::desc("--measure-compression: fraction of each block that repeats"),
    cl::init(0.5), cl::cat(category));
cl::opt<int> level("level",
                   cl::desc("--measure-compression: level (zstd 1-19, lz4 "
                            "1 or 2-12 for LZ4HC)"),
                   cl::init(1), cl::cat(category));
cl::opt<sluice_compress_codec_t> codecOption(
    "codec", cl::desc("--measure-compression: the codec"),
    cl::values(clEnumValN(SLUICE_COMPRESS_ZSTD, "zstd", "zstd (default)"),
               clEnumValN(SLUICE_COMPRESS_LZ4, "lz4", "lz4")),
    cl::init(SLUICE_COMPRESS_ZSTD), cl::cat(category));
cl::opt<double>
    measureSeconds("seconds",
                   cl::desc("--measure-compression: seconds to compress for"),
                   cl::init(1.0), cl::cat(category));

std::string errorText(const sluice_error_t &e) {
  char buf[1600];
  sluice_error_format(&e, buf, sizeof(buf));
  return buf;
}

/// "transfer 3: ..." gets the JSON path of transfer 3 appended.
std::string withLabel(const std::string &msg,
                      const flowexec::LoadedSchedule &s) {
  unsigned t = 0;
  int n = 0;
  if (std::sscanf(msg.c_str(), "transfer %u%n", &t, &n) == 1 &&
      t < s.labels.size())
    return msg + " [" + s.label(t) + "]";
  return msg;
}

/// Four significant digits.
std::string sig(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

double ratio(double achieved, double predicted) {
  return predicted > 0 ? achieved / predicted : 0;
}

void printJSON(const flowexec::LoadedSchedule &s, const sluice_flow_report_t &r,
               const std::string &failure) {
  llvm::json::OStream j(llvm::outs(), 2);
  j.object([&] {
    j.attribute("schedule", inputFile.getValue());
    j.attribute("method", s.method);
    j.attribute("backend",
                r.backend == SLUICE_FLOW_BACKEND_CUDA ? "cuda" : "host");
    j.attribute("time_scale", r.time_scale);
    j.attribute("byte_scale", byteScale.getValue());
    j.attribute("bytes", static_cast<int64_t>(r.bytes));
    j.attribute("chunks", static_cast<int64_t>(r.chunks));
    j.attribute("chunk_hops", static_cast<int64_t>(r.chunk_hops));
    j.attribute("predicted_makespan", r.predicted_makespan);
    j.attribute("achieved_makespan", r.achieved_makespan);
    j.attribute("achieved_over_predicted",
                ratio(r.achieved_makespan, r.predicted_makespan));
    j.attribute("wall_seconds", r.wall_seconds);
    j.attribute("verified", r.verified != 0);
    if (!failure.empty())
      j.attribute("failure", failure);
    j.attributeObject("checks", [&] {
      j.attribute("lost_chunks", static_cast<int64_t>(r.lost_chunks));
      j.attribute("duplicated_chunks",
                  static_cast<int64_t>(r.duplicated_chunks));
      j.attribute("wrong_bytes", static_cast<int64_t>(r.wrong_bytes));
      j.attribute("stray_bytes", static_cast<int64_t>(r.stray_bytes));
      j.attribute("crc_mismatches", static_cast<int64_t>(r.crc_mismatches));
    });
    j.attributeArray("transfers", [&] {
      for (uint32_t i = 0; i < r.num_transfers; ++i) {
        const sluice_flow_transfer_report_t &t = r.transfers[i];
        j.object([&] {
          j.attribute("label", s.label(i));
          j.attribute("bytes", static_cast<int64_t>(t.bytes));
          j.attribute("chunks", static_cast<int64_t>(t.chunks));
          j.attribute("predicted_finish", t.predicted_finish);
          j.attribute("achieved_finish", t.achieved_finish);
          j.attribute("achieved_over_predicted",
                      ratio(t.achieved_finish, t.predicted_finish));
          j.attribute("lost_chunks", static_cast<int64_t>(t.lost_chunks));
          j.attribute("duplicated_chunks",
                      static_cast<int64_t>(t.duplicated_chunks));
          j.attribute("wrong_bytes", static_cast<int64_t>(t.wrong_bytes));
        });
      }
    });
    j.attributeArray("commodities", [&] {
      for (uint32_t i = 0; i < r.num_commodities; ++i) {
        const sluice_flow_commodity_report_t &c = r.commodities[i];
        j.object([&] {
          j.attribute("commodity", static_cast<int64_t>(c.commodity));
          j.attribute("bytes", static_cast<int64_t>(c.bytes));
          j.attribute("source_crc", static_cast<int64_t>(c.source_crc));
          j.attribute("destination_crc",
                      static_cast<int64_t>(c.destination_crc));
        });
      }
    });
  });
  llvm::outs() << "\n";
}

void printText(const flowexec::LoadedSchedule &s, const sluice_flow_report_t &r,
               const std::string &failure) {
  llvm::raw_ostream &os = llvm::outs();
  os << llvm::formatv("schedule {0} ({1}): {2} transfers, {3} bytes, {4} "
                      "chunks, {5} backend, time scale {6}\n",
                      inputFile.getValue(), s.method, r.num_transfers, r.bytes,
                      r.chunks,
                      r.backend == SLUICE_FLOW_BACKEND_CUDA ? "cuda" : "host",
                      sig(r.time_scale));
  os << llvm::formatv("{0,-52} {1,12} {2,14} {3,14} {4,9}\n", "transfer",
                      "bytes", "predicted (s)", "achieved (s)", "ratio");
  for (uint32_t i = 0; i < r.num_transfers; ++i) {
    const sluice_flow_transfer_report_t &t = r.transfers[i];
    os << llvm::formatv("{0,-52} {1,12} {2,14} {3,14} {4,9:f3}\n",
                        s.label(i), t.bytes, sig(t.predicted_finish),
                        sig(t.achieved_finish),
                        ratio(t.achieved_finish, t.predicted_finish));
  }
  os << llvm::formatv("makespan: predicted {0} s, achieved {1} s "
                      "(achieved/predicted {2:f3}); wall {3:f3} s\n",
                      sig(r.predicted_makespan), sig(r.achieved_makespan),
                      ratio(r.achieved_makespan, r.predicted_makespan),
                      r.wall_seconds);
  if (r.verified)
    os << llvm::formatv("checks: passed ({0} chunks each delivered once, {1} "
                        "commodities with matching CRC-32, no stray bytes)\n",
                        r.chunks, r.num_commodities);
  else
    os << llvm::formatv("checks: FAILED: {0} ({1} lost, {2} duplicated "
                        "chunks, {3} wrong bytes, {4} stray bytes, {5} CRC "
                        "mismatches)\n",
                        failure, r.lost_chunks, r.duplicated_chunks,
                        r.wrong_bytes, r.stray_bytes, r.crc_mismatches);
}

} // namespace

/// --measure-compression: the rates and ratio of the codec on one core.
static int runCompressionMeasurement() {
  sluice_compress_options_t options;
  sluice_compress_options_init(&options);
  options.block_bytes = blockBytes;
  options.compressibility = compressibility;
  options.level = level;
  options.codec = codecOption;
  options.min_seconds = measureSeconds;
  if (blockBytes > 0)
    options.blocks = std::max<uint64_t>(
        1, std::min<uint64_t>(256, (64ull << 20) / blockBytes));
  sluice_compress_report_t r;
  sluice_error_t error;
  if (sluice_compress_measure(&options, &r, &error) != SLUICE_STATUS_OK) {
    llvm::errs() << "sluice-flow-exec: error: " << errorText(error) << "\n";
    return 2;
  }
  if (jsonOutput) {
    llvm::json::OStream j(llvm::outs(), 2);
    j.object([&] {
      j.attribute("codec", r.codec);
      j.attribute("level", options.level);
      j.attribute("block_bytes", static_cast<int64_t>(options.block_bytes));
      j.attribute("compressibility", options.compressibility);
      j.attribute("compress_bytes_per_s", r.compress_bytes_per_s);
      j.attribute("decompress_bytes_per_s", r.decompress_bytes_per_s);
      j.attribute("ratio", r.ratio);
      j.attribute("blocks_compressed",
                  static_cast<int64_t>(r.blocks_compressed));
      j.attribute("seconds", r.seconds);
    });
    llvm::outs() << "\n";
    return 0;
  }
  llvm::outs() << r.codec << " level " << options.level << ", "
               << options.block_bytes << " B blocks, compressibility "
               << sig(options.compressibility) << ": compress "
               << sig(r.compress_bytes_per_s / 1e6) << " MB/s per core, "
               << "decompress " << sig(r.decompress_bytes_per_s / 1e6)
               << " MB/s per core, ratio " << sig(r.ratio) << " ("
               << r.blocks_compressed << " blocks in " << sig(r.seconds)
               << " s)\n";
  return 0;
}

int main(int argc, char **argv) {
  installVersionPrinter("sluice-flow-exec");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sluice-flow-exec: run a flow schedule (SluiceFlow JSON) on the "
      "runtime's executor and compare achieved with predicted times\n");
  auto fail = [](const llvm::Twine &msg) {
    llvm::errs() << "sluice-flow-exec: error: " << msg << "\n";
    return 2;
  };
  if (measureCompression)
    return runCompressionMeasurement();
  sluice_flow_options_t options;
  sluice_flow_options_init(&options);
  options.time_scale = timeScale;
  options.seed = seed;
  options.rate_tolerance = rateTolerance;
  options.max_memory_bytes = maxMemory;
  options.max_wall_seconds = maxWall;
  if (backend == "host")
    options.backend = SLUICE_FLOW_BACKEND_HOST;
  else if (backend == "cuda")
    options.backend = SLUICE_FLOW_BACKEND_CUDA;
  else
    return fail("unknown backend '" + backend + "' (expected host or cuda)");

  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!buffer)
    return fail(inputFile + ": " + buffer.getError().message());
  flowexec::LoadOptions load;
  load.byteScale = byteScale;
  load.chunkBytes = chunkBytes;
  load.chunksPerPath = chunksPerPath;
  load.scheduleName = scheduleName;
  load.gpuPrefix = gpuPrefix;
  auto loaded = flowexec::loadSchedule((*buffer)->getBuffer(),
                                       inputFile == "-" ? std::string("<stdin>") : inputFile.getValue(),
                                       load);
  if (!loaded)
    return fail(llvm::toString(loaded.takeError()));
  // A schedule of more bytes than --max-memory runs scaled down, unless the
  // user chose a byte scale: rates stay, byte counts and times shrink alike,
  // so every check keeps its meaning.
  uint64_t regionBytes = 0;
  for (const sluice_flow_device_t &d : loaded->devices)
    regionBytes += d.memory_bytes;
  if (regionBytes > maxMemory && byteScale.getNumOccurrences() == 0 &&
      maxMemory > 0) {
    // 1% below the exact ratio: whole-byte rounding of the paths' ranges.
    double scale = 0.99 * static_cast<double>(maxMemory) /
                   static_cast<double>(regionBytes);
    char scaleText[32];
    std::snprintf(scaleText, sizeof(scaleText), "%.6g", scale);
    llvm::errs() << llvm::formatv(
        "sluice-flow-exec: note: the schedule's regions need {0} bytes, more "
        "than --max-memory={1}; running it at --byte-scale={2} (byte "
        "counts and times scaled, rates unchanged; --byte-scale=1 runs it "
        "unscaled or refuses)\n",
        regionBytes, maxMemory.getValue(), scaleText);
    load.byteScale = scale;
    loaded = flowexec::loadSchedule(
        (*buffer)->getBuffer(),
        inputFile == "-" ? std::string("<stdin>") : inputFile.getValue(), load);
    if (!loaded)
      return fail(llvm::toString(loaded.takeError()));
  }
  sluice_flow_schedule_t schedule = loaded->view();
  sluice_error_t error;
  if (validateOnly) {
    if (sluice_flow_validate(&schedule, &options, &error))
      return fail(inputFile + ": " + withLabel(errorText(error), *loaded));
    llvm::outs() << inputFile << ": valid (" << schedule.num_transfers
                 << " transfers, " << loaded->totalBytes << " bytes)\n";
    return 0;
  }
  sluice_flow_report_t *report = nullptr;
  sluice_status_t st = sluice_flow_execute(&schedule, &options, &report, &error);
  if (st != SLUICE_STATUS_OK && st != SLUICE_STATUS_DATA_CORRUPT)
    return fail(inputFile + ": " + withLabel(errorText(error), *loaded));
  std::string failure =
      st == SLUICE_STATUS_OK ? "" : withLabel(errorText(error), *loaded);
  if (jsonOutput)
    printJSON(*loaded, *report, failure);
  else
    printText(*loaded, *report, failure);
  int rc = report->verified ? 0 : 1;
  sluice_flow_report_free(report);
  return rc;
}
