"""Checks a one-GPU distill plan (JSON) against the textbook counts.

Forward FLOPs of a GPT layer per sequence of s tokens, width h, MLP 4h
(Narayanan et al. 2021): 24 s h^2 + 4 s^2 h. On one GPU the plan is one
stage holding every block: batch x (teacher forward + 3 x student forward)
/ (peak x 0.75). The baseline runs the teacher's prefix again for each
block: with two blocks of two teacher layers and one student layer each,
(2 + 4) teacher layers + 3 x 2 student layers. Tolerance 2% (the compiler
also counts norms, biases, softmax and the residual adds).
"""
import json
import sys

plan = json.load(open(sys.argv[1]))["kd_one"]
s, h, batch, rate = 512, 1024, 8, 100e12 * 0.75
layer = 24 * s * h * h + 4 * s * s * h
want = batch * (4 * layer + 3 * 2 * layer) / rate
want_base = batch * ((2 + 4) * layer + 3 * 2 * layer) / rate
(stage,) = plan["stages"]
got = stage["compute_s"]
assert abs(got / want - 1) < 0.02, (got, want)
assert stage["all_reduce_s"] == 0 and stage["p2p_s"] == 0, stage
assert abs(plan["baseline_time_s"] / want_base - 1) < 0.02, (plan, want_base)
assert stage["teacher_layers"] == [0, 3] and stage["student_layers"] == [0, 1]
# Memory: teacher weights (2 B), student weights + grads (2 + 2 B) and
# Adam states (12 B) per parameter (12 h^2 parameters per layer), and per
# resident sample (all 8) the student layers' stored activations
# (Korthikanti et al.: 34 s h + 5 a s^2 bytes per layer, a = 16 heads) and
# each block's teacher input and output (2 x s h x 2 B); x1.1 calibration.
states = 4 * 12 * h * h * 2 + 2 * 12 * h * h * 16
acts = 2 * (34 * s * h + 5 * 16 * s * s) + 2 * 2 * s * h * 2
want_mem = (states + batch * acts) * 1.1
assert abs(stage["memory_bytes"] / want_mem - 1) < 0.05, (stage, want_mem)
print("ok: compute %.4f s (textbook %.4f s), baseline %.4f s (%.4f s)"
      % (got, want, plan["baseline_time_s"], want_base))
