#!/usr/bin/env python3
"""Per-batch fixed costs of GNN training (bench/RESULTS.md, "GNN plan: the
batches' fixed costs"): runs the tiny jobs of bench/gnn/fixed-dev-vm.sluice
(the same seeds in 3 to 1229 training and 2 to 26 evaluation batches)
round by round and fits what each epoch takes beyond the plan's
prediction (medians of the epochs after the first), in two parts:

  training: the trainer's compute and waits less the plan's training
            time, by least squares over the training batches, on the jobs
            of at least 39 batches (evaluation the same in each; the
            producer hidden under compute);
  the rest: the epoch less the training part, less the plan's evaluation
            time, over the training and the evaluation batches together
            (the trainer's per-batch work outside its compute -- labels,
            the slot's release -- counts here), on every job.

b_train is the training part's slope plus the rest's slope over the
training batches; b_eval the rest's slope over the evaluation batches. The
plan's own fixed-cost terms (fixed_seconds in its JSON) are taken out of
its prediction, so the fit measures them whatever their values. Each
round's fit is printed with the load average, then the medians and ranges
over the rounds and the fit on each job's medians over the rounds.

  python3 bench/gnn/fixed-cost.py build/bin/sluicec --rounds=7
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gnn_jobs import plan_of, run_of  # noqa: E402

JOBS = ["t8", "t16", "t32", "t64", "t128", "t256", "t512", "t1024", "t2048",
        "t4096"]


def fit(xs, ys):
    """Least squares y = a + b x: (a, b)."""
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - b * mx, b


def fit2(x1s, x2s, ys):
    """Least squares y = a + b1 x1 + b2 x2: (a, b1, b2), by the normal
    equations on the centred variables."""
    m1, m2, my = (statistics.mean(v) for v in (x1s, x2s, ys))
    d1 = [x - m1 for x in x1s]
    d2 = [x - m2 for x in x2s]
    dy = [y - my for y in ys]
    s11 = sum(x * x for x in d1)
    s22 = sum(x * x for x in d2)
    s12 = sum(x * y for x, y in zip(d1, d2))
    s1y = sum(x * y for x, y in zip(d1, dy))
    s2y = sum(x * y for x, y in zip(d2, dy))
    det = s11 * s22 - s12 * s12
    b1 = (s1y * s22 - s2y * s12) / det
    b2 = (s2y * s11 - s1y * s12) / det
    return my - b1 * m1 - b2 * m2, b1, b2


def residuals(plan, run):
    """Measured less predicted per epoch (seconds), medians over the epochs
    after the first: the training batches (the trainer's compute and its
    waits for the next batch) against the plan's training time, and the
    rest of the epoch (evaluation, the trainer's per-batch work outside
    its compute and the pipeline's start and stop) against its evaluation
    time. The plan's own fixed-cost terms (fixed_seconds, when it has
    them) are taken out of its prediction, so the fit measures them
    whatever their values."""
    epochs = run["epochs"][1:] or run["epochs"]
    fixed = plan.get("fixed_seconds", {})
    train = statistics.median(e["compute_seconds"] + e["wait_seconds"]
                              for e in epochs)
    rest = statistics.median(e["seconds"] - e["compute_seconds"] -
                             e["wait_seconds"] for e in epochs)
    return (train - (plan["train_seconds"] - fixed.get("train", 0.0)),
            rest - (plan["eval_seconds"] - fixed.get("eval", 0.0)))


def fits_of(B, E, res):
    """(b_train, b_eval, a): the training part's slope over the jobs of
    at most 256 seeds a batch (their evaluation batches the same, their
    producer hidden under compute), plus the rest's slope over the
    training batches, fitted with its slope over the evaluation batches
    on every job."""
    small = [i for i, b in enumerate(B) if b >= 39]
    a1, bt = fit([B[i] for i in small], [res[i][0] for i in small])
    a2, leak, be = fit2(B, E, [r[1] for r in res])
    return bt + leak, be, a1 + a2


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sluicec")
    parser.add_argument("--program", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "fixed-dev-vm.sluice"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    plans = {j: plan_of(args.sluicec, args.program, j) for j in JOBS}
    B = [plans[j]["epoch"]["batches"] for j in JOBS]
    E = [plans[j]["epoch"]["eval_batches"] for j in JOBS]
    print("| round | load | b_train (us a training batch) | b_eval (us an "
          "evaluation batch) | a (ms an epoch) |")
    print("|" + "---|" * 5)
    fits, perJob = [], [[] for _ in JOBS]
    for r in range(1, args.rounds + 1):
        load = os.getloadavg()[0]
        res = [residuals(plans[j], run_of(args.sluicec, args.program, j))
               for j in JOBS]
        for i, x in enumerate(res):
            perJob[i].append(x)
        bt, be, a = fits_of(B, E, res)
        fits.append((bt, be, a))
        print("| %d | %.2f | %.1f | %.1f | %.2f |" % (
            r, load, 1e6 * bt, 1e6 * be, 1e3 * a), flush=True)
        for j, b, e, x in zip(JOBS, B, E, res):
            print("<!-- %s: %d/%d batches, beyond the plan: training %.3f, "
                  "rest %.3f ms -->" % (j, b, e, 1e3 * x[0], 1e3 * x[1]),
                  flush=True)
    cols = list(zip(*fits))
    print("\nmedian [range] over %d rounds: b_train %.1f us [%.1f, %.1f]; "
          "b_eval %.1f us [%.1f, %.1f]; a %.2f ms" % (
              args.rounds, 1e6 * statistics.median(cols[0]),
              1e6 * min(cols[0]), 1e6 * max(cols[0]),
              1e6 * statistics.median(cols[1]), 1e6 * min(cols[1]),
              1e6 * max(cols[1]), 1e3 * statistics.median(cols[2])))
    med = [tuple(statistics.median(x[k] for x in v) for k in (0, 1))
           for v in perJob]
    bt, be, a = fits_of(B, E, med)
    print("fit on each job's medians over the rounds: b_train %.1f us, "
          "b_eval %.1f us, a %.2f ms" % (1e6 * bt, 1e6 * be, 1e3 * a))
    for j, b, e, m in zip(JOBS, B, E, med):
        print("  %s: %d training, %d evaluation batches: beyond the plan "
              "%.3f ms training, %.3f ms the rest" % (j, b, e, 1e3 * m[0],
                                                     1e3 * m[1]))


if __name__ == "__main__":
    main()
