#!/usr/bin/env python3
"""The GNN plan against the run (bench/RESULTS.md, "GNN plan against the
run"): for each (program, job), `sluicec --emit=plan --format=json` and
`sluicec --run -o`, then the predicted and measured epoch (median and
fastest of the epochs after the first), trainer compute per epoch, input
rows and edges per batch and, out of core, the rows and bytes read per epoch.

  python3 bench/gnn/plan-check.py build/bin/sluicec \\
      bench/gnn/email-dev-vm.sluice:departments \\
      bench/gnn/ooc-dev-vm.sluice:inmem bench/gnn/ooc-dev-vm.sluice:ooc
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    sluicec, jobs = sys.argv[1], sys.argv[2:]
    print("| job | predicted epoch (ms) | measured median (ms) | measured fastest "
          "(ms) | predicted / fastest | bound | trainer per epoch, predicted / "
          "measured median (ms) | input rows per batch, predicted / measured | "
          "edges per batch, predicted / measured | drive reads per epoch, "
          "predicted / measured (MiB) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for spec in jobs:
        path, job = spec.split(":")
        plan = json.loads(subprocess.run(
            [sluicec, "--emit=plan", "--format=json", "--job=" + job, path],
            check=True, capture_output=True, text=True).stdout)["gnn_plans"][0]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run.json")
            subprocess.run([sluicec, "--run", "--job=" + job, path, "-o", out],
                           check=True, capture_output=True)
            run = json.load(open(out))
        epochs = run["epochs"][1:]
        seconds = [e["seconds"] for e in epochs]
        batches = epochs[0]["batches"]
        rows = statistics.mean(e["sampled_vertices"] for e in epochs) / batches
        edges = statistics.mean(e["sampled_edges"] for e in epochs) / batches
        trainer = statistics.median(e["compute_seconds"] for e in epochs)
        per = plan["per_epoch_seconds"]
        predicted_trainer = per["compute"] + per["optimizer"]
        hops = plan["batch_hops"]
        reads = "-"
        if run["feature_store"]["file_bytes"]:
            measured = run["feature_store"]["file_bytes"] / len(run["epochs"])
            reads = "%.1f / %.1f" % (plan["nvme_reads"]["bytes_per_epoch"] /
                                     2**20, measured / 2**20)
        print("| %s | %.1f | %.1f | %.1f | %.2f | %s | %.1f / %.1f | %.0f / "
              "%.0f | %.0f / %.0f | %s |" % (
                  job, 1e3 * plan["epoch_seconds"],
                  1e3 * statistics.median(seconds), 1e3 * min(seconds),
                  plan["epoch_seconds"] / min(seconds), plan["bound"],
                  1e3 * predicted_trainer, 1e3 * trainer,
                  plan["input_rows_per_batch"], rows,
                  sum(h["edges"] for h in hops), edges, reads))


if __name__ == "__main__":
    main()
