#!/usr/bin/env python3
"""Generates the example's FASTA files: reads with known mutations.

Each target is a random sequence; its query is the target with substitutions
(--sub per base), insertions and deletions of 1 to 4 bases (--indel per base,
half each), and every fifth query ends in --junk unrelated bases (a chimera:
the Z-drop stops its alignment). The same --seed gives the same files.

  python3 gen_reads.py --pairs 32 --length 1000 --seed 7 \
      --queries queries.fa --targets targets.fa
"""
import argparse
import random


def mutate(target, rng, sub, indel, junk):
    read = []
    i = 0
    while i < len(target):
        if rng.random() < indel / 2:  # deletion
            i += rng.randint(1, 4)
            continue
        c = target[i]
        if rng.random() < sub:
            c = rng.choice([b for b in "ACGT" if b != c])
        read.append(c)
        if rng.random() < indel / 2:  # insertion
            read.extend(rng.choice("ACGT") for _ in range(rng.randint(1, 4)))
        i += 1
    read.extend(rng.choice("ACGT") for _ in range(junk))
    return "".join(read)


def write_fasta(path, records):
    with open(path, "w") as f:
        for name, seq in records:
            f.write(">" + name + "\n")
            for k in range(0, len(seq), 70):
                f.write(seq[k:k + 70] + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--pairs", type=int, default=32)
    p.add_argument("--length", type=int, default=1000)
    p.add_argument("--sub", type=float, default=0.03)
    p.add_argument("--indel", type=float, default=0.01)
    p.add_argument("--junk", type=int, default=150)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--queries", default="queries.fa")
    p.add_argument("--targets", default="targets.fa")
    a = p.parse_args()
    rng = random.Random(a.seed)
    queries, targets = [], []
    for k in range(a.pairs):
        n = rng.randint(a.length * 4 // 5, a.length * 6 // 5)
        target = "".join(rng.choice("ACGT") for _ in range(n))
        junk = a.junk if k % 5 == 4 else 0
        queries.append(("read%d" % (k + 1), mutate(target, rng, a.sub, a.indel, junk)))
        targets.append(("ref%d" % (k + 1), target))
    write_fasta(a.queries, queries)
    write_fasta(a.targets, targets)


if __name__ == "__main__":
    main()
