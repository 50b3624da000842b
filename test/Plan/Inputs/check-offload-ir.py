"""Cross-checks `sluicec --emit=plan --format=mlir` of a finetune job against
`--format=json` of the same job: the schedule's makespan, tflops, peak and
link bytes equal the JSON's figures, every JSON action appears (compute
actions as one plan.compute per device, transfer actions as plan.transfer
ops with the action's index as demand whose bytes add up to the action's)
with the same window, stream and tensor, and the transfers per link class
add up to the JSON's link_bytes.

usage: check-offload-ir.py IR JSON JOB
"""
import json
import re
import struct
import sys


def num(text):
    """An MLIR float literal: decimal or 0x hex bits of an f64."""
    text = text.strip()
    if text.startswith("0x"):
        return struct.unpack(">d", bytes.fromhex(text[2:]))[0]
    return float(text)


FLOAT = r"(0x[0-9A-Fa-f]+|[-+0-9.eE]+)"


def attrs(line):
    """Named attributes of the op's trailing dictionary (strings, floats,
    ints)."""
    m = re.search(r"\{([^{}]*)\}\s*$", line)
    out = {}
    if not m:
        return out
    for k, v in re.findall(r'(\w+) = ("[^"]*"|[^,]+)', m.group(1)):
        v = v.strip()
        if v.startswith('"'):
            out[k] = v.strip('"')
        else:
            out[k] = num(v.split(":")[0])
    return out


def dict_attr(line, name):
    m = re.search(name + r" = \{([^}]*)\}", line)
    return {k: num(v) for k, v in re.findall(r"(\w+) = " + FLOAT + r" : f64", m.group(1))}


def close(a, b, what, rel=1e-12):
    if abs(a - b) > rel * max(abs(a), abs(b), 1e-300):
        sys.exit("mismatch: %s: IR %r, JSON %r" % (what, a, b))


def main():
    ir_path, json_path, job = sys.argv[1:4]
    plan = json.load(open(json_path))[job]
    lines = open(ir_path).read().splitlines()
    start = [i for i, l in enumerate(lines)
             if l.strip().startswith("plan.schedule @%s_iteration " % job)]
    if len(start) != 1:
        sys.exit("no plan.schedule @%s_iteration" % job)
    head = lines[start[0]]
    makespan = num(re.search(r"makespan\(" + FLOAT + r"\)", head).group(1))
    close(makespan, plan["iteration_time_s"], "iteration time")
    close(num(re.search(r"tflops = " + FLOAT, head).group(1)), plan["tflops"],
          "tflops")
    for key in ("peak_bytes", "link_bytes"):
        got = dict_attr(head, key)
        if sorted(got) != sorted(plan[key]):
            sys.exit("%s keys differ: %s vs %s" % (key, sorted(got), sorted(plan[key])))
        for k in got:
            close(got[k], plan[key][k], key + "." + k)

    transfers, computes = {}, []
    for l in lines[start[0] + 1:]:
        s = l.strip()
        if s == "}":
            break
        if s.startswith("plan.transfer"):
            m = re.match(r'plan.transfer "([^"]*)" -> "([^"]*)" bytes\(' + FLOAT +
                         r'\) via \[.*?\] rate\(' + FLOAT + r'\) window\(' +
                         FLOAT + ", " + FLOAT + r"\)", s)
            a = attrs(s)
            transfers.setdefault(int(a.get("demand", 0)), []).append(
                (m.group(1), m.group(2), num(m.group(3)), num(m.group(5)),
                 num(m.group(6)), a))
        elif s.startswith("plan.compute"):
            m = re.match(r'plan.compute "([^"]*)" on "([^"]*)" stream "([^"]*)" window\(' +
                         FLOAT + ", " + FLOAT + r"\)", s)
            computes.append((m.group(1), m.group(2), m.group(3), num(m.group(4)),
                             num(m.group(5)), attrs(s)))

    compute_streams = {"GPU compute", "CPU optimizer", "CSD optimizer"}
    link_of = {"H2D": "h2d", "D2H": "d2h", "SSD read": "ssd_read",
               "SSD write": "ssd_write"}
    links = {k: 0.0 for k in link_of.values()}
    ncompute = 0
    ci = 0
    for i, act in enumerate(plan["schedule"]):
        if act["stream"] in compute_streams:
            # One op per device (a CSD update: one per drive), in order.
            flops = nbytes = 0.0
            first = ci
            while ci < len(computes) and computes[ci][2] == act["stream"] and \
                    computes[ci][3] == act["start_s"] and computes[ci][4] == act["end_s"] and \
                    (ci == first or computes[ci][0] == computes[first][0]):
                flops += computes[ci][5].get("flops", 0.0)
                nbytes += computes[ci][5].get("bytes", 0.0)
                ci += 1
            if ci == first:
                sys.exit("action %d (%s %s) has no plan.compute" % (i, act["tensor"], act["what"]))
            close(flops, act["flops"], "flops of action %d" % i, 1e-9)
            close(nbytes, act["bytes"], "bytes of action %d" % i, 1e-9)
            ncompute += ci - first
            continue
        ts = transfers.pop(i, [])
        if act["bytes"] <= 0:
            if ts:
                sys.exit("action %d moves nothing but has transfers" % i)
            continue
        if not ts:
            sys.exit("action %d (%s %s) has no plan.transfer" % (i, act["tensor"], act["what"]))
        total = 0.0
        for src, dst, b, s0, e0, a in ts:
            if a.get("stream") != act["stream"] or a.get("tensor") != act["tensor"]:
                sys.exit("action %d: stream/tensor differ" % i)
            if s0 != act["start_s"] or e0 != act["end_s"]:
                sys.exit("action %d: window differs" % i)
            total += b
        close(total, act["bytes"], "bytes of action %d" % i, 1e-9)
        links[link_of[act["stream"]]] += total
    if transfers:
        sys.exit("transfers of no action: demands %s" % sorted(transfers))
    if ci != len(computes):
        sys.exit("%d plan.compute ops of no action" % (len(computes) - ci))
    for k, v in links.items():
        close(v, plan["link_bytes"][k], "transfers on " + k, 1e-9)
    print("ok: %d actions, %d transfers, %d compute ops" % (
        len(plan["schedule"]),
        sum(1 for l in lines if l.strip().startswith("plan.transfer")), ncompute))


main()
