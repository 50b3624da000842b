//===- sluicec.cpp - The Sluice compiler driver ---------------------------===//
//
// A thin command-line layer over sluice::Compilation: reads a .sluice file,
// runs the phases up to --emit=<phase> and writes that phase's result.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/TopoAnalysis.h"
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Pipelines/PassPipelines.h"
#include "compiler/Target/Align/AlignCompile.h"
#include "compiler/Target/Align/AlignGpu.h"
#include "compiler/Target/Gnn/GnnGpu.h"
#include "compiler/Target/Gnn/GnnRun.h"
#include "compiler/Target/Graph/AlgoGpu.h"
#include "compiler/Target/LLVM/Codegen.h"
#include "compiler/Target/LLVM/CpuDispatch.h"
#include "compiler/Target/Plan/PlanEmit.h"
#include "compiler/Target/TopoReport.h"
#include "compiler/Target/Walk/WalkCompile.h"
#include "compiler/Target/Walk/WalkGpu.h"
#include "compiler/tools/sluicec/AlgoDriver.h"
#include "compiler/tools/sluicec/AlignDriver.h"
#include "compiler/tools/sluicec/CompileDriver.h"
#include "compiler/tools/sluicec/SvgRender.h"
#include "compiler/tools/sluicec/WalkDriver.h"
#include "dialects/Common/ToolVersion.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Model/Transforms/ModelOffload.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "dialects/Plan/Transforms/PlanExport.h"
#include "dialects/Seq/IR/SeqOps.h"
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"
#include "dialects/Walk/IR/WalkLimits.h"
#include "dialects/Walk/IR/WalkOps.h"
#include "frontends/sluice/MLIRGenModel.h"

#include "mlir/IR/AsmState.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstdlib>

using namespace sluice;
namespace cl = llvm::cl;

static cl::OptionCategory sluiceCategory("sluicec options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .sluice file>"),
                                          cl::Required,
                                          cl::cat(sluiceCategory));

static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("filename"),
                                           cl::init("-"),
                                           cl::cat(sluiceCategory));

static cl::opt<Phase> emitPhase(
    "emit", cl::desc("Stop after this phase and print its result"),
    cl::init(Phase::Report),
    cl::values(
        clEnumValN(Phase::Ast, "ast", "parse: print the AST"),
        clEnumValN(Phase::Sema, "sema",
                   "check names, types and units: print the typed AST"),
        clEnumValN(Phase::Mlir, "mlir", "lower to the Sluice dialects"),
        clEnumValN(Phase::Flat, "flat",
                   "flatten the topology (one op per physical device)"),
        clEnumValN(Phase::Report, "report",
                   "analyse the topology (see --format)"),
        clEnumValN(Phase::Plan, "plan",
                   "schedule the demands over the flat topology (see "
                   "--format)"),
        clEnumValN(Phase::Llvm, "llvm",
                   "lower the walks for the host: print their LLVM IR"),
        clEnumValN(Phase::Ptx, "ptx",
                   "lower the walks for the GPU: print their PTX (sm_90)")),
    cl::cat(sluiceCategory));

static cl::opt<ReportFormat> reportFormat(
    "format", cl::desc("Format of --emit=report and --emit=plan"),
    cl::init(ReportFormat::Table),
    cl::values(clEnumValN(ReportFormat::Table, "table", "terminal table"),
               clEnumValN(ReportFormat::Json, "json", "JSON"),
               clEnumValN(ReportFormat::Dot, "dot", "Graphviz DOT"),
               clEnumValN(ReportFormat::Svg, "svg",
                          "SVG rendered by Graphviz's dot"),
               clEnumValN(ReportFormat::Mlir, "mlir",
                          "plan: the plan dialect (the default for plan)"),
               clEnumValN(ReportFormat::Trace, "trace",
                          "plan: Chrome/Perfetto trace-event JSON"),
               clEnumValN(ReportFormat::DeepSpeed, "deepspeed",
                          "plan: DeepSpeed config of a finetune job "
                          "(ZeRO-Infinity) or a train job (batch keys, "
                          "ZeRO stage)"),
               clEnumValN(ReportFormat::Megatron, "megatron",
                          "plan: Megatron-LM launch script (torchrun per "
                          "node, rank map) of a train job")),
    cl::cat(sluiceCategory));

static cl::opt<std::string>
    topName("top",
            cl::desc("Topology to flatten and analyse (default: the last one "
                     "declared in the input file)"),
            cl::value_desc("name"), cl::cat(sluiceCategory));

