"""Checks a train job's Perfetto trace (sluicec --emit=plan --format=trace)
against its plan (--format=json): one process per job, four lanes per
shown GPU, 2 m v forward/backward events and one optimizer step per
compute lane, sends only where a neighbouring stage exists, no two events
overlapping on one lane, and the simulated iteration within 5% of the
model's prediction.

    check-train-trace.py TRACE.json PLAN.json
"""
import collections
import json
import re
import sys

trace = json.load(open(sys.argv[1]))
plans = json.load(open(sys.argv[2]))
events = trace["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in events
         if e["name"] == "process_name"}
assert len(procs) == len(plans), (procs, list(plans))
for pid, name in procs.items():
    job = re.match(r"job (\S+):", name).group(1)
    plan = plans[job]
    tp, pp, dp = plan["tp"], plan["pp"], plan["dp"]
    m, v = plan["micro_batches"], plan["virtual_stages"]
    sim, model = map(float, re.search(
        r"simulated ([0-9.]+) s; model ([0-9.]+) s", name).groups())
    assert abs(sim - model) <= 0.05 * model, (sim, model)
    assert abs(model - plan["iteration_time_s"]) <= 1e-4 * model
    shown = dp if tp * pp * dp <= 64 else 1
    lanes = {e["tid"]: e["args"]["name"] for e in events
             if e["pid"] == pid and e["name"] == "thread_name"}
    assert len(lanes) == 4 * tp * pp * shown, len(lanes)
    x = [e for e in events if e["pid"] == pid and e["ph"] == "X"]
    by = collections.defaultdict(list)
    for e in x:
        by[e["tid"]].append(e)
    for tid, name in lanes.items():
        stage = int(re.match(r"stage (\d+) ", name).group(1))
        evs = sorted(by[tid], key=lambda e: e["ts"])
        for a, b in zip(evs, evs[1:]):
            assert b["ts"] >= a["ts"] + a["dur"] - 1e-3, (name, a, b)
        kinds = collections.Counter(e["name"].split(" ")[0] for e in evs)
        lane = tid % 4
        if lane == 0:
            assert kinds["F"] == m * v and kinds["B"] == m * v, (name, kinds)
            assert kinds["optimizer"] == 1
        elif lane == 1:  # to the next stage (chunk boundaries wrap around)
            want = 0 if pp == 1 else m * v - (m if stage == pp - 1 else 0)
            assert kinds["act"] == want, (name, kinds, want)
        elif lane == 2:
            want = 0 if pp == 1 else m * v - (m if stage == 0 else 0)
            assert kinds["grad"] == want, (name, kinds, want)
        else:
            assert kinds["gradient"] == (1 if dp > 1 else 0), (name, kinds)
        assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in evs)
    print(f"job {job}: tp {tp} pp {pp} dp {dp} m {m} v {v}: "
          f"{len(lanes) // 4} gpus traced, {len(x)} events OK")
