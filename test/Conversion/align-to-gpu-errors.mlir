// RUN: sluice-opt %s -split-input-file -align-to-gpu -verify-diagnostics

// The kernels' gpu.module needs its name.

// expected-error @below {{align-to-gpu: the symbol 'sluice_aligns' is taken}}
module {
  llvm.func @sluice_aligns()
  seq.align @extend query "q.fa" target "t.fa" match 2 mismatch 4
      gap_open 4 gap_extend 2 band 100 zdrop 400 threads 0 output ""
}