static cl::opt<std::string> matrixKind(
    "matrix-kind",
    cl::desc("Device kind of the pairwise bandwidth matrix (default gpu)"),
    cl::init("gpu"), cl::cat(sluiceCategory));

static cl::opt<analysis::TopoAnalysisOptions::MaxFlow> maxFlowMode(
    "max-flow",
    cl::desc("Max-flow bandwidth per pair in --emit=report (default: auto, "
             "for matrices of at most 128 devices)"),
    cl::init(analysis::TopoAnalysisOptions::MaxFlow::Auto),
    cl::values(clEnumValN(analysis::TopoAnalysisOptions::MaxFlow::Auto, "auto",
                          "up to 128 matrix devices"),
               clEnumValN(analysis::TopoAnalysisOptions::MaxFlow::Always,
                          "always", "whatever the matrix size"),
               clEnumValN(analysis::TopoAnalysisOptions::MaxFlow::Never,
                          "never", "widest paths only")),
    cl::cat(sluiceCategory));

static cl::opt<target::DotDetail> dotDetail(
    "dot-detail",
    cl::desc("Pictures (--format=dot|svg): draw every device, or one node "
             "per instance (default: auto, summary above 64 devices)"),
    cl::init(target::DotDetail::Auto),
    cl::values(clEnumValN(target::DotDetail::Auto, "auto",
                          "summary above 64 devices"),
               clEnumValN(target::DotDetail::Full, "full", "every device"),
               clEnumValN(target::DotDetail::Summary, "summary",
                          "one node per top-level instance")),
    cl::cat(sluiceCategory));

static cl::list<std::string> cutSpecs(
    "cut",
    cl::desc("Add a min-cut between two device sets, A/B, each 'all', "
             "'kind:K', 'group:G' or 'under:PREFIX' (repeatable)"),
    cl::value_desc("A/B"), cl::cat(sluiceCategory));

// Walk programs (docs/walk-codegen.md): run a walk job, or compile walks.
static cl::opt<bool> runWalk(
    "run", cl::desc("JIT-compile a walk or algorithm and run one of its "
                    "jobs (--job), writing the job's output"),
    cl::cat(sluiceCategory));
static cl::opt<std::string>
    jobName("job", cl::desc("The walk job --run runs (default: the only one), "
                            "or the finetune/infer/train/distill job "
                            "--emit=plan plans"),
            cl::value_desc("name"), cl::cat(sluiceCategory));
static cl::opt<unsigned> walkThreads(
    "walk-threads", cl::desc("--run: CPU threads (default: the job's, the "
                        "schedule's, or every core)"),
    cl::init(0), cl::cat(sluiceCategory));
static cl::opt<std::string>
    walksOut("walks-out",
             cl::desc("--run: write the walks here instead of the job's "
                      "output (.npy: NumPy int64 or --walks-dtype, else text)"),
             cl::value_desc("path"), cl::cat(sluiceCategory));
static cl::opt<std::string> walksDtype(
    "walks-dtype",
    cl::desc("--run: the integer type of a .npy walk output, i32 or i64 "
             "(default: the job's walks_dtype, else i64)"),
    cl::value_desc("i32|i64"), cl::cat(sluiceCategory));
static cl::opt<bool> shuffleWalks(
    "shuffle-walks",
    cl::desc("--run: write the walks in an order drawn from the job's seed "
             "(as the job option shuffle: true)"),
    cl::cat(sluiceCategory));
static cl::opt<double> walkCostRatio(
    "cost-ratio",
    cl::desc("--run: the cost model's r = c_rej / c_res for `sampler: auto` "
             "(default: calibrated at start-up; pin it to reproduce walks "
             "exactly)"),
    cl::init(0), cl::value_desc("r"), cl::cat(sluiceCategory));
static cl::opt<uint64_t> walkMaxLength(
    "max-length",
    cl::desc("--run: cap on the vertices per walk; required for a walk "
             "without `length` (its walks end by stop probability / stop, "
             "or are cut at the cap)"),
    cl::init(0), cl::value_desc("n"), cl::cat(sluiceCategory));
static cl::opt<unsigned> algoThreads(
    "algo-threads", cl::desc("--run of an algorithm or gnn train job: CPU "
                        "threads (default: the job's, the schedule's, or "
                        "every core)"),
    cl::init(0), cl::cat(sluiceCategory));
static cl::opt<unsigned> algoTrials(
    "algo-trials",
    cl::desc("--run of an algorithm job: run the kernel n times on the "
             "loaded graph (default 1); the first run's outputs are written, "
             "the summary gives its time and the median of the others"),
    cl::init(1), cl::value_desc("n"), cl::cat(sluiceCategory));
