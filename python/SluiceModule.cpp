//===- SluiceModule.cpp - sluice._sluice: the compiler from Python --------===//
//
// The extension module behind the Python package `sluice` (docs/python.md).
// Compiling a program returns the program and its diagnostics as plain
// values (severity, file, line, column, message); the pure-Python layer
// (python/sluice/__init__.py) turns errors into sluice.CompileError. A
// Program owns its MLIRContext and source manager, so each one is
// independent. Graphs are in GraphBindings.cpp.
//
//===----------------------------------------------------------------------===//
#include "python/Bindings.h"

#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/Graph/AlgoCompile.h"
#include "compiler/Target/Plan/PlanEmit.h"
#include "compiler/Target/Walk/WalkCompile.h"
#include "frontends/sluice/AST.h"

#include "sluice/runtime.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace sluice;

namespace {

/// One located diagnostic, as Python sees it.
struct Diagnostic {
  std::string severity; ///< "error", "warning", "remark", "note"
  std::string file;     ///< empty when not located in a file
  unsigned line = 0, column = 0;
  std::string message;
};

const char *severityName(mlir::DiagnosticSeverity s) {
  switch (s) {
  case mlir::DiagnosticSeverity::Error:
    return "error";
  case mlir::DiagnosticSeverity::Warning:
    return "warning";
  case mlir::DiagnosticSeverity::Remark:
    return "remark";
  case mlir::DiagnosticSeverity::Note:
    return "note";
  }
  return "error";
}

/// The first file location inside `loc` (names, fused and call-site
/// locations wrap them).
void locate(mlir::Location loc, Diagnostic &d) {
  loc->walk([&](mlir::Location inner) {
    if (auto f = mlir::dyn_cast<mlir::FileLineColLoc>(inner)) {
      d.file = f.getFilename().str();
      d.line = f.getLine();
      d.column = f.getColumn();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
}

Diagnostic toDiagnostic(mlir::Diagnostic &diag) {
  Diagnostic d;
  d.severity = severityName(diag.getSeverity());
  d.message = diag.str();
  locate(diag.getLocation(), d);
  return d;
}

mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *r = [] {
    auto *reg = new mlir::DialectRegistry();
    registerSluiceDialects(*reg);
    return reg;
  }();
  return *r;
}

const char *declKindName(ast::Decl::Kind k) {
  switch (k) {
  case ast::Decl::Kind::Import:
    return "import";
  case ast::Decl::Kind::Let:
    return "let";
  case ast::Decl::Kind::Topology:
    return "topology";
  case ast::Decl::Kind::Graph:
    return "graph";
  case ast::Decl::Kind::Walk:
    return "walk";
  case ast::Decl::Kind::Algorithm:
    return "algorithm";
  case ast::Decl::Kind::Schedule:
    return "schedule";
  case ast::Decl::Kind::Model:
    return "model";
  case ast::Decl::Kind::Job:
    return "job";
  case ast::Decl::Kind::Demand:
    return "demand";
  }
  return "?";
}

/// A compiled program: parsed, checked and lowered to Sluice's dialects.
class Program {
public:
  Program() : ctx(registry()) {
    ctx.loadAllAvailableDialects();
    handler = ctx.getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
      diagnostics.push_back(toDiagnostic(d));
      for (mlir::Diagnostic &note : d.getNotes())
        diagnostics.push_back(toDiagnostic(note));
      return mlir::success();
    });
    compilation = std::make_unique<Compilation>(ctx, sourceMgr);
  }
  ~Program() { ctx.getDiagEngine().eraseHandler(handler); }

  /// Parse, check and lower `path`; false on errors (in diagnostics).
  bool compile(const std::string &path, const std::string &target,
               bool remarks) {
    this->path = path;
    compilation->setWalkRemarks(remarks);
    if (!target.empty())
      compilation->setWalkTarget(target);
    return mlir::succeeded(compilation->parse(path)) &&
           mlir::succeeded(compilation->check()) &&
           mlir::succeeded(compilation->lower());
  }

  /// (kind, name, file, line) of every named declaration, imports first.
  py::list declarations() const {
    py::list out;
    for (const auto &module : compilation->program().modules) {
      if (!module)
        continue;
      for (const auto &decl : module->decls) {
        if (!decl || decl->name.empty())
          continue;
        py::dict d;
        d["kind"] = declKindName(decl->getKind());
        d["name"] = decl->name;
        d["file"] = decl->range.begin.fileName().str();
        d["line"] = decl->range.begin.line;
        if (auto *job = llvm::dyn_cast<ast::JobDecl>(decl.get())) {
          d["action"] = job->action;
          d["subject"] = job->subject;
          d["target"] = job->target;
        }
        out.append(d);
      }
    }
    return out;
  }

  /// The lowered module as MLIR text.
  std::string mlirText() {
    std::string text;
    llvm::raw_string_ostream os(text);
    compilation->module().print(os);
    return text;
  }

  /// Runs walk job `job` (empty: the only walk job) as sluicec --run does
  /// and returns its report; None on errors (in diagnostics). A walk that
  /// asks for a GPU runs on the CPU when none is available (a warning).
  py::object runWalk(const std::string &job, uint32_t threads,
                     const std::string &walksOut, uint64_t maxLength,
                     double costRatio, bool quiet, bool graphCache,
                     const python::Graph *graph) {
    mlir::ModuleOp module = compilation->module();
    if (mlir::failed(compilation->checkRunnable(job)))
      return py::none();
    if (mlir::failed(compilation->scheduleGpuWalksOnCpuWithoutGpu("")))
      return py::none();
    target::WalkRunOptions options;
    options.job = job;
    options.threads = threads;
    options.walksOut = walksOut;
    options.maxLength = maxLength;
    options.costRatio = costRatio;
    options.quiet = quiet;
    options.graphCache = graphCache;
    options.graph = graph ? graph->get() : nullptr;
    mlir::FailureOr<target::WalkRunReport> report;
    {
      py::gil_scoped_release release;
      report = target::runWalkJob(module, options);
    }
    if (mlir::failed(report))
      return py::none();
    py::dict r;
    r["job"] = report->job;
    r["walk"] = report->walk;
    r["graph"] = report->graph;
    r["output"] = report->output;
    r["vertices"] = report->vertices;
    r["edges"] = report->edges;
    r["graph_load"] = report->graphLoad;
    r["graph_cache"] = report->graphCache;
    r["walks"] = report->walks;
    r["steps"] = report->steps;
    r["seconds"] = report->seconds;
    r["compile_seconds"] = report->compileSeconds;
    r["load_seconds"] = report->loadSeconds;
    r["rejection_steps"] = report->rejectionSteps;
    r["reservoir_steps"] = report->reservoirSteps;
    r["alias_steps"] = report->aliasSteps;
    r["cost_ratio"] = report->costRatio;
    r["max_length"] = report->maxLength;
    return std::move(r);
  }

  /// Runs algorithm job `job` (empty: the only one) on its declared graph,
  /// or on `graph`; returns (outputs as arrays, statistics), or None on
  /// errors (in diagnostics). Writes the outputs only to `out`.
  py::object runAlgorithm(const std::string &job, uint32_t threads,
                          const std::string &out, bool quiet, bool graphCache,
                          bool forceCpu, const python::Graph *graph) {
    target::AlgoRunOptions options;
    options.job = job;
    options.threads = threads;
    options.out = out;
    options.writeOutputs = !out.empty();
    options.quiet = quiet;
    options.graphCache = graphCache;
    options.forceCpu = forceCpu;
    options.graph = graph ? graph->get() : nullptr;
    options.keepResult = true;
    mlir::FailureOr<target::AlgoRunReport> report;
    {
      py::gil_scoped_release release;
      report = target::runAlgorithmJob(compilation->module(), options);
    }
    if (mlir::failed(report))
      return py::none();
    const sluice_graph_t *ran =
        graph ? graph->get() : report->loadedGraph.get();
    py::dict arrays =
        python::algorithmArrays(std::move(*report->result), ran);
    py::dict r;
    r["job"] = report->job;
    r["algorithm"] = report->algorithm;
    r["graph"] = report->graph;
    r["output"] = report->output;
    r["vertices"] = report->vertices;
    r["edges"] = report->edges;
    r["passes"] = report->passes;
    r["threads"] = report->threads;
    r["seconds"] = report->seconds;
    r["compile_seconds"] = report->compileSeconds;
    r["load_seconds"] = report->loadSeconds;
    r["graph_cache"] = report->graphCache;
    if (report->loadedGraph)
      r["graph_object"] = python::Graph(report->loadedGraph);
    return py::make_tuple(arrays, r);
  }

  /// The program's plans (sluicec --emit=plan) in `format`; None on errors
  /// (in diagnostics). Flattens the module: call it on a fresh Program.
  py::object plan(const std::string &format, const std::string &top,
                  const std::string &job, uint64_t seed, bool remarks,
                  double tpcBudget) {
    static const std::pair<const char *, ReportFormat> formats[] = {
        {"table", ReportFormat::Table},   {"json", ReportFormat::Json},
        {"dot", ReportFormat::Dot},       {"mlir", ReportFormat::Mlir},
        {"trace", ReportFormat::Trace},   {"deepspeed", ReportFormat::DeepSpeed},
        {"megatron", ReportFormat::Megatron}};
    PlanOptions options;
    bool known = false;
    for (const auto &[name, value] : formats)
      if (format == name) {
        options.format = value;
        known = true;
      }
    if (!known)
      throw py::value_error("unknown plan format '" + format +
                            "' (table, json, dot, mlir, trace, deepspeed, "
                            "megatron)");
    options.top = top;
    options.job = job;
    options.seed = seed;
    options.remarks = remarks;
    options.tpcBudget = tpcBudget;
    std::string text;
    llvm::raw_string_ostream os(text);
    mlir::LogicalResult ok = mlir::failure();
    {
      py::gil_scoped_release release;
      ok = emitPlans(*compilation, options, os);
    }
    if (mlir::failed(ok))
      return py::none();
    return py::str(text);
  }

  /// Diagnostics since the last call, as dicts; clears them.
  py::list takeDiagnostics() {
    py::list out;
    for (const Diagnostic &d : diagnostics) {
      py::dict x;
      x["severity"] = d.severity;
      x["file"] = d.file;
      x["line"] = d.line;
      x["column"] = d.column;
      x["message"] = d.message;
      out.append(x);
    }
    diagnostics.clear();
    return out;
  }

  std::string path;

private:
  mlir::MLIRContext ctx;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<Compilation> compilation;
  mlir::DiagnosticEngine::HandlerID handler = 0;
  std::vector<Diagnostic> diagnostics;
};

} // namespace

