"""Checks the DisDP plan of Inputs/disdp-star.sluice (JSON) by hand.

Star: four GPUs on 100 Gb/s links (B = 12.5 GB/s) to one reducing switch, a
parameter server on 200 Gb/s, no host CPUs. GPT: L 8, h 2048, s 1024, V
50257, tied embeddings: N = L (12 h^2 + 13 h) + V h + s h + 2 h parameters,
2 bytes each, split evenly over the layers (M = 2 N / L bytes per layer).
Alpha-beta at 0.85 of the links: a ring all-gather or reduce-scatter of M
over 4 GPUs moves 3/4 M through each GPU's link; in the network each GPU
receives (sends) M once and the parameter server sends (receives) M once
over its twice faster link. The parameter server updates N / L parameters
per layer at its memory bandwidth x 0.15 / 28 B; ZeRO-3's GPUs read and
write 16 B of each of their N / (4 L) parameters at 2039 GB/s.
Iterations (m = 8 / 4 = 2 micro-batches of one sequence): ZeRO-3 is the sum
m L (2 AG + F + B + RS) + L step; DisDP here is network- and PS-bound
(F, B < a, r <= a < u): the gathers stream back to back, the updates start
after the last micro-batch's first backward reduce-scatter and queue:
((2 m - 1) L + 1) a + B + r + L u.
Forward compute against the textbook count (24 s h^2 + 4 s^2 h per layer
and 2 s h V for the logits, at 312 TFLOPS x 0.75): at least that and at
most 1.5x (the roofline also charges the attention scores at half the
efficiency and element-wise work at the memory bandwidth: 1.29x here).
"""
import json
import sys

plan = json.load(open(sys.argv[1]))["dis"]
L, h, s, V = 8, 2048, 1024, 50257
N = L * (12 * h * h + 13 * h) + V * h + s * h + 2 * h
M, B, eff = 2 * N / L, 12.5e9, 0.85


def near(got, want, tol=1e-6):
    assert abs(got - want) <= tol * abs(want), (got, want)


assert plan["parameters"] == N, (plan["parameters"], N)
assert plan["gpus"] == 4 and plan["micro_batches"] == 2, plan
lay = plan["per_layer"]
near(lay["ring_all_gather"], 0.75 * M / B / eff)
near(lay["ring_reduce_scatter"], 0.75 * M / B / eff)
near(lay["net_all_gather"], max(M / B, M / 25e9) / eff)
near(lay["net_reduce_scatter"], max(M / B, M / 25e9) / eff)
near(lay["ps_update"], (N / L) / (400e9 * 0.15 / 28))
near(lay["zero3_optimizer"], 32 * (N / L) / 4 / 2039e9)
assert lay["param_fetch"] == 0 and not plan["zero3_offload_optimizer"]
f, b = lay["forward"], lay["backward"]
textbook = (L * (24 * s * h * h + 4 * s * s * h) + 2 * s * h * V) / (312e12 * 0.75)
assert textbook <= f * L <= 1.5 * textbook, (f * L, textbook)
m = plan["micro_batches"]
ag, rs, opt = lay["ring_all_gather"], lay["ring_reduce_scatter"], lay["zero3_optimizer"]
near(plan["zero3"]["iteration"], m * L * (2 * ag + f + b + rs) + L * opt)
a, r, u = lay["net_all_gather"], lay["net_reduce_scatter"], lay["ps_update"]
assert f < a and b < a and r <= a < u, (f, b, a, r, u)
near(plan["disdp"]["iteration"], ((2 * m - 1) * L + 1) * a + b + r + L * u)
near(plan["speedup"], plan["zero3"]["iteration"] / plan["disdp"]["iteration"])
print("disdp-star ok: speedup %.3f" % plan["speedup"])