static cl::opt<bool> debugIR(
    "debug",
    cl::desc("Attach the IR of the operation to each error (for compiler "
             "developers; users' errors name the source only)"),
    cl::init(false), cl::cat(sluiceCategory));
static cl::opt<bool> compileWalks(
    "c", cl::desc("Compile the program's walks to an object file (-o, "
                  "default <input>.o) and a C header next to it (.h)"),
    cl::cat(sluiceCategory));
enum class CodeTarget { Cpu, Gpu };
static cl::opt<CodeTarget> codeTarget(
    "target",
    cl::desc("Code target of -c (default cpu); where --run runs the walks "
             "(default: the walk's own `target`, else cpu)"),
    cl::init(CodeTarget::Cpu),
    cl::values(clEnumValN(CodeTarget::Cpu, "cpu", "host object file"),
               clEnumValN(CodeTarget::Gpu, "gpu", "PTX for NVIDIA sm_90")),
    cl::cat(sluiceCategory));
static cl::opt<std::string> cpuName(
    "mcpu",
    cl::desc("-c for the CPU: the CPU the object is compiled for: generic "
             "(default; any CPU of the architecture, x86-64: SSE2), native "
             "(this machine's CPU and features) or a CPU LLVM knows, e.g. "
             "x86-64-v3 (AVX2); --mcpu=help lists them. Several, comma-"
             "separated (x86-64 only, e.g. x86-64-v3,x86-64): the code of "
             "each; every function runs the code of the first CPU the machine "
             "supports, chosen at load time; the last must be generic or "
             "x86-64"),
    cl::init("generic"), cl::value_desc("name[,name...]"),
    cl::cat(sluiceCategory), cl::callback([](const std::string &name) {
      // As llc -mcpu=help: the list, then exit (like --help, before the
      // input file is required).
      if (name != "help")
        return;
      target::printHostCpus(llvm::outs());
      llvm::outs().flush();
      std::exit(0);
    }));
static cl::opt<std::string> cpuFeatures(
    "mattr",
    cl::desc("-c for the CPU: features over --mcpu's, +name adds one, -name "
             "removes one (e.g. +avx2,-fma; --mcpu=help lists them); one "
             "CPU only"),
    cl::value_desc("+a,-b"), cl::cat(sluiceCategory));
// cl::desc keeps a StringRef: the text lives here (initialised first: same
// file, declared before).
static const std::string libdeviceHelp =
    "GPU code (-c --target=gpu, --run --target=gpu): the libdevice bitcode "
    "linked in for the math built-ins (default: " +
    target::defaultLibdevicePath().str() + ")";
static cl::opt<std::string> libdevicePath(
    "libdevice", cl::desc(libdeviceHelp),
    cl::init(target::defaultLibdevicePath().str()), cl::value_desc("file"),
    cl::cat(sluiceCategory));
static cl::opt<bool> noGraphCache(
    "no-graph-cache",
    cl::desc("--run: neither read nor write the binary CSR cache kept next "
             "to a text graph (<graph>.<key>.sluice-csr)"),
    cl::init(false), cl::cat(sluiceCategory));
static cl::opt<uint64_t> planSeed(
    "plan-seed",
    cl::desc("--emit=plan of train jobs: seed of the simulated annealing "
             "over GPU placements (default 1)"),
    cl::init(1), cl::value_desc("n"), cl::cat(sluiceCategory));
static cl::opt<double> tpcBudget(
    "tpc-budget",
    cl::desc("--emit=plan of gnn train jobs: the price limit of the "
             "throughput-per-cost advice (drives and cache); 0: none"),
    cl::init(0), cl::value_desc("price"), cl::cat(sluiceCategory));
static cl::opt<bool> walkRemarks(
    "remarks",
    cl::desc("Explain each walk's weight analysis (class, bounds, sampler) "
             "with a remark at its weight, and each algorithm loop's "
             "schedule; with --run, what the graph's load "
             "dropped and merged; with --emit=plan, compare the algorithms "
             "of each collective and list each finetune job's micro-batch "
             "search"),
    cl::init(false), cl::cat(sluiceCategory));
static cl::opt<bool> measureCompression(
    "measure-compression",
    cl::desc("--emit=plan of blockio demands (storage middle tiers): "
             "measure the host codec (zstd, one core) on this machine "
             "instead of the fallback rate"),
    cl::init(false), cl::cat(sluiceCategory));

