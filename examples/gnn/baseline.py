#!/usr/bin/env python3
"""An independent baseline for examples/gnn/email-departments.sluice.

Written from scratch in numpy, on the simple undirected graph (no self
loops, no duplicates, vertices with edges only: 986 for email-Eu-core), with
S = D^-1/2 (A + I) D^-1/2 the GCN propagation matrix and one-hot vertex ids
as the features (as the example uses): GCN (Kipf & Welling, ICLR 2017),
full batch, logits = S relu(S W1 + b1) W2 + b2, hidden 64, dropout 0.5 on
the hidden layer, Adam (0.01), 200 epochs; the epoch is chosen on the
validation set. The split is a random 60/20/20 split of the labelled vertices, as Sluice makes it
(not the same permutation); the figure is the mean and standard deviation
over 10 split seeds, next to the majority class.

    /usr/bin/python3 examples/gnn/baseline.py [EDGES.gz] [LABELS]

Needs numpy and scipy (Debian's python3-numpy, python3-scipy).
"""
import gzip
import os
import sys

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
EDGES = os.path.join(HERE, "../data/email-Eu-core.txt.gz")
LABELS = os.path.join(HERE, "../data/email-Eu-core-department-labels.txt")


def load(edges_path, labels_path):
    pairs = set()
    with gzip.open(edges_path, "rt") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            u, v = map(int, line.split()[:2])
            if u != v:
                pairs.add((min(u, v), max(u, v)))
    ids = sorted({x for p in pairs for x in p})
    index = {v: i for i, v in enumerate(ids)}
    n = len(ids)
    a = np.zeros((n, n))
    for u, v in pairs:
        a[index[u], index[v]] = a[index[v], index[u]] = 1.0
    y = -np.ones(n, dtype=int)
    with open(labels_path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                v, c = map(int, line.split()[:2])
                if v in index:
                    y[index[v]] = c
    return a, y


def train_gcn(s, y, train, val, test, classes, hidden=64, epochs=200,
              lr=0.01, dropout=0.5, seed=0):
    rng = np.random.default_rng(seed)
    n = s.shape[0]
    lim1 = np.sqrt(6.0 / (n + hidden))
    lim2 = np.sqrt(6.0 / (hidden + classes))
    params = [rng.uniform(-lim1, lim1, (n, hidden)), np.zeros(hidden),
              rng.uniform(-lim2, lim2, (hidden, classes)), np.zeros(classes)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    onehot = np.eye(classes)[y[train]]
    best = (-1.0, 0.0)

    def forward(w1, b1, w2, b2, mask):
        z1 = s @ w1 + b1  # X = I: X W1 = W1
        h = np.maximum(z1, 0) * mask
        return z1, h, s @ (h @ w2) + b2

    for t in range(1, epochs + 1):
        w1, b1, w2, b2 = params
        mask = (rng.random((n, hidden)) >= dropout) / (1 - dropout)
        z1, h, z2 = forward(w1, b1, w2, b2, mask)
        z = z2[train] - z2[train].max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        dz2 = np.zeros_like(z2)
        dz2[train] = (p - onehot) / len(train)
        sdz2 = s.T @ dz2
        dw2 = h.T @ sdz2
        db2 = dz2.sum(0)
        dh = sdz2 @ w2.T * mask * (z1 > 0)
        dw1 = s.T @ dh
        db1 = dh.sum(0)
        for i, grad in enumerate((dw1, db1, dw2, db2)):
            m[i] = 0.9 * m[i] + 0.1 * grad
            v[i] = 0.999 * v[i] + 0.001 * grad * grad
            params[i] -= lr * (m[i] / (1 - 0.9 ** t)) / (
                np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
        pred = forward(*params, 1.0)[2].argmax(1)
        acc_val = (pred[val] == y[val]).mean()
        if acc_val > best[0]:
            best = (acc_val, (pred[test] == y[test]).mean())
    return best


def main():
    edges = sys.argv[1] if len(sys.argv) > 1 else EDGES
    labels = sys.argv[2] if len(sys.argv) > 2 else LABELS
    a, y = load(edges, labels)
    a_hat = a + np.eye(len(a))
    d = 1.0 / np.sqrt(a_hat.sum(1))
    s = sp.csr_matrix(a_hat * d[:, None] * d[None, :])
    labelled = np.flatnonzero(y >= 0)
    classes = y.max() + 1
    gcn, majority = [], []
    for seed in range(10):
        perm = np.random.default_rng(seed).permutation(labelled)
        n_train = round(0.6 * len(perm))
        n_val = round(0.2 * len(perm))
        train, val = perm[:n_train], perm[n_train:n_train + n_val]
        test = perm[n_train + n_val:]
        gcn.append(train_gcn(s, y, train, val, test, classes, seed=seed)[1])
        top = np.bincount(y[train], minlength=classes).argmax()
        majority.append((y[test] == top).mean())
    print(f"vertices {len(a)}, labelled {len(labelled)}, classes {classes}")
    print(f"GCN (full batch, hidden 64, dropout 0.5): test accuracy "
          f"{np.mean(gcn):.4f} +- {np.std(gcn):.4f} over 10 splits")
    print(f"majority class: test accuracy {np.mean(majority):.4f}")


if __name__ == "__main__":
    main()
