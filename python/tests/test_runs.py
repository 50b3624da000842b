"""Algorithm runs, in-memory graphs and plans from Python (docs/python.md),
checked against references computed here: BFS depths by a serial BFS,
plans against sluicec's own JSON of the same program."""

import collections
import json
import os
import subprocess

import numpy as np
import pytest

import sluice

SOURCE = os.environ.get("SLUICE_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
MACHINE = os.path.join(SOURCE, "examples", "machines",
                       "rtx4090-workstation.sluice")
SLUICEC = os.path.join(os.path.dirname(sluice.__file__), "..", "..", "bin",
                       "sluicec")

BFS = """
import "{machine}"
graph g = load("{path}", {load})
algorithm bfs(source: i64 = 0) on g {{
  vertex depth: i64 = -1
  vertex parent: vertex = source
  depth[source] = 0
  frontier active = [source]
  while size(active) > 0 {{
    @expand active = edges(src, dst) from active where depth[dst] == -1 {{
      depth[dst] = depth[src] + 1
      parent[dst] = src
    }}
  }}
  output depth, parent
}}
schedule bfs {{ target: cpu, @expand {{ direction: push, parallel: serial }} }}
job levels = run bfs on workstation {{ source: {source} }}
"""


def bfs_reference(edges, source):
    adj = collections.defaultdict(list)
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    depth = {source: 0}
    queue = collections.deque([source])
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if v not in depth:
                depth[v] = depth[u] + 1
                queue.append(v)
    return depth


def edge_file(tmp_path, edges):
    path = tmp_path / "g.txt"
    path.write_text("".join(f"{u}\t{v}\n" for u, v in edges))
    return path


def random_edges(n, m, seed):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    keep = src != dst
    return list(zip(src[keep].tolist(), dst[keep].tolist()))


def bfs_program(tmp_path, path, source=0,
                load="format: snap, undirected"):
    return sluice.compile_string(
        BFS.format(machine=MACHINE, path=path, source=source, load=load),
        base_dir=tmp_path)


def test_algorithm_outputs_as_arrays_match_a_serial_bfs(tmp_path):
    # A Matrix Market graph: its ids are 1-based, so "id" and the
    # vertex-valued output must be translated back to the file's ids.
    edges = [(u + 1, v + 1) for u, v in random_edges(300, 700, 5)]
    path = tmp_path / "g.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n"
                    f"300 300 {len(edges)}\n" +
                    "".join(f"{u} {v}\n" for u, v in edges))
    program = bfs_program(tmp_path, path, source=7,
                          load="format: mtx, undirected")
    arrays, stats = program.run_algorithm()
    assert set(arrays) == {"depth", "parent", "id"}
    assert arrays["depth"].dtype == np.int64
    assert stats["vertices"] == len(arrays["id"]) == len(arrays["depth"])
    expected = bfs_reference(edges, 7)
    for vid, d, p in zip(arrays["id"], arrays["depth"], arrays["parent"]):
        assert d == expected.get(int(vid), -1)
        if d > 0:  # the parent is a file id one level up
            assert expected[int(p)] == d - 1
        else:  # never set: the source (its file id)
            assert p == 7
    # Nothing written: the job names no output and out= was not given.
    assert stats["output"] == ""


def test_algorithm_on_an_in_memory_graph(tmp_path):
    edges = random_edges(200, 500, 9)
    path = edge_file(tmp_path, [(0, 1)])  # what the program names
    program = bfs_program(tmp_path, path, source=3)
    src, dst = np.array(edges).T
    graph = sluice.Graph.from_edges(src, dst, num_vertices=200,
                                    undirected=True)
    arrays, stats = program.run_algorithm(graph=graph, out=tmp_path / "d.npy")
    assert stats["vertices"] == 200
    expected = bfs_reference(edges, 3)
    assert [expected.get(v, -1) for v in range(200)] == \
        arrays["depth"].tolist()
    # out= wrote the same values, one .npy per output.
    assert np.load(tmp_path / "d.depth.npy").tolist() == \
        arrays["depth"].tolist()