/// The picture options the command line asks for.
static target::TopoDotOptions dotOptions() {
  target::TopoDotOptions o;
  o.detail = dotDetail;
  return o;
}

/// Parses "A/B" into a cut request.
static bool parseCut(const analysis::TopoGraph &g, llvm::StringRef spec,
                     analysis::CutRequest &out) {
  auto [a, b] = spec.split('/');
  auto sa = analysis::selectDevices(g, a);
  auto sb = analysis::selectDevices(g, b);
  if (!sa || !sb || b.empty()) {
    llvm::errs() << "sluicec: error: --cut=" << spec
                 << ": expected A/B with each side 'all', 'kind:K', "
                    "'group:G' or 'under:PREFIX'\n";
    return false;
  }
  if (sa->empty() || sb->empty()) {
    llvm::errs() << "sluicec: error: --cut=" << spec << ": side '"
                 << (sa->empty() ? a : b) << "' selects no device\n";
    return false;
  }
  out.label = spec.str();
  out.sources = *sa;
  out.sinks = *sb;
  return true;
}

/// --emit=llvm / --emit=ptx: the code of the program's walks, as -c would
/// compile it for the host (LLVM IR, before optimisation) or the GPU (PTX;
/// its kernel description is what -c --target=gpu writes beside it).
static int emitWalkCode(Compilation &compilation, llvm::raw_ostream &os) {
  if (mlir::failed(compilation.checkCompilable()))
    return 1;
  mlir::ModuleOp module = compilation.module();
  if (emitPhase == Phase::Llvm && module.getOps<walk::WalkOp>().empty() &&
      !module.getOps<graph::AlgorithmOp>().empty())
    return emitAlgorithmLLVM(module, os);
  if (emitPhase == Phase::Ptx && module.getOps<walk::WalkOp>().empty() &&
      !module.getOps<graph::AlgorithmOp>().empty()) {
    std::string ptx, json;
    if (mlir::failed(target::lowerAlgorithmsToPtx(
            module, "sm_90", libdevicePath, walkRemarks, ptx, json)))
      return 1;
    os << ptx;
    return 0;
  }
  // Gnn train jobs (docs/gnn.md, "GPU aggregation"): gnn-to-gpu's
  // aggregation kernels (--job: one job's).
  if (emitPhase == Phase::Ptx && module.getOps<walk::WalkOp>().empty() &&
      module.getOps<graph::AlgorithmOp>().empty() &&
      module.getOps<seq::AlignOp>().empty() &&
      !module.getOps<model::GnnTrainOp>().empty()) {
    std::string ptx, json;
    if (mlir::failed(
            target::lowerGnnJobsToPtx(module, "sm_90", ptx, json, jobName)))
      return 1;
    os << ptx;
    return 0;
  }
  // Align jobs (docs/align.md): align-to-gpu's kernels (--job: one).
  if (emitPhase == Phase::Ptx && module.getOps<walk::WalkOp>().empty() &&
      !module.getOps<seq::AlignOp>().empty()) {
    std::string ptx;
    if (mlir::failed(
            target::lowerAlignJobsToPtx(module, "sm_90", ptx, jobName)))
      return 1;
    os << ptx;
    return 0;
  }
  if (module.getOps<walk::WalkOp>().empty()) {
    mlir::emitError(compilation.fileLocation())
        << "the program declares no walk: nothing to print with --emit="
        << phaseName(emitPhase);
    return 1;
  }
  if (emitPhase == Phase::Ptx) {
    std::string ptx, json;
    if (mlir::failed(target::lowerWalksToPtx(module, "sm_90", ptx, json)))
      return 1;
    os << ptx;
    return 0;
  }
  auto lowered = target::lowerWalksToLLVM(module);
  if (mlir::failed(lowered))
    return 1;
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> ir =
      target::translateToLLVMIR(**lowered, llvmCtx);
  if (!ir) {
    mlir::emitError(compilation.fileLocation())
        << "the walks' LLVM dialect does not translate to LLVM IR";
    return 1;
  }
  ir->print(os, nullptr);
  return 0;
}

