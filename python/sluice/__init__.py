"""Sluice from Python: compile .sluice programs, run their walk jobs, and
build graphs from numpy arrays (docs/python.md).

    import sluice
    program = sluice.compile("examples/walks/node2vec-facebook.sluice")
    walks, stats = program.walks(job="embed")   # numpy int64 array

Errors in a program raise sluice.CompileError, whose `diagnostics` list
every located message (file, line, column, message); runtime errors
(files, graphs) raise sluice.Error.
"""

import os
import tempfile
from dataclasses import dataclass

from . import _sluice
from ._sluice import Error, Graph

__all__ = ["compile", "compile_string", "CompileError", "Diagnostic",
           "Error", "Graph", "Program", "from_scipy", "runtime_version"]

runtime_version = _sluice.runtime_version


@dataclass(frozen=True)
class Diagnostic:
    """One located message of the compiler."""
    severity: str  # "error", "warning", "remark" or "note"
    file: str      # empty when not about a place in a file
    line: int      # 1-based; 0 when unknown
    column: int
    message: str

    def __str__(self):
        where = (f"{self.file}:{self.line}:{self.column}: " if self.line
                 else f"{self.file}: " if self.file else "")
        return f"{where}{self.severity}: {self.message}"


class CompileError(Exception):
    """A program that does not compile (or a job that cannot run): the
    message is the first error; `diagnostics` holds every message."""

    def __init__(self, diagnostics):
        self.diagnostics = diagnostics
        errors = [d for d in diagnostics if d.severity == "error"]
        super().__init__(str(errors[0] if errors else
                             (diagnostics[0] if diagnostics else
                              "compilation failed")))


def _diagnostics(native):
    return [Diagnostic(**d) for d in native.take_diagnostics()]


class Program:
    """A compiled program (parsed, checked, lowered). Build it with
    sluice.compile or sluice.compile_string."""

    def __init__(self, native, diagnostics, recompile):
        self._native = native
        self._recompile = recompile     # a fresh native Program (for plans)
        self.diagnostics = diagnostics  # warnings and remarks of compiling

    @property
    def path(self):
        return self._native.path

    def declarations(self, kind=None):
        """Every named declaration (imports first) as dicts with kind,
        name, file and line (jobs also action, subject and target)."""
        decls = self._native.declarations()
        return [d for d in decls if kind is None or d["kind"] == kind]

    def jobs(self):
        return self.declarations("job")

    def mlir(self):
        """The lowered module, as MLIR text."""
        return self._native.mlir()

    def run_walk(self, job="", *, walks_out="", threads=0, max_length=0,
                 cost_ratio=0.0, quiet=True, graph_cache=True, graph=None):
        """Runs walk job `job` (empty: the only one) as `sluicec --run`
        does, writing its walks to `walks_out` (default: the job's output;
        .npy: NumPy int64, else text). With `graph` (a sluice.Graph) it
        walks that graph instead of loading the file the program names.
        Returns the run's statistics."""
        report = self._native.run_walk(job, threads, os.fspath(walks_out),
                                       max_length, cost_ratio, quiet,
                                       graph_cache, graph)
        diagnostics = _diagnostics(self._native)
        if report is None:
            raise CompileError(diagnostics)
        report["diagnostics"] = diagnostics
        return report

    def walks(self, job="", **options):
        """Runs walk job `job` and returns (walks, stats): walks as a numpy
        int64 array of shape (walks, max_length), rows of shorter walks
        padded with -1, ids as in the graph file. The walks go through a
        temporary .npy file, which is removed."""
        import numpy as np
        with tempfile.TemporaryDirectory(prefix="sluice-walks-") as tmp:
            path = os.path.join(tmp, "walks.npy")
            stats = self.run_walk(job, walks_out=path, **options)
            walks = np.load(path)
        return walks, stats


    def run_algorithm(self, job="", *, graph=None, threads=0, out="",
                      quiet=True, graph_cache=True, force_cpu=False):
        """Runs algorithm job `job` (empty: the only one) on the graph the
        program loads, or on `graph` (a sluice.Graph), and returns
        (outputs, stats): outputs maps each output property to a numpy
        array over the vertices (float64, int64 or bool, views without a
        copy; vertex-valued properties as original ids, -1 for none) and
        "id" to the vertices' original ids. `out` also writes the outputs
        there as sluicec --run -o does (text, or .npy). `force_cpu` runs an
        algorithm scheduled for the GPU on the CPU."""
        result = self._native.run_algorithm(job, threads, os.fspath(out),
                                            quiet, graph_cache, force_cpu,
                                            graph)
        diagnostics = _diagnostics(self._native)
        if result is None:
            raise CompileError(diagnostics)
        arrays, stats = result
        stats["diagnostics"] = diagnostics
        return arrays, stats

    def plan(self, job="", *, format="json", top="", seed=1, tpc_budget=0):
        """The program's plans, as `sluicec --emit=plan --format=FORMAT`
        writes them: flow schedules of its demands, offload plans of its
        finetune/infer jobs, 3D-parallel plans of its train jobs or the
        pipeline, cache and epoch prediction of its gnn train jobs (`job`
        picks one). format="json" (the default) returns a dict (the same
        document as the JSON file); "table", "dot", "mlir", "trace",
        "deepspeed" (a dict) and "megatron" return text. `top` is the
        topology to plan on (default: the program's), `seed` that of the
        placement search of train jobs, `tpc_budget` the price limit of
        the throughput-per-cost advice of gnn jobs (sluicec
        --tpc-budget; 0: none). The program itself is unchanged
        (the plan runs on a fresh compilation of it)."""
        import json
        native, _ = self._recompile()
        text = native.plan(format, top, job, seed, False, tpc_budget)
        diagnostics = _diagnostics(native)
        if text is None:
            raise CompileError(diagnostics)
        if format in ("json", "deepspeed"):
            return json.loads(text)
        return text


