"""Tests of the Python package `sluice` (docs/python.md), run by ctest
(python-tests) with PYTHONPATH pointing at build/python."""

import os
import random

import numpy as np
import pytest
import scipy.sparse

import sluice

SOURCE = os.environ.get("SLUICE_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
MACHINE = os.path.join(SOURCE, "examples", "machines",
                       "rtx4090-workstation.sluice")


def write_graph(tmp_path, edges):
    path = tmp_path / "g.txt"
    path.write_text("".join(f"{u}\t{v}\n" for u, v in edges))
    return path


def walk_program(graph_file, body="weight(cur, next, w) = 1.0",
                 length=12, job_options="seed: 3"):
    return f"""
import "{MACHINE}"
graph g = load("{graph_file}", format: snap, undirected)
walk w on g {{
  length {length}
  {body}
}}
schedule w {{ target: cpu }}
job run = walk w on workstation {{ {job_options}, output: "unused.walks" }}
"""


def random_edges(n, m, seed):
    rng = random.Random(seed)
    edges = set()
    while len(edges) < m:
        u, v = rng.randrange(n), rng.randrange(n)
        if u != v:
            edges.add((min(u, v), max(u, v)))
    return sorted(edges)


def test_version():
    assert sluice.runtime_version.count(".") == 1


def test_compile_lists_declarations_and_jobs():
    p = sluice.compile(os.path.join(SOURCE, "examples", "walks",
                                    "node2vec-facebook.sluice"))
    kinds = {(d["kind"], d["name"]) for d in p.declarations()}
    assert ("walk", "node2vec") in kinds and ("graph", "facebook") in kinds
    (job,) = p.jobs()
    assert job["name"] == "embed" and job["action"] == "walk"
    assert job["subject"] == "node2vec" and job["line"] > 0
    assert "walk.walk" in p.mlir()


def test_compile_error_is_located(tmp_path):
    text = walk_program(write_graph(tmp_path, [(0, 1)]),
                        body="weight(cur, next, w) = q")
    with pytest.raises(sluice.CompileError) as info:
        sluice.compile_string(text, base_dir=tmp_path, name="prog.sluice")
    (d,) = [d for d in info.value.diagnostics if d.severity == "error"]
    assert (d.file, d.line) == ("prog.sluice", 6)
    assert d.column > 0 and "unknown name 'q'" in d.message
    assert str(info.value).startswith("prog.sluice:6:")
    # No temporary file is left behind.
    assert sorted(os.listdir(tmp_path)) == ["g.txt"]


def test_missing_file_is_a_compile_error(tmp_path):
    with pytest.raises(sluice.CompileError) as info:
        sluice.compile(tmp_path / "nope.sluice")
    assert "nope.sluice" in str(info.value)


def test_walks_follow_edges_and_are_deterministic(tmp_path):
    edges = random_edges(60, 200, 1)
    adjacency = {(u, v) for u, v in edges} | {(v, u) for u, v in edges}
    program = sluice.compile_string(
        walk_program(write_graph(tmp_path, edges)), base_dir=tmp_path)
    walks, stats = program.walks(threads=2)
    vertices = {u for e in edges for u in e}
    assert walks.dtype == np.int64
    assert walks.shape == (len(vertices), 12)
    assert stats["walks"] == len(vertices) and stats["steps"] > 0
    for row in walks:
        steps = [int(x) for x in row if x >= 0]
        assert all((a, b) in adjacency for a, b in zip(steps, steps[1:]))
    again, _ = program.walks(threads=1)
    assert np.array_equal(walks, again)


def test_run_walk_error_names_the_job(tmp_path):
    program = sluice.compile_string(
        walk_program(write_graph(tmp_path, [(0, 1)])), base_dir=tmp_path)
    with pytest.raises(sluice.CompileError) as info:
        program.run_walk("nosuchjob", walks_out=tmp_path / "w.txt")
    assert "nosuchjob" in str(info.value)


def test_graph_from_edges_matches_a_reference():
    edges = random_edges(40, 120, 2)
    src = np.array([u for u, _ in edges])
    dst = np.array([v for _, v in edges])
    g = sluice.Graph.from_edges(src, dst, num_vertices=45, undirected=True)
    assert g.num_vertices == 45 and g.num_edges == 2 * len(edges)
    adjacency = {v: [] for v in range(45)}
    for u, v in edges:
        adjacency[u].append(v)
        adjacency[v].append(u)
    offsets, targets = g.offsets, g.targets
    for v in range(45):
        assert sorted(adjacency[v]) == list(targets[offsets[v]:offsets[v + 1]])
        assert g.degree(v) == len(adjacency[v])
    assert g.has_edge(*edges[0]) and not g.has_edge(0, 0)
    assert not offsets.flags.writeable
    del g  # the views keep the graph alive
    assert int(offsets[-1]) == len(targets) == 2 * len(edges)


def test_graph_from_scipy_and_csr_round_trip(tmp_path):
    m = scipy.sparse.random(30, 30, density=0.2, format="csr",
                            random_state=np.random.default_rng(5))
    g = sluice.from_scipy(m)
    assert np.array_equal(g.offsets, m.indptr)
    assert np.array_equal(g.targets, m.indices)
    assert np.allclose(g.weights, m.data.astype(np.float32))
    path = tmp_path / "g.sluice-csr"
    g.write_binary(os.fspath(path))
    h = sluice.Graph.load(os.fspath(path), format="binary")
    assert np.array_equal(h.targets, g.targets)
    assert np.array_equal(h.weights, g.weights)


def test_bad_graph_inputs_raise():
    with pytest.raises(ValueError, match=r"src\[1\] = -2"):
        sluice.Graph.from_edges(np.array([0, -2]), np.array([1, 1]))
    with pytest.raises(ValueError, match="different lengths"):
        sluice.Graph.from_edges(np.array([0, 1]), np.array([1]))
    with pytest.raises(ValueError, match=r"dst\[0\] = 7 is not a vertex id"):
        sluice.Graph.from_edges(np.array([0]), np.array([7]), num_vertices=5)
    with pytest.raises(ValueError, match="indptr must not decrease"):
        sluice.Graph.from_csr(np.array([0, 2, 1, 3]), np.array([1, 2, 0]))
    with pytest.raises(ValueError, match="unknown graph format"):
        sluice.Graph.load("x", format="parquet")
    with pytest.raises(sluice.Error, match="missing.txt"):
        sluice.Graph.load("/nonexistent/missing.txt")
    with pytest.raises(ValueError, match="one weight per edge"):
        sluice.Graph.from_edges(np.array([0]), np.array([1]),
                                weights=np.array([1.0, 2.0]))