/// --emit=plan (compiler/Target/Plan/PlanEmit.h); --format=svg renders
/// the flow plan's DOT.
static int emitPlan(Compilation &compilation, llvm::raw_ostream &os) {
  PlanOptions options;
  options.format = reportFormat;
  // Without --format, a flow plan prints as the plan dialect (documented).
  options.flowDefaultsToMlir = reportFormat.getNumOccurrences() == 0;
  options.top = topName;
  options.job = jobName;
  options.seed = planSeed;
  options.tpcBudget = tpcBudget;
  options.graphCache = !noGraphCache;
  options.remarks = walkRemarks;
  options.dotDetail = dotDetail;
  if (reportFormat != ReportFormat::Svg)
    return mlir::failed(emitPlans(compilation, options, os)) ? 1 : 0;
  options.format = ReportFormat::Dot;
  std::string dotText;
  llvm::raw_string_ostream dotOs(dotText);
  if (mlir::failed(emitPlans(compilation, options, dotOs)))
    return 1;
  return mlir::failed(renderSvg(dotText, os)) ? 1 : 0;
}

/// --emit=flat and --emit=report need a topology: says what the program
/// lacks, at the file, in terms of --emit. (--emit=plan checks its own
/// needs: PlanEmit.cpp.)
static mlir::LogicalResult checkPhaseNeeds(Compilation &compilation) {
  bool empty = true;
  for (const auto &module : compilation.program().modules)
    if (module && !module->decls.empty())
      empty = false;
  std::string phase = ("--emit=" + phaseName(emitPhase)).str();
  llvm::StringRef use = emitPhase == Phase::Flat ? "flatten" : "analyse";
  if (empty)
    return mlir::emitError(compilation.fileLocation())
           << "the program declares nothing; " << phase
           << " needs a topology to " << use;
  if (compilation.topologyNames().empty())
    return mlir::emitError(compilation.fileLocation())
           << "the program declares no topology; " << phase << " needs one to "
           << use;
  return mlir::success();
}

static int run(Compilation &compilation, llvm::raw_ostream &os) {
  if (inputFilename != "-" && !llvm::sys::fs::exists(inputFilename)) {
    llvm::errs() << "sluicec: error: cannot open file '" << inputFilename
                 << "': No such file or directory\n";
    return 1;
  }
  if (mlir::failed(compilation.parse(inputFilename)))
    return 1;
  ast::Program &program = compilation.program();
  if (emitPhase == Phase::Ast) {
    ast::dump(*program.modules.back(), os);
    return 0;
  }
  if (mlir::failed(compilation.check()))
    return 1;
  if (emitPhase == Phase::Sema) {
    ast::dump(*program.modules.back(), os);
    return 0;
  }
  if (mlir::failed(compilation.lower()))
    return 1;
  if (emitPhase == Phase::Mlir) {
    compilation.module().print(os);
    os << "\n";
    return 0;
  }
  if (emitPhase == Phase::Llvm || emitPhase == Phase::Ptx)
    return emitWalkCode(compilation, os);
  if (emitPhase == Phase::Plan)
    return emitPlan(compilation, os);
  if (mlir::failed(checkPhaseNeeds(compilation)))
    return 1;
  if (mlir::failed(compilation.flatten(topName)))
    return 1;
  if (emitPhase == Phase::Flat) {
    compilation.module().print(os);
    os << "\n";
    return 0;
  }
  if (reportFormat == ReportFormat::DeepSpeed ||
      reportFormat == ReportFormat::Megatron) {
    llvm::errs() << "sluicec: error: --format=deepspeed and --format=megatron "
                    "apply to --emit=plan of a finetune or train job\n";
    return 1;
  }
  if (reportFormat == ReportFormat::Mlir || reportFormat == ReportFormat::Trace) {
    llvm::errs() << "sluicec: error: --format=mlir and --format=trace apply "
                    "to --emit=plan\n";
    return 1;
  }

  auto graph = extractTopoGraph(compilation.module());
  if (mlir::failed(graph))
    return 1;
  // The pair matrix grows with the square of its devices.
  size_t matrixDevices =
      matrixKind.empty() ? graph->devices.size()
                         : analysis::devicesOfKind(*graph, matrixKind).size();
  if (matrixDevices > analysis::kMaxPairMatrixDevices) {
    topo::TopologyOp flat = findFlatTopology(compilation.module());
    mlir::emitError(flat.getLoc())
        << "topology '" << flat.getSymName() << "' has " << matrixDevices
        << (matrixKind.empty() ? std::string(" devices")
                               : " " + matrixKind + " devices")
        << "; the report's pair matrix covers at most "
        << analysis::kMaxPairMatrixDevices
        << " (pick another kind with --matrix-kind, or stop at --emit=flat)";
    return 1;
  }
  analysis::TopoAnalysisOptions options;
  options.matrixKind = matrixKind;
  // Pictures do not show the pair matrix's max-flows.
  options.maxFlow =
      reportFormat == ReportFormat::Dot || reportFormat == ReportFormat::Svg
          ? analysis::TopoAnalysisOptions::MaxFlow::Never
          : maxFlowMode.getValue();
  for (const std::string &spec : cutSpecs) {
    analysis::CutRequest req;
    if (!parseCut(*graph, spec, req))
      return 1;
    options.cuts.push_back(std::move(req));
  }
  analysis::TopoAnalysisResult result = analysis::analyzeTopology(*graph, options);
  switch (reportFormat) {
  case ReportFormat::Table:
    target::writeTopoTable(os, *graph, result);
    return 0;
  case ReportFormat::Json:
    target::writeTopoJSON(os, *graph, result);
    return 0;
  case ReportFormat::Dot:
    target::writeTopoDot(os, *graph, &result, dotOptions());
    return 0;
  case ReportFormat::Svg: {
    std::string dotText;
    llvm::raw_string_ostream dotOs(dotText);
    target::writeTopoDot(dotOs, *graph, &result, dotOptions());
    return mlir::failed(renderSvg(dotText, os)) ? 1 : 0;
  }
  case ReportFormat::Mlir:
  case ReportFormat::Trace:
  case ReportFormat::DeepSpeed:
  case ReportFormat::Megatron:
    return 1; // rejected above
  }
  return 0;
}

