"""Checks the edge labels of a plan picture (sluicec --emit=plan --format=dot).

Every edge label must read "avg A, peak P[ each way]\\nof C[ (n links)]" with A <= C and
P <= C (within the rounding of 4 significant digits). Prints "ok: <edges>
edges" or the first offending label, and exits non-zero on a failure.
"""
import re
import sys

UNITS = {"B/s": 1, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12}
RATE = r"([0-9.e+-]+) (B/s|KB/s|MB/s|GB/s|TB/s)"
LABEL = re.compile(r"^avg " + RATE + r", peak " + RATE +
                   r"( each way)?\\nof " + RATE + r"( \([0-9]+ links\))?$")


def rate(value, unit):
    return float(value) * UNITS[unit]


def main(path):
    edges = 0
    for line in open(path):
        if " -> " not in line:
            continue
        edges += 1
        m = re.search(r'label="((?:[^"\\]|\\.)*)"', line)
        if not m:
            print("no label: " + line.strip())
            return 1
        fields = LABEL.match(m.group(1))
        if not fields:
            print("unexpected label: " + m.group(1))
            return 1
        avg = rate(*fields.group(1, 2))
        peak = rate(*fields.group(3, 4))
        cap = rate(*fields.group(6, 7))
        # Labels carry 4 significant digits.
        slack = 1 + 1e-3
        if avg > cap * slack or peak > cap * slack or avg > peak * slack:
            print("rate above capacity: " + m.group(1))
            return 1
    if edges == 0:
        print("no edges")
        return 1
    print("ok: %d edges" % edges)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
