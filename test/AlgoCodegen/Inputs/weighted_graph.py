"""Writes a seeded random undirected weighted graph as an edge list.

Usage: weighted_graph.py OUT VERTICES EDGES SEED

Each line is `u v w` with u != v, each unordered pair once, and w an
integer weight in 1..100 (sums of such weights are exact in f64, so a
reference and the compiled algorithm agree bit for bit).
"""
import random
import sys

out, n, m, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
seen = set()
with open(out, "w") as f:
    while len(seen) < m:
        u, v = rng.randrange(n), rng.randrange(n)
        if u == v or (min(u, v), max(u, v)) in seen:
            continue
        seen.add((min(u, v), max(u, v)))
        f.write(f"{u} {v} {rng.randint(1, 100)}\n")