PYBIND11_MODULE(_sluice, m) {
  m.doc() = "Sluice compiler and runtime (see the package sluice)";
  m.attr("runtime_version") = sluice_runtime_version_string();

  py::class_<Program>(m, "Program")
      .def(py::init<>())
      .def("compile", &Program::compile, py::arg("path"),
           py::arg("target") = "", py::arg("remarks") = false)
      .def("declarations", &Program::declarations)
      .def("mlir", &Program::mlirText)
      .def("run_walk", &Program::runWalk, py::arg("job") = "",
           py::arg("threads") = 0, py::arg("walks_out") = "",
           py::arg("max_length") = 0, py::arg("cost_ratio") = 0.0,
           py::arg("quiet") = true, py::arg("graph_cache") = true,
           py::arg("graph") = nullptr)
      .def("run_algorithm", &Program::runAlgorithm, py::arg("job") = "",
           py::arg("threads") = 0, py::arg("out") = "",
           py::arg("quiet") = true, py::arg("graph_cache") = true,
           py::arg("force_cpu") = false, py::arg("graph") = nullptr)
      .def("plan", &Program::plan, py::arg("format") = "json",
           py::arg("top") = "", py::arg("job") = "", py::arg("seed") = 1,
           py::arg("remarks") = false, py::arg("tpc_budget") = 0.0)
      .def("take_diagnostics", &Program::takeDiagnostics)
      .def_readonly("path", &Program::path);

  sluice::python::bindGraphs(m);
}
