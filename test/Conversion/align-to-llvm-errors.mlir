// RUN: sluice-opt %s -split-input-file -align-to-llvm -verify-diagnostics

// A job's function needs its name.

module {
  llvm.func @sluice_align_extend_pair()
  // expected-error @below {{align-to-llvm: the symbol 'sluice_align_extend_pair' is taken}}
  seq.align @extend query "q.fa" target "t.fa" match 2 mismatch 4
      gap_open 4 gap_extend 2 band 100 zdrop 400 threads 0 output ""
}
