"""Counts, with Python sets and independently of the Sluice loader, what a
SNAP edge list (gzip'd or not) becomes as a simple undirected graph (ids
compacted, self loops dropped, u v and v u one edge) and as an undirected
multigraph (everything kept), and prints them as FileCheck lines for the
report of `sluicec --run`: prefix SIMPLE for the default load(...), MULTI
for duplicates: keep, self_loops: keep.

usage: simple-graph-count.py GRAPH
"""
import gzip
import sys


def main(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    lines = loops = 0
    ids, nonloop_ids, edges = set(), set(), set()
    with opener(path, "rt") as f:
        for line in f:
            fields = line.split()
            if not fields or fields[0][0] in "#%":
                continue
            u, v = int(fields[0]), int(fields[1])
            lines += 1
            ids.update((u, v))
            if u == v:
                loops += 1
                continue
            nonloop_ids.update((u, v))
            edges.add((min(u, v), max(u, v)))
    nonloop = lines - loops
    simple_arcs = 2 * len(edges)
    print("SIMPLE: job simple: walk one on graph slashdot (%d vertices, %d edges)"
          % (len(nonloop_ids), simple_arcs))
    print("SIMPLE-NEXT: graph: %d edges read: %d self loops dropped, %d "
          "duplicate edges merged (first copy kept, %d arcs removed), "
          "0 vertices without edges"
          % (lines, loops, nonloop - len(edges), 2 * nonloop - simple_arcs))
    print("MULTI: job multi: walk other on graph written (%d vertices, %d edges)"
          % (len(ids), 2 * nonloop + loops))


if __name__ == "__main__":
    main(sys.argv[1])
