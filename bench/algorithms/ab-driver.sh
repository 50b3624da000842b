#!/usr/bin/env bash
# Two builds of bench/algorithms/kernel-driver.c (each linked with one
# Sluice build's `sluicec -c` object and libsluicert.a), alternating: the
# warm kernel time of a change, without sluicec's compile, graph load and
# cold first run. See bench/RESULTS.md ("Small graphs: `id(v)` without a
# call").
#
#   bench/algorithms/ab-driver.sh THREADS ROUNDS GRAPH_CSR DRIVER_A DRIVER_B
#
# GRAPH_CSR is the bench's cached binary CSR (WORK_DIR/GRAPH.el.*.sluice-csr,
# written by run.sh). Each round runs A then B once, 8 kernel runs a
# process; a process's figure is the median of its 7 warm runs (the first
# is cold). Prints each side's median over the ROUNDS processes, in
# seconds.
set -euo pipefail

T=${1:?usage: ab-driver.sh THREADS ROUNDS GRAPH_CSR DRIVER_A DRIVER_B}
N=${2:?usage: ab-driver.sh THREADS ROUNDS GRAPH_CSR DRIVER_A DRIVER_B}
CSR=${3:?usage: ab-driver.sh THREADS ROUNDS GRAPH_CSR DRIVER_A DRIVER_B}
A=${4:?usage: ab-driver.sh THREADS ROUNDS GRAPH_CSR DRIVER_A DRIVER_B}
B=${5:?usage: ab-driver.sh THREADS ROUNDS GRAPH_CSR DRIVER_A DRIVER_B}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
warm() { "$1" "$CSR" "$T" 8 | awk 'NR > 1 { print $3 }' | median; }

a=() b=()
for _ in $(seq "$N"); do
  a+=("$(warm "$A")")
  b+=("$(warm "$B")")
done
echo "A $A: $(printf '%s\n' "${a[@]}" | median) s"
echo "B $B: $(printf '%s\n' "${b[@]}" | median) s"
