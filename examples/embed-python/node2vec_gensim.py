#!/usr/bin/env python3
"""node2vec from Python: Sluice's walks, gensim's Word2Vec, and node
classification on email-Eu-core's 42 departments (README.md here).

    PYTHONPATH=build/python python3 examples/embed-python/node2vec_gensim.py

1. compiles node2vec-email.sluice and runs its walk job in-process
   (program.walks: a numpy array, one row per walk, -1 padded);
2. trains skip-gram Word2Vec (gensim) on the walks as sentences;
3. fits a multinomial logistic regression (numpy, L2) on the embeddings of
   half the labelled vertices and reports the accuracy on the other half,
   next to the majority-class baseline.
"""

import argparse
import os
import sys
import time

import numpy as np

import sluice

HERE = os.path.dirname(os.path.abspath(__file__))
LABELS = os.path.join(HERE, "..", "data", "email-Eu-core-department-labels.txt")


def read_labels(path):
    pairs = np.loadtxt(path, dtype=np.int64, ndmin=2)
    return dict(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist()))


def embed(walks, dim, window, epochs, seed, workers):
    from gensim.models import Word2Vec
    sentences = [[str(v) for v in row[row >= 0]] for row in walks]
    model = Word2Vec(sentences, vector_size=dim, window=window, min_count=1,
                     sg=1, negative=5, epochs=epochs, seed=seed,
                     workers=workers)
    return model.wv


def softmax_regression(x, y, classes, l2=1e-3, steps=500, rate=0.5):
    """Full-batch gradient descent on the mean cross-entropy + l2 |W|^2."""
    n, d = x.shape
    w = np.zeros((d, classes))
    b = np.zeros(classes)
    onehot = np.eye(classes)[y]
    for _ in range(steps):
        z = x @ w + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) / n
        w -= rate * (x.T @ g + 2 * l2 * w)
        b -= rate * g.sum(axis=0)
    return w, b


def classify(vectors, labels, seed):
    ids = sorted(v for v in labels if str(v) in vectors)
    x = np.stack([vectors[str(v)] for v in ids])
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-12)
    y = np.array([labels[v] for v in ids])
    order = np.random.default_rng(seed).permutation(len(ids))
    train, test = order[: len(ids) // 2], order[len(ids) // 2:]
    classes = int(y.max()) + 1
    w, b = softmax_regression(x[train], y[train], classes)
    predicted = np.argmax(x[test] @ w + b, axis=1)
    accuracy = float(np.mean(predicted == y[test]))
    majority = np.bincount(y[train], minlength=classes).argmax()
    baseline = float(np.mean(y[test] == majority))
    return accuracy, baseline, len(train), len(test)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--program",
                        default=os.path.join(HERE, "node2vec-email.sluice"))
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--window", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    program = sluice.compile(args.program)
    walks, stats = program.walks(threads=args.threads)
    t1 = time.perf_counter()
    print(f"walks: {walks.shape[0]} x {walks.shape[1]} "
          f"({stats['steps']} steps, {stats['seconds']:.3f} s walking, "
          f"{t1 - t0:.2f} s with compiling and loading)")
    vectors = embed(walks, args.dim, args.window, args.epochs, args.seed,
                    workers=args.threads or os.cpu_count())
    t2 = time.perf_counter()
    print(f"word2vec: {len(vectors)} vertices, {args.dim} dimensions, "
          f"{t2 - t1:.2f} s")
    accuracy, baseline, train, test = classify(vectors, read_labels(LABELS),
                                               args.seed)
    print(f"departments: accuracy {accuracy:.3f} on {test} test vertices "
          f"(trained on {train}); majority class {baseline:.3f}")
    return accuracy, baseline


if __name__ == "__main__":
    try:
        main()
    except sluice.CompileError as e:
        sys.exit(f"error: {e}")
