#!/usr/bin/env python3
"""Writes the out-of-core plan validation inputs (bench/gnn/ooc-dev-vm.sluice,
bench/RESULTS.md "GNN plan against the run") into a directory:

  rmat.el      an R-MAT graph of 2^scale vertex ids and 16 * 2^scale edges
               (Graph500 parameters a, b, c = 0.57, 0.19, 0.19), "u v" lines;
  rmat.labels  a label in 0..7 for every 30th vertex id ("vertex label");
  rmat.f32     128 dense float32 features per vertex id (raw, row r = id r).

With --widths W,... also rmat-wW.f32 (W features a vertex) and with
--label-every K,... also rmat-lK.labels (every K-th vertex id labelled), the
held-out settings of bench/gnn/heldout-dev-vm.sluice (bench/RESULTS.md, "GNN
plan away from its fitted settings"). The three files above are the same
with or without them.

Pure Python (no numpy), seeded: the same files every time.

  python3 bench/gnn/make-rmat.py build/gnn-ooc 17
  python3 bench/gnn/make-rmat.py build/gnn-ooc 17 --widths 32,512 \\
      --label-every 5,100
"""
import argparse
import array
import os
import random


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("scale", type=int, nargs="?", default=17)
    parser.add_argument("--widths", default="",
                        help="more feature widths, comma-separated")
    parser.add_argument("--label-every", default="",
                        help="more label shares (every K-th id), comma-separated")
    args = parser.parse_args()
    out, scale = args.out, args.scale
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
    for k in (int(x) for x in args.label_every.split(",") if x):
        lrng = random.Random(1000 + k)
        with open(os.path.join(out, f"rmat-l{k}.labels"), "w") as f:
            f.writelines(f"{v} {lrng.randrange(8)}\n" for v in range(0, n, k))
    for w in (int(x) for x in args.widths.split(",") if x):
        frng = random.Random(2000 + w)
        with open(os.path.join(out, f"rmat-w{w}.f32"), "wb") as f:
            for _ in range(n):
                array.array("f", [frng.random() - 0.5
                                  for _ in range(w)]).tofile(f)


if __name__ == "__main__":
    main()
