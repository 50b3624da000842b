#!/usr/bin/env python3
"""Checks that no two Sluice libraries link each other, directly or through
others (docs/build.md, "Layering").

Usage: scripts/check-link-cycles.py [BUILD_DIR]   (default: build)

Writes CMake's target graph (cmake --graphviz) of the configured BUILD_DIR
into a temporary directory, finds its strongly connected components and
prints every one with more than one target (a link cycle). Exit status 1
when there is one, 0 otherwise; the libraries it checked are listed with -v.
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def read_graph(build_dir):
    with tempfile.TemporaryDirectory() as tmp:
        dot = Path(tmp) / "deps.dot"
        subprocess.run(["cmake", f"--graphviz={dot}", str(build_dir)],
                       check=True, stdout=subprocess.DEVNULL, cwd=tmp)
        text = dot.read_text()
    names = dict(re.findall(r'"(node\d+)" \[ label = "([^"]+)"', text))
    edges = {n: [] for n in names.values()}
    for a, b in re.findall(r'"(node\d+)" -> "(node\d+)"', text):
        edges[names[a]].append(names[b])
    return edges


def cycles(edges):
    """Tarjan's strongly connected components with more than one node."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, []):
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    build_dir = Path(args[0] if args else "build").resolve()
    edges = read_graph(build_dir)
    found = cycles(edges)
    if "-v" in sys.argv:
        libs = sorted(n for n in edges if n.startswith(("Sluice", "sluicert")))
        print(f"{len(libs)} Sluice targets of {len(edges)}:",
              " ".join(libs))
    for c in found:
        print("link cycle:", " <-> ".join(c))
    if not found:
        print("no link cycle among", len(edges), "targets")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
