"""Counts the triangles of an undirected SNAP edge list (gzip) by sets and
checks the sum of the second column of `id triangles` lines against it.

Usage: check_tc.py GRAPH COUNTS
"""
import gzip
import sys

adj = {}
with gzip.open(sys.argv[1], "rt") as f:
    for line in f:
        if line.startswith("#"):
            continue
        u, v = map(int, line.split()[:2])
        if u != v:
            adj.setdefault(u, set()).add(v)
            adj.setdefault(v, set()).add(u)
triangles = sum(len(adj[u] & adj[v]) for u in adj for v in adj[u] if v < u) // 3
total = sum(int(line.split()[1]) for line in open(sys.argv[2]))
print(f"triangles: {total} (reference {triangles})")
sys.exit(0 if total == triangles else 1)
