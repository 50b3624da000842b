#!/usr/bin/env python3
"""Writes the seed corpora of the reader fuzz targets (docs/fuzzing.md).

Usage: make-seeds.py [OFFLOAD_SCHEDULE.json...]

Each seed goes to corpus/<target>/<sha1 prefix> (named by content, so
running this again adds nothing twice). Seeds are the small valid and
invalid inputs of test/ and examples/, plus hand-written ones for what those
do not cover; the graph targets' seeds get the option byte(s) their target
reads first. Offload schedules written by sluice-plan-offload
--format=schedule can be passed as arguments.
"""
import gzip
import hashlib
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def add(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:12]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def repo(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


def gz(data):
    return gzip.compress(data if isinstance(data, bytes) else data.encode(),
                         mtime=0)


# --- flow schedules (sluice-flow-exec) -----------------------------------
for f in sorted(os.listdir(os.path.join(ROOT, "test/FlowExec/Inputs"))):
    add("flow-schedule", repo("test/FlowExec/Inputs/" + f))
add("flow-schedule", '{"method": "none", "makespan": 0, "nodes": [],'
    ' "arcs": [], "demands": []}')
add("flow-schedule", '{"schedules": []}')
add("flow-schedule", '{"makespan": 1, "nodes": ["a", "gpu0"], "arcs": '
    '[{"index": 0, "from": 0, "to": 1, "capacity": 10}], "demands": '
    '[{"source": 0, "destination": 1, "bytes": 10, "finish": 1, "paths": '
    '[{"arcs": [0], "bytes": 10, "finish": 1, "segments": '
    '[{"start": 0, "end": 1, "rate": 10}]}]}], "timeline": [{"demand": 0, '
    '"path": 0, "chunks": [{"offset": 0, "bytes": 5}, {"offset": 5, '
    '"bytes": 5}]}]}')
add("flow-schedule", "[1, 2")

# --- offload schedules (runtime/src/train/ScheduleFile.h) ----------------
ENTRIES = ('[{"layer": 0, "phase": "forward", "prefetch": ["L0.param", '
           '"L0.act"]}, {"layer": 0, "phase": "backward", "discard": '
           '["L0.act"], "io_hidden": true}, {"layer": 0, "phase": '
           '"optimizer", "swap_out": ["L0.param"], "discard": ["L0.grad"]}]')
def offload(extra="", entries=ENTRIES, layers=1):
    return ('{"format": "sluice-offload-schedule", "version": 1, "layers": %d,'
            '\n%s"entries": %s}\n' % (layers, extra, entries))
add("offload-schedule", offload())
add("offload-schedule", offload(
    '"homes": {"param": "host", "adam_m": "device"}, "device_budget": 8192, '
    '"host_budget": 18446744073709551615, "predicted_step_io": {"device": '
    '{"read": 1, "written": 2}, "host": {"read": 3, "written": 4}}, '
    '"plan": {"param_home": "host", "seconds": 1.5e-3},\n'))
add("offload-schedule", offload(entries='[]'))
add("offload-schedule", offload(entries='[{"layer": 1, "phase": "forward"}]'))
add("offload-schedule", offload(entries='[{"layer": 0, "phase": "forward", '
                                '"prefetch": ["L9.param", "L0.bogus"]}]'))
add("offload-schedule", '{"format": "flow"}')
add("offload-schedule", '{"s": "\\u00e9\\ud83d\\ude00\\n", "n": [-0.5e-3, '
    '18446744073709551616, true, false, null]}')
add("offload-schedule", '{"format": "sluice-offload-schedule",\n  "version" 1}')
for f in sys.argv[1:]:
    with open(f, "rb") as fh:
        add("offload-schedule", fh.read())

# --- bandwidth matrices (first byte: device count) -----------------------
inputs = "test/Frontend/mlirgen/Inputs/"
for f in sorted(os.listdir(os.path.join(ROOT, inputs))):
    if f.startswith("p2p"):
        data = repo(inputs + f)
        for n in (2, 3):
            add("bandwidth-matrix", bytes([n]) + data)
add("bandwidth-matrix", bytes([4]) + repo("examples/machines/p2p.json"))
add("bandwidth-matrix", b'\x02{"unit": "TB/s", "matrix": [[0, 1e300], [0, 0]]}')

# --- access counts (bytes 0-1: items - 1, byte 2: destinations - 1) ------
def counts(items, dests, text):
    return struct.pack(">H", items - 1) + bytes([dests - 1]) + text
for f in sorted(os.listdir(os.path.join(ROOT, "test/Plan/Inputs"))):
    if f.startswith("gather-counts"):
        add("access-counts", counts(8, 2, repo("test/Plan/Inputs/" + f)))
add("access-counts", counts(3, 3, b"0,1,2,3\r\n2\t0.5 1e3 0 # c\n\n1 1 1 1\n"))

# --- graph loaders -------------------------------------------------------
tiny = repo("test/WalkCodegen/Inputs/tiny.txt")
snap_texts = [tiny, repo("test/WalkCodegen/Inputs/comments-only.txt"),
              b"0 1 0.5\n1 2 2.5\n2 0 1\n", b"0 1 3\r\n1 2 4\r2 2 5\n",
              b"0\t1\t1.5\t7\n1 0 2 8\n", b"5 4000000000\n",
              b"18446744073709551616 1\n", b"0 -1\n", b"0 1 nan\n", b""]
for i, t in enumerate(snap_texts):
    add("snap", bytes([0, 0]) + t)
    add("snap", bytes([0x1f if i % 2 else 0x0d, 1 + i % 2]) + t)
add("snap", bytes([0x08, 0]) + gz(tiny))
add("snap", bytes([0x08, 0]) + gz(tiny)[:-5])
add("snap", bytes([0x00, 0]) + gz(b"0 1\n") + gz(b"1 2\n"))
add("snap", bytes([0x00, 0]) + gz(b"0 1\n") + b"junk")

mtx_texts = [repo("test/WalkCodegen/Inputs/no-edges.mtx"),
             b"%%MatrixMarket matrix coordinate real general\n% c\n"
             b"3 3 3\n1 2 0.5\n2 3 1.5\n3 1 2\n",
             b"%%MatrixMarket matrix coordinate integer symmetric\n"
             b"4 4 3\n1 2 3\n2 3 4\n4 4 5\n",
             b"%%MatrixMarket matrix coordinate pattern general\n"
             b"3 3 2\n1 2\n2 3\n",
             b"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 0.5 9\n",
             b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
             b"%%matrixmarket MATRIX Coordinate Pattern Symmetric\n2 2 1\n2 1\n",
             b"%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n",
             b"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n",
             b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n3 1\n"]
for i, t in enumerate(mtx_texts):
    add("matrix-market", bytes([0, 0]) + t)
    add("matrix-market", bytes([0x80 | (0x1f if i % 2 else 0x0c), 1 + i % 2]) + t)
add("matrix-market", bytes([0, 0]) + gz(mtx_texts[1]))


def csr(n, edges, weights=None, vlabels=None, elabels=None, originals=None,
        directed=True, id_base=0, corrupt=None):
    """A binary CSR file (runtime/src/BinaryCsr.h) with a correct CRC."""
    edges = sorted(edges)
    offsets = [0] * (n + 1)
    for u, _ in edges:
        offsets[u + 1] += 1
    for v in range(n):
        offsets[v + 1] += offsets[v]
    sections = [struct.pack("<%dQ" % (n + 1), *offsets),
                struct.pack("<%dI" % len(edges), *[v for _, v in edges]),
                None if weights is None else struct.pack("<%df" % len(weights), *weights),
                None if vlabels is None else struct.pack("<%di" % n, *vlabels),
                None if elabels is None else struct.pack("<%di" % len(edges), *elabels),
                None if originals is None else struct.pack("<%dQ" % n, *originals)]
    flags = 1 if directed else 0
    for s, bit in ((2, 2), (3, 4), (4, 8), (5, 16)):
        if sections[s] is not None:
            flags |= bit
    body = b""
    at = []
    cursor = 128
    for s in sections:
        if s is None:
            at.append(0)
            continue
        start = (cursor + 63) // 64 * 64
        body += b"\0" * (start - cursor) + s
        at.append(start)
        cursor = start + len(s)
    header = bytearray(128)
    header[0:8] = b"SLUICSR\0"
    struct.pack_into("<IIQQQQ", header, 8, 1, 128, flags, n, len(edges), cursor)
    struct.pack_into("<6Q", header, 48, *at)
    struct.pack_into("<I", header, 96, id_base)
    if corrupt:
        corrupt(header)
    struct.pack_into("<I", header, 100, zlib.crc32(bytes(header)))
    return bytes(header) + body

csrs = [csr(3, [(0, 1), (1, 2), (2, 0)]),
        csr(4, [(0, 1), (0, 1), (1, 1), (3, 2)], weights=[1, 2, 0.5, 4],
            vlabels=[0, -1, 2, 3], elabels=[1, 2, 3, 0]),
        csr(3, [(0, 1), (1, 0)], originals=[5, 9, 200], directed=False,
            id_base=1),
        csr(0, []),
        csr(2, [(0, 1)], corrupt=lambda h: struct.pack_into("<Q", h, 24, 5)),
        csr(2, [(0, 1)], corrupt=lambda h: struct.pack_into("<Q", h, 40, 1 << 40))]
for i, c in enumerate(csrs):
    add("binary-csr", bytes([0]) + c)
    add("binary-csr", bytes([1 | (0x80 if i % 2 else 0) | (i % 4) << 1]) + c)
add("binary-csr", bytes([0]) + csrs[0][:100])
add("binary-csr", bytes([1]) + b"SLUICSR\0" + b"\xff" * 200)

vlabels = [repo("test/WalkCodegen/Inputs/tiny.labels")[:200],
           b"0 1\n1 2\n2 3\n3 0\n5 1\n7 2\n", b"1 1\n2 2\n8 3\n",
           b"0 1\n0 2\n", b"4 1\n", b"0 -1\n", b"0 2147483648\n", b"x 1\n",
           b"0\n", b"0 1 2\n", b"# only a comment\n"]
for i, t in enumerate(vlabels):
    for flags in (0, 1, 2, 3):
        add("vertex-labels", bytes([flags | (i % 3) << 2]) + t)
add("vertex-labels", bytes([0]) + gz(vlabels[1]))

elabels = [b"0 1 1\n1 2 2\n2 0 3\n2 2 4\n5 3 5\n7 0 6\n",
           b"1 2 1\n2 3 2\n3 1 3\n8 1 4\n", b"0 1 1\n0 1 2\n", b"1 0 1\n",
           b"3 5 1\n", b"0 1 -1\n", b"0 1\n", b"0\n", b"0 1 2 3\n",
           b"0 0 1\n"]
for i, t in enumerate(elabels):
    for flags in (0, 1, 2, 3):
        add("edge-labels", bytes([flags | (i % 3) << 2]) + t)
add("edge-labels", bytes([0]) + gz(elabels[0]))

# --- NumPy edge files (runtime/src/NpyGraph.h): numpy-written .npy (C and
# Fortran order, int32/int64, versions 1 and 2) and .npz (stored and
# deflated, with weights), then broken ones.
try:
    import io
    import numpy as np

    def npy(array, version=None):
        b = io.BytesIO()
        if version:
            np.lib.format.write_array(b, array, version=version)
        else:
            np.save(b, array)
        return b.getvalue()

    def npz(compressed=False, **arrays):
        b = io.BytesIO()
        (np.savez_compressed if compressed else np.savez)(b, **arrays)
        return b.getvalue()

    edges = np.array([[0, 1], [1, 2], [2, 0], [2, 2], [7, 1]])
    npys = [npy(edges.astype("<i8")), npy(edges.astype("<i4")),
            npy(np.asfortranarray(edges.astype("<i4"))),
            npy(edges.astype("<i8"), (2, 0)), npy(edges.astype("<f8")),
            npy(edges.T.copy()), npy(np.array([[-1, 0]]))]
    for i, t in enumerate(npys):
        add("numpy-graph", bytes([0 | (i % 8) << 3]) + t)
        add("numpy-graph", bytes([2]) + t[:len(t) - 5])
    src, dst = edges[:, 0], edges[:, 1]
    w = np.array([0.5, 1, 2, 3, 4])
    npzs = [npz(src=src, dst=dst), npz(True, src=src, dst=dst, weight=w),
            npz(src=src.astype("<i4"), dst=dst, weight=w.astype("<f4")),
            npz(True, src=src, dst=dst[:4]), npz(src=src),
            npz(src=src, dst=dst, weight=-w)]
    for i, t in enumerate(npzs):
        add("numpy-graph", bytes([1 | 4 | (i % 8) << 3]) + t)
        add("numpy-graph", bytes([3]) + t[:len(t) - 40])
except ImportError:
    print("numpy missing: no numpy-graph seeds", file=sys.stderr)
