"""Checks `id dist` lines against Dijkstra (heapq) on an undirected
weighted edge list.

Usage: check_sssp.py EDGES SOURCE DISTANCES

Unreached vertices must have 1e300. Prints the reached vertices and the
largest distance; exits 1 at the first difference.
"""
import heapq
import sys

edges, source, distances = sys.argv[1], int(sys.argv[2]), sys.argv[3]
adj = {}
for line in open(edges):
    u, v, w = line.split()
    u, v, w = int(u), int(v), float(w)
    adj.setdefault(u, []).append((v, w))
    adj.setdefault(v, []).append((u, w))
dist = {source: 0.0}
heap = [(0.0, source)]
while heap:
    d, u = heapq.heappop(heap)
    if d > dist[u]:
        continue
    for v, w in adj.get(u, []):
        if d + w < dist.get(v, float("inf")):
            dist[v] = d + w
            heapq.heappush(heap, (d + w, v))
got = {}
for line in open(distances):
    i, d = line.split()
    got[int(i)] = float(d)
if set(got) != set(adj):
    sys.exit(f"vertices differ: {len(got)} written, {len(adj)} in the graph")
for v in sorted(adj):
    want = dist.get(v, 1e300)
    if got[v] != want:
        sys.exit(f"vertex {v}: got {got[v]!r}, Dijkstra {want!r}")
print(f"reached {len(dist)} of {len(adj)} vertices, farthest {max(dist.values()):g}")
