// RUN: sluice-opt %s | sluice-opt | FileCheck %s
// seq.align round-trips (a negative zdrop turns the Z-drop off).

// CHECK-LABEL: seq.align @map
// CHECK-SAME: query "reads.fa" target "ref.fa" match 2 mismatch 4
// CHECK-SAME: gap_open 4 gap_extend 2 band 100 zdrop 400 threads 0 output "aln.tsv"
seq.align @map query "reads.fa" target "ref.fa" match 2 mismatch 4 gap_open 4 gap_extend 2 band 100 zdrop 400 threads 0 output "aln.tsv"

// CHECK-LABEL: seq.align @nodrop
// CHECK-SAME: zdrop -1 threads 2 output ""
seq.align @nodrop query "q.fa" target "t.fa" match 1 mismatch 1 gap_open 0 gap_extend 1 band 1 zdrop -1 threads 2 output ""
