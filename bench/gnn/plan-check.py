#!/usr/bin/env python3
"""The GNN plan against the run (bench/RESULTS.md, "GNN plan against the
run" and "GNN plan away from its fitted settings"): for each (program, job),
`sluicec --emit=plan --format=json` and `sluicec --run -o`, then the
predicted and measured epoch (median and fastest of the epochs after the
first), its training and evaluation parts, trainer compute per epoch, input
rows and edges per batch and, out of core, the cache's miss share and the
bytes read from the drive per epoch.

With --rounds=N every job runs N times (round by round, so that a burst of
load hits every job alike); the load average is printed before each round,
and a summary gives each job's fastest and median epoch over the rounds.

  python3 bench/gnn/plan-check.py build/bin/sluicec \\
      bench/gnn/email-dev-vm.sluice:departments \\
      bench/gnn/ooc-dev-vm.sluice:inmem bench/gnn/ooc-dev-vm.sluice:ooc
  python3 bench/gnn/plan-check.py build/bin/sluicec --rounds=3 \\
      bench/gnn/heldout-dev-vm.sluice:w32 bench/gnn/heldout-dev-vm.sluice:w512
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gnn_jobs import plan_of, run_of  # noqa: E402


def measure(plan, run):
    """The run's figures beside the plan's, milliseconds and counts."""
    epochs = run["epochs"][1:] or run["epochs"]
    seconds = [e["seconds"] for e in epochs]
    batches = epochs[0]["batches"]
    # Training: the trainer's compute and its waits for the next batch;
    # evaluation (validation and test, after the batches) is the rest.
    train = [e["compute_seconds"] + e["wait_seconds"] for e in epochs]
    per = plan["per_epoch_seconds"]
    store = run["feature_store"]
    m = {
        "predicted": 1e3 * plan["epoch_seconds"],
        "median": 1e3 * statistics.median(seconds),
        "fastest": 1e3 * min(seconds),
        "bound": plan["bound"],
        "train": (1e3 * plan["train_seconds"],
                  1e3 * statistics.median(train)),
        "eval": (1e3 * plan["eval_seconds"], 1e3 * statistics.median(
            [s - t for s, t in zip(seconds, train)])),
        "trainer": (1e3 * (per["compute"] + per["optimizer"]),
                    1e3 * statistics.median(e["compute_seconds"]
                                            for e in epochs)),
        "producer": (1e3 * (per["sampling"] + per["gather_memory"] +
                            per["gather_nvme"]),
                     1e3 * statistics.median(e["sample_seconds"] +
                                             e["gather_seconds"]
                                             for e in epochs)),
        "rows": (plan["input_rows_per_batch"], statistics.mean(
            e["sampled_vertices"] for e in epochs) / batches),
        "edges": (sum(h["edges"] for h in plan["batch_hops"]),
                  statistics.mean(e["sampled_edges"] for e in epochs) /
                  batches),
        "miss": None,
        "reads": None,
    }
    if store["file_bytes"]:
        hits, misses = store["cache_hits"], store["file_rows"]
        # Rows from the drives over input rows, training and evaluation
        # batches together, as the store counts them.
        nvme, epoch = plan["nvme_reads"], plan["epoch"]
        drive = (epoch["batches"] * nvme["rows_per_batch"] +
                 epoch["eval_batches"] * nvme["eval_rows_per_batch"])
        rows = (epoch["batches"] * plan["input_rows_per_batch"] +
                epoch["eval_batches"] * plan["eval_input_rows_per_batch"])
        m["miss"] = (drive / rows, misses / (hits + misses))
        m["reads"] = (plan["nvme_reads"]["bytes_per_epoch"] / 2**20,
                      store["file_bytes"] / len(run["epochs"]) / 2**20)
    return m


def pair(p, fmt="%.1f"):
    return "-" if p is None else (fmt + " / " + fmt) % p


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sluicec")
    parser.add_argument("jobs", nargs="+", metavar="PROGRAM:JOB")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    specs = [tuple(s.rsplit(":", 1)) for s in args.jobs]
    plans = {s: plan_of(args.sluicec, *s) for s in specs}
    print("| round | job | predicted epoch (ms) | measured median (ms) | "
          "measured fastest (ms) | predicted / fastest | bound (plan) | "
          "training, predicted / measured (ms) | evaluation, predicted / "
          "measured (ms) | trainer, predicted / measured (ms) | producer, "
          "predicted / measured (ms) | input rows per batch | edges per batch "
          "| cache miss share | drive reads per epoch (MiB) |")
    print("|" + "---|" * 15)
    results = {s: [] for s in specs}
    for r in range(1, args.rounds + 1):
        print("<!-- round %d: load average %s -->" %
              (r, " ".join("%.2f" % x for x in os.getloadavg())), flush=True)
        for s in specs:
            m = measure(plans[s], run_of(args.sluicec, *s))
            results[s].append(m)
            print("| %d | %s | %.1f | %.1f | %.1f | %.2f | %s | %s | %s | %s | "
                  "%s | %s | %s | %s | %s |" % (
                      r, s[1], m["predicted"], m["median"], m["fastest"],
                      m["predicted"] / m["fastest"], m["bound"],
                      pair(m["train"]), pair(m["eval"]), pair(m["trainer"]),
                      pair(m["producer"]), pair(m["rows"], "%.0f"),
                      pair(m["edges"], "%.0f"), pair(m["miss"], "%.3f"),
                      pair(m["reads"])), flush=True)
    print("<!-- after: load average %s -->" %
          " ".join("%.2f" % x for x in os.getloadavg()))
    if args.rounds < 2:
        return
    print()
    print("| job | predicted epoch (ms) | fastest of %d rounds (ms) | median "
          "of the rounds' medians (ms) | predicted / fastest | predicted / "
          "median | trainer, predicted / median (ms) | evaluation, predicted "
          "/ median (ms) |" % args.rounds)
    print("|" + "---|" * 8)
    for s in specs:
        ms = results[s]
        fastest = min(m["fastest"] for m in ms)
        median = statistics.median(m["median"] for m in ms)
        p = ms[0]["predicted"]
        print("| %s | %.1f | %.1f | %.1f | %.2f | %.2f | %.1f / %.1f | %.1f / "
              "%.1f |" % (s[1], p, fastest, median, p / fastest, p / median,
                          ms[0]["trainer"][0],
                          statistics.median(m["trainer"][1] for m in ms),
                          ms[0]["eval"][0],
                          statistics.median(m["eval"][1] for m in ms)))


if __name__ == "__main__":
    main()
