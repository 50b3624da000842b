#!/usr/bin/env python3
"""Writes the out-of-core plan validation inputs (bench/gnn/ooc-dev-vm.sluice,
bench/RESULTS.md "GNN plan against the run") into a directory:

  rmat.el      an R-MAT graph of 2^scale vertex ids and 16 * 2^scale edges
               (Graph500 parameters a, b, c = 0.57, 0.19, 0.19), "u v" lines;
  rmat.labels  a label in 0..7 for every 30th vertex id ("vertex label");
  rmat.f32     128 dense float32 features per vertex id (raw, row r = id r).

Pure Python (no numpy), seeded: the same files every time.

  python3 bench/gnn/make-rmat.py build/gnn-ooc 17
"""
import array
import os
import random
import sys


def main():
    out, scale = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 17
    os.makedirs(out, exist_ok=True)
    rng = random.Random(15)
    n, m = 1 << scale, 16 << scale
    with open(os.path.join(out, "rmat.el"), "w") as f:
        lines = []
        for _ in range(m):
            u = v = 0
            for _ in range(scale):
                r = rng.random()
                u, v = u << 1, v << 1
                if r < 0.57:
                    pass
                elif r < 0.76:
                    v |= 1
                elif r < 0.95:
                    u |= 1
                else:
                    u |= 1
                    v |= 1
            lines.append(f"{u} {v}\n")
        f.writelines(lines)
        # Every id a vertex: a path through the ids keeps none isolated.
        f.writelines(f"{i} {i + 1}\n" for i in range(n - 1))
    with open(os.path.join(out, "rmat.labels"), "w") as f:
        f.writelines(f"{v} {rng.randrange(8)}\n" for v in range(0, n, 30))
    row = array.array("f", [0.0] * 128)
    with open(os.path.join(out, "rmat.f32"), "wb") as f:
        for v in range(n):
            for c in range(128):
                row[c] = rng.random() - 0.5
            row.tofile(f)


if __name__ == "__main__":
    main()