/// The CPUs -c compiles host objects for (--mcpu, comma-separated, each
/// with --mattr's features).
static llvm::SmallVector<target::HostCpu, 1> hostCpus() {
  llvm::SmallVector<llvm::StringRef> names;
  llvm::StringRef(cpuName).split(names, ',');
  llvm::SmallVector<target::HostCpu, 1> cpus;
  for (llvm::StringRef name : names)
    cpus.push_back({name.trim().str(), cpuFeatures});
  return cpus;
}

/// --mcpu and --mattr: only with -c for the CPU, and known to LLVM (checked
/// before the input is read). Returns the exit code of a failure, else 0.
static int checkHostCpuOptions() {
  if (!cpuName.getNumOccurrences() && !cpuFeatures.getNumOccurrences())
    return 0;
  const char *option = cpuName.getNumOccurrences() ? "--mcpu" : "--mattr";
  if (!compileWalks || codeTarget == CodeTarget::Gpu) {
    llvm::errs() << "sluicec: error: " << option << " applies to -c for the CPU"
                 << (compileWalks ? " (--target=gpu writes PTX for sm_90)"
                     : runWalk    ? " (--run compiles for this machine's CPU)"
                                  : "")
                 << "\n";
    return 1;
  }
  std::string error;
  llvm::SmallVector<target::HostCpu, 1> cpus = hostCpus();
  for (const target::HostCpu &cpu : cpus)
    if (mlir::failed(target::resolveHostCpu(cpu, error))) {
      llvm::errs() << "sluicec: error: " << error << "\n";
      return 1;
    }
  if (mlir::failed(target::checkCpuList(cpus, error))) {
    llvm::errs() << "sluicec: error: --mcpu=" << cpuName << ": " << error
                 << "\n";
    return 1;
  }
  return 0;
}