def _compile_native(path, target, remarks):
    native = _sluice.Program()
    ok = native.compile(os.fspath(path), target, remarks)
    diagnostics = _diagnostics(native)
    if not ok:
        raise CompileError(diagnostics)
    return native, diagnostics


def compile(path, *, target="", remarks=False):
    """Compiles the program in file `path` (with its imports). `target`
    ("cpu" or "gpu") schedules every walk there; `remarks` asks for the
    compiler's explanations (in Program.diagnostics)."""
    path = os.fspath(path)
    recompile = lambda: _compile_native(path, target, remarks)
    native, diagnostics = recompile()
    return Program(native, diagnostics, recompile)


def compile_string(text, *, base_dir=".", name="<string>.sluice", **options):
    """Compiles program text. Imports and relative paths in it are resolved
    against `base_dir`; diagnostics name the file `name` there. Options as
    for compile (target, remarks)."""
    base = os.path.abspath(os.fspath(base_dir))
    target = options.get("target", "")
    remarks = options.get("remarks", False)

    def recompile():
        fd, path = tempfile.mkstemp(prefix=".sluice-", suffix=".sluice",
                                    dir=base)

        def rename(diagnostics):
            return [Diagnostic(d.severity, name if d.file == path else d.file,
                               d.line, d.column,
                               d.message.replace(path, name))
                    for d in diagnostics]
        try:
            with os.fdopen(fd, "w") as f:
                f.write(text)
            try:
                native, diagnostics = _compile_native(path, target, remarks)
            except CompileError as e:
                raise CompileError(rename(e.diagnostics)) from None
            return _Renamed(native, rename), rename(diagnostics)
        finally:
            os.unlink(path)

    native, diagnostics = recompile()
    return Program(native, diagnostics, recompile)


class _Renamed:
    """A native program compiled from a temporary file, whose later
    diagnostics name the file as the caller did (compile_string)."""

    def __init__(self, native, rename):
        self._native, self._rename = native, rename

    def take_diagnostics(self):
        return [vars(d) for d in
                self._rename([Diagnostic(**d)
                              for d in self._native.take_diagnostics()])]

    def __getattr__(self, name):
        return getattr(self._native, name)


def from_scipy(matrix, **options):
    """A directed graph from a scipy.sparse matrix: an edge i -> j for
    every stored entry (i, j), its value as the weight (float32)."""
    csr = matrix.tocsr()
    csr.sort_indices()
    return Graph.from_csr(csr.indptr, csr.indices,
                          csr.data.astype("float32"), **options)
