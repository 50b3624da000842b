"""Checks f32 PageRank outputs (run-f32.test): the text output's values
read back to the .npy output's f32 values bit for bit ('%.9g'), the .npy
is '<f4', and the ranks are within the f32 rounding bound of a serial f64
PageRank (AlgoF32Test.cpp states the bound: (max in-degree + 4) * 2^-24
/ (1 - damping) in L1).

usage: check_pr_f32.py EDGES TEXT NPY [ITERATIONS]
"""
import struct
import sys

edges_path, text_path, npy_path = sys.argv[1:4]
iterations = int(sys.argv[4]) if len(sys.argv) > 4 else 20
damping = 0.85

edges = []
for line in open(edges_path):
    if line.startswith('#') or not line.strip():
        continue
    u, v = map(int, line.split()[:2])
    edges.append((u, v))
ids = sorted({x for e in edges for x in e})
n = len(ids)
out_degree = {v: 0 for v in ids}
in_degree = {v: 0 for v in ids}
for u, v in edges:
    out_degree[u] += 1
    in_degree[v] += 1
rank = {v: 1.0 / n for v in ids}
for _ in range(iterations):
    incoming = {v: 0.0 for v in ids}
    for u, v in edges:
        incoming[v] += rank[u] / out_degree[u]
    rank = {v: (1.0 - damping) / n + damping * incoming[v] for v in ids}

text = {}
order = []
for line in open(text_path):
    vid, value = line.split()
    text[int(vid)] = value
    order.append(int(vid))
assert sorted(order) == ids, f"vertices {order}, expected {ids}"

data = open(npy_path, 'rb').read()
header_len = data[8] + 256 * data[9]
header = data[10:10 + header_len].decode()
assert "'descr': '<f4'" in header, header
assert f"'shape': ({n},)" in header, header
body = data[10 + header_len:]
assert len(body) == 4 * n, f"{len(body)} bytes for {n} f32 values"
for i, vid in enumerate(order):
    want = body[4 * i:4 * i + 4]
    got = struct.pack('<f', float(text[vid]))
    assert got == want, f"vertex {vid}: text {text[vid]} is not the f32 {struct.unpack('<f', want)[0]!r}"

error = sum(abs(float(text[v]) - rank[v]) for v in ids)
bound = (max(in_degree.values()) + 4) * 2.0 ** -24 / (1 - damping)
assert error < bound, f"L1 error {error} above the f32 bound {bound}"
print(f"ok: {n} f32 ranks, L1 {error:.3g} < {bound:.3g}")