/// sluicec --run / -c: the walk program paths (no --emit phase output).
static int runWalkProgram(Compilation &compilation) {
  if (runWalk && compileWalks) {
    llvm::errs() << "sluicec: error: --run and -c cannot be combined\n";
    return 1;
  }
  if (emitPhase.getNumOccurrences()) {
    llvm::errs() << "sluicec: error: --emit cannot be combined with "
                 << (runWalk ? "--run" : "-c") << "\n";
    return 1;
  }
  if (inputFilename != "-" && !llvm::sys::fs::exists(inputFilename)) {
    llvm::errs() << "sluicec: error: cannot open file '" << inputFilename
                 << "': No such file or directory\n";
    return 1;
  }
  if (mlir::failed(compilation.parse(inputFilename)) ||
      mlir::failed(compilation.check()) || mlir::failed(compilation.lower()) ||
      mlir::failed(compileWalks ? compilation.checkCompilable()
                                : compilation.checkRunnable(jobName)))
    return 1;
  mlir::ModuleOp module = compilation.module();
  if (algoTrials.getNumOccurrences()) {
    if (!runWalk || !compilation.isAlgorithmJob(jobName)) {
      llvm::errs() << "sluicec: error: --algo-trials applies to --run of an "
                      "algorithm job\n";
      return 1;
    }
    if (algoTrials == 0) {
      llvm::errs() << "sluicec: error: --algo-trials must be at least 1 (the "
                      "run whose outputs are written)\n";
      return 1;
    }
  }
  // Sequence alignment (docs/align.md): on the CPU's wavefront kernel.
  if (runWalk && isAlignRun(module, jobName)) {
    AlignRunOptions options;
    options.job = jobName;
    options.threads = algoThreads;
    if (outputFilename != "-")
      options.output = outputFilename;
    options.gpu =
        codeTarget.getNumOccurrences() > 0 && codeTarget == CodeTarget::Gpu;
    return runAlignJob(module, options, llvm::outs());
  }
  if (compileWalks) {
    CompileRequest request;
    request.input = inputFilename;
    request.output = outputFilename;
    request.job = jobName;
    request.libdevice = libdevicePath;
    request.gpu = codeTarget == CodeTarget::Gpu;
    request.remarks = walkRemarks;
    request.cpus = hostCpus();
    return compileProgram(module, request);
  }
  if (runWalk && target::isGnnTrainJob(module, jobName)) {
    target::GnnRunOptions options;
    options.job = jobName;
    options.threads = algoThreads;
    if (outputFilename != "-")
      options.out = outputFilename;
    options.graphCache = !noGraphCache;
    options.gpu =
        codeTarget.getNumOccurrences() > 0 && codeTarget == CodeTarget::Gpu;
    auto report = target::runGnnTrainJob(module, options, llvm::errs());
    if (mlir::failed(report))
      return 1;
    target::printGnnRunReport(*report, llvm::outs());
    return 0;
  }
  // Algorithms (docs/algorithms.md): run on the CPU, compiled for it.
  if (runWalk && compilation.isAlgorithmJob(jobName)) {
    target::AlgoRunOptions options;
    options.job = jobName;
    options.threads = algoThreads;
    if (outputFilename != "-")
      options.out = outputFilename;
    options.remarks = walkRemarks;
    options.graphCache = !noGraphCache;
    options.forceCpu =
        codeTarget.getNumOccurrences() > 0 && codeTarget == CodeTarget::Cpu;
    options.gpu =
        codeTarget.getNumOccurrences() > 0 && codeTarget == CodeTarget::Gpu;
    options.libdevice = libdevicePath;
    options.trials = algoTrials;
    return runAlgorithmJobAndReport(module, options, llvm::outs());
  }
  // --run without --target runs each walk where its schedule says; only
  // when a walk asks for the GPU is the driver probed, and without one
  // every walk is scheduled for the CPU, with a warning at those walks.
  if (runWalk && !codeTarget.getNumOccurrences() &&
      mlir::failed(compilation.scheduleGpuWalksOnCpuWithoutGpu(
          " (--target=cpu runs there without this warning, --target=gpu "
          "insists on the GPU)")))
    return 1;
  target::WalkRunOptions options;
  options.job = jobName;
  options.threads = walkThreads;
  options.walksOut = walksOut;
  options.walksDtype = walksDtype;
  options.shuffleWalks = shuffleWalks;
  options.costRatio = walkCostRatio;
  options.maxLength = walkMaxLength;
  options.libdevice = libdevicePath;
  options.remarks = walkRemarks;
  options.graphCache = !noGraphCache;
  return runWalkJobAndReport(module, options, llvm::outs());
}

