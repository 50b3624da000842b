"""Cross-checks `sluicec --emit=plan --format=mlir` and `--format=trace` of
an infer job against `--format=json` of the same job, independently of
the C++ timeline: the schedule lasts the JSON's prefill + decode time; per
stream, the busy time is layers x (prefill term + (generate - 1) x decode
term) of the JSON's per-layer terms; the transfers of each link class add
up to the schedule's link_bytes; the trace has one complete event per
action, and its per-track busy time equals the IR's.

usage: check-infer-ir.py IR TRACE JSON JOB

With IR "-" (sluice-plan-offload, which writes no IR) only the trace is
checked against the JSON (JOB is then ignored: the JSON is the plan).
"""
import collections
import json
import re
import struct
import sys


def num(text):
    text = text.strip()
    if text.startswith("0x"):
        return struct.unpack(">d", bytes.fromhex(text[2:]))[0]
    return float(text)


FLOAT = r"(0x[0-9A-Fa-f]+|[-+0-9.eE]+)"


def close(a, b, what, rel=1e-9):
    if abs(a - b) > rel * max(abs(a), abs(b)) + 1e-12:
        sys.exit("MISMATCH %s: %r vs %r" % (what, a, b))


ir_path, trace_path, json_path, job = sys.argv[1:5]
plan = json.load(open(json_path))
trace = json.load(open(trace_path))
terms = {"GPU compute": "compute_s", "CPU compute": "cpu_attention_s",
         "H2D": "h2d_s", "D2H": "d2h_s", "SSD read": "disk_read_s",
         "SSD write": "disk_write_s"}


def want_busy(stream):
    return plan["job"]["model"]["layers"] * (
        plan["prefill_per_layer"][terms[stream]] +
        (plan["job"]["generate"] - 1) * plan["decode_per_layer"][terms[stream]])


def trace_busy():
    tids = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}
    tbusy = collections.defaultdict(float)
    events, end = 0, 0.0
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            events += 1
            tbusy[tids[e["tid"]]] += e["dur"] * 1e-6
            end = max(end, (e["ts"] + e["dur"]) * 1e-6)
    return tbusy, events, end


if ir_path == "-":
    tbusy, events, end = trace_busy()
    close(end, plan["prefill_time_s"] + plan["decode_time_s"], "trace end",
          1e-6)
    for stream in terms:
        close(tbusy[stream], want_busy(stream), "trace busy " + stream, 1e-6)
    print("OK trace %d events, busy %s" % (
        events, ",".join(sorted(k for k, v in tbusy.items() if v > 0))))
    sys.exit(0)

plan = plan[job]
ir = open(ir_path).read().splitlines()

sched = [l for l in ir if "plan.schedule @" + job + "_generation" in l]
if len(sched) != 1:
    sys.exit("no schedule for " + job)
makespan = num(re.search(r"makespan\(" + FLOAT + r"\)", sched[0]).group(1))
if 'method "offload-infer"' not in sched[0]:
    sys.exit("method is not offload-infer")
total = plan["prefill_time_s"] + plan["decode_time_s"]
close(makespan, total, "makespan")

layers = plan["job"]["model"]["layers"]
steps = plan["job"]["generate"] - 1
busy = collections.defaultdict(float)
link = collections.defaultdict(float)
demands = set()
links = {"H2D": "h2d", "D2H": "d2h", "SSD read": "ssd_read",
         "SSD write": "ssd_write"}
for line in ir:
    m = re.search(r"window\(" + FLOAT + ", " + FLOAT + r"\)", line)
    if not m:
        continue
    start, end = num(m.group(1)), num(m.group(2))
    if end > makespan * (1 + 1e-9):
        sys.exit("op ends after the makespan: " + line)
    if "plan.compute" in line:
        stream = re.search(r'stream "([^"]*)"', line).group(1)
        busy[stream] += end - start
    elif "plan.transfer" in line:
        stream = re.search(r'stream = "([^"]*)"', line).group(1)
        demand = int(re.search(r"demand = (\d+)", line).group(1))
        if (stream, demand) not in demands:  # striped: one window per action
            busy[stream] += end - start
            demands.add((stream, demand))
        link[links[stream]] += num(re.search(r"bytes\(" + FLOAT, line).group(1))
for stream in terms:
    close(busy[stream], want_busy(stream), "busy " + stream)
got = dict(re.findall(r"(\w+) = " + FLOAT + " : f64",
                      re.search(r"link_bytes = \{([^}]*)\}", sched[0]).group(1)))
for k, v in link.items():
    close(v, num(got[k]), "link bytes " + k)

tbusy, events, _ = trace_busy()
for stream in terms:
    close(tbusy[stream], busy[stream], "trace busy " + stream, 1e-6)
print("OK %d actions, %d layers, %d decode steps, links %s" %
      (events, layers, steps, ",".join(sorted(k for k, v in link.items() if v > 0))))
