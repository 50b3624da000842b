"""What bench/gnn's scripts ask of sluicec about a GNN job: its plan
(`--emit=plan --format=json`) and a run's report (`--run -o`)."""
import json
import os
import subprocess
import tempfile


def plan_of(sluicec, path, job):
    return json.loads(subprocess.run(
        [sluicec, "--emit=plan", "--format=json", "--job=" + job, path],
        check=True, capture_output=True, text=True).stdout)["gnn_plans"][0]


def run_of(sluicec, path, job):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        subprocess.run([sluicec, "--run", "--job=" + job, path, "-o", out],
                       check=True, capture_output=True)
        with open(out) as f:
            return json.load(f)