namespace {
/// Prints diagnostics with their source line through a buffer flushed after
/// each one. The source-line printer writes the caret line one character at
/// a time, which on the unbuffered llvm::errs() is one write(2) each:
/// seconds for an error on a line of megabytes. A location at line 0 is a
/// file as a whole (Compilation::fileLocation): `file: error: ...`, with
/// no source line.
class FlushingDiagnosticHandler : public mlir::SourceMgrDiagnosticHandler {
public:
  FlushingDiagnosticHandler(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *ctx,
                            llvm::raw_fd_ostream &os)
      : SourceMgrDiagnosticHandler(sourceMgr, ctx, os) {
    os.SetBuffered();
    setHandler([this, &os](mlir::Diagnostic &diag) {
      auto file = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation());
      if (file && file.getLine() == 0) {
        llvm::SMDiagnostic(file.getFilename().getValue(),
                           diag.getSeverity() == mlir::DiagnosticSeverity::Error
                               ? llvm::SourceMgr::DK_Error
                               : llvm::SourceMgr::DK_Warning,
                           diag.str())
            .print(nullptr, os);
        for (mlir::Diagnostic &note : diag.getNotes())
          emitDiagnostic(note.getLocation(), note.str(),
                         mlir::DiagnosticSeverity::Note);
      } else {
        emitDiagnostic(diag);
      }
      os.flush();
    });
  }
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  // The passes by name, for --mlir-print-ir-after=<pass> and the like
  // (before the options that list them).
  sluice::registerSluicePasses();
  sluice::registerPassManagerOptions(); // and runPasses applies them
  // MLIR's and LLVM's options stay accepted (e.g. --mlir-print-ir-after-all)
  // but only ours are listed by --help; --help-hidden lists them all.
  installVersionPrinter("sluicec");
  cl::HideUnrelatedOptions(sluiceCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sluicec: the Sluice compiler\n\n"
      "Phases, in order (--emit=<phase> stops after one and prints it):\n"
      "  ast     parse the program and its imports\n"
      "  sema    resolve names, check types and units (typed AST)\n"
      "  mlir    lower to the Sluice dialects (topo, walk, graph, plan,\n"
      "          model, seq) and run walk-bounds, graph-attach-schedule,\n"
      "          graph-check-parallel-writes, graph-hoist-source-terms and\n"
      "          model-cost\n"
      "  flat    topo-flatten: one op per physical device\n"
      "  report  topology analysis: connectivity, bottleneck bandwidth and\n"
      "          hops per device pair, cuts and bisection, totals per kind\n"
      "          (--format=table|json|dot|svg)\n"
      "  plan    schedule the program's demands over the flat topology\n"
      "          (--format=mlir|table|json|dot|svg|trace), or its "
      "finetune/infer\n"
      "          jobs with the offload planners\n"
      "          (--format=table|json|trace|deepspeed|mlir, --job), train\n"
      "          jobs (3D parallel, also megatron), distill jobs (Pipe-BD)\n"
      "          and gnn train jobs\n\n"
      "Walks: --run JIT-compiles a walk and runs one of its jobs (--job);\n"
      "-c compiles the walks to an object file and a C header (-o);\n"
      "--target=gpu runs them on a GPU or writes PTX. Graph algorithms:\n"
      "--run runs an algorithm job on the CPU (--algo-threads, -o for the\n"
      "output, --algo-trials for warm runs), or its loops as GPU kernels\n"
      "with --target=gpu or its schedule's target: gpu; -c and --emit=llvm\n"
      "compile them for the CPU, -c --target=gpu and --emit=ptx their\n"
      "loops' kernels.\n"
      "GNNs: --run trains a gnn model's train job on the CPU (epoch lines\n"
      "on stderr, the summary on stdout, -o for the JSON report);\n"
      "-c --target=gpu (PTX + .json) and --emit=ptx write the sage and gcn\n"
      "jobs' aggregation kernels; --run --target=gpu runs them on the GPU.\n"
      "Alignment: --run runs an align job on the CPU's wavefront kernel\n"
      "(--algo-threads, -o for the TSV).\n");

  if (int rc = checkHostCpuOptions())
    return rc;

  mlir::DialectRegistry registry;
  registerSluiceDialects(registry);
  // Single-threaded: a program's module holds a few functions, so the
  // pass manager's parallel function passes only hand work to threads
  // (created for the purpose) and wait for them; every `sluicec` start
  // paid for that (docs/build.md, "Link mode").
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  // Errors name the source; the IR behind them is for --debug.
  ctx.printOpOnDiagnostic(debugIR);

  llvm::SourceMgr sourceMgr;
  llvm::raw_fd_ostream diagStream(/*fd=*/2, /*shouldClose=*/false);
  FlushingDiagnosticHandler diagHandler(sourceMgr, &ctx, diagStream);

  if (runWalk || compileWalks) {
    Compilation walkCompilation(ctx, sourceMgr);
    // --target schedules every walk there; without it --run runs each walk
    // where its schedule says (`target: gpu`), on the CPU by default, and
    // -c compiles for the CPU.
    if (codeTarget.getNumOccurrences() || compileWalks)
      walkCompilation.setWalkTarget(codeTarget == CodeTarget::Gpu ? "gpu"
                                                                  : "cpu");
    return runWalkProgram(walkCompilation);
  }

  std::string errorMessage;
  auto output = mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << "sluicec: error: " << errorMessage << "\n";
    return 1;
  }
  Compilation compilation(ctx, sourceMgr);
  compilation.setWalkRemarks(walkRemarks);
  compilation.setMeasureCompression(measureCompression);
  int rc = run(compilation, output->os());
  if (rc == 0)
    output->keep();
  return rc;
}