def test_algorithm_errors_are_located(tmp_path):
    path = edge_file(tmp_path, [(0, 1), (1, 2)])
    program = bfs_program(tmp_path, path, source=99)
    with pytest.raises(sluice.CompileError,
                       match=r"vertex 99 is not in the graph") as e:
        program.run_algorithm()
    assert any(d.line > 0 for d in e.value.diagnostics)
    weighted = bfs_program(tmp_path, path,
                           load="format: snap, undirected, weighted: true")
    graph = sluice.Graph.from_edges(np.array([0]), np.array([1]))
    with pytest.raises(sluice.CompileError, match="has no weights"):
        weighted.run_algorithm(graph=graph)


def test_walks_of_an_in_memory_graph_follow_its_edges(tmp_path):
    program = sluice.compile(os.path.join(SOURCE, "examples", "walks",
                                          "node2vec-facebook.sluice"))
    edges = random_edges(60, 200, 4)
    src, dst = np.array(edges).T
    graph = sluice.Graph.from_edges(src, dst, undirected=True,
                                    deduplicate=True)
    walks, stats = program.walks(graph=graph, threads=2)
    assert stats["vertices"] == graph.num_vertices
    adj = set(edges) | {(v, u) for u, v in edges}
    steps = 0
    for row in walks:
        for a, b in zip(row[:-1], row[1:]):
            if b < 0:
                break
            assert (int(a), int(b)) in adj
            steps += 1
    assert steps == stats["steps"]


def sluicec_json(path):
    out = subprocess.run([SLUICEC, "--emit=plan", "--format=json", path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.mark.parametrize("example", ["flows/dgx-allreduce.sluice",
                                     "models/finetune-gpt3.sluice",
                                     "models/train-gpt-4090.sluice",
                                     "models/distill-gpt-4090.sluice",
                                     "models/finetune-lora-70b.sluice"])
def test_plans_as_dicts_equal_sluicec_json(example):
    path = os.path.join(SOURCE, "examples", example)
    program = sluice.compile(path)
    plan = program.plan()
    assert isinstance(plan, dict) and plan
    assert plan == sluicec_json(path)
    # The program is not changed by planning: it plans again the same.
    assert program.plan() == plan


def test_gnn_plan_as_dict_equals_sluicec_json(tmp_path):
    # A copy of the inputs: planning writes the graph's CSR cache next to it.
    import shutil
    inputs = os.path.join(SOURCE, "test", "GnnTrain", "Inputs")
    for name in os.listdir(inputs):
        shutil.copy(os.path.join(inputs, name), tmp_path)
    path = os.fspath(tmp_path / "plan.sluice")
    program = sluice.compile(path)
    plan = program.plan("outofcore")
    out = subprocess.run([SLUICEC, "--emit=plan", "--format=json",
                          "--job=outofcore", path],
                         check=True, capture_output=True, text=True).stdout
    assert plan == json.loads(out)
    job = plan["gnn_plans"][0]
    # The toy job's batches are tiny: their fixed cost (docs/gnn.md,
    # "Constants") bounds it, as test/GnnTrain/emit-plan-gnn.test says.
    assert (job["cache"]["host"]["rows"] == 4
            and job["bound"] == "batch fixed cost")
    assert "cache: gpu 0 rows" in program.plan("outofcore", format="table")
    assert program.plan("outofcore", tpc_budget=3150)["gnn_plans"][0][
        "tpc"]["budget"] == 3150
    with pytest.raises(sluice.CompileError, match="features do not fit"):
        program.plan("bigcache")


def test_plan_formats_and_errors():
    path = os.path.join(SOURCE, "examples", "models", "train-gpt-4090.sluice")
    program = sluice.compile(path)
    assert program.plan(format="megatron").startswith("#!/usr/bin/env bash")
    assert "ways: tp" in program.plan(format="table")
    with pytest.raises(sluice.CompileError, match="train jobs are planned in"):
        program.plan(format="dot")
    with pytest.raises(ValueError, match="unknown plan format"):
        program.plan(format="pdf")
    walks = sluice.compile(os.path.join(SOURCE, "examples", "walks",
                                        "node2vec-facebook.sluice"))
    with pytest.raises(sluice.CompileError, match="no demand"):
        walks.plan()
