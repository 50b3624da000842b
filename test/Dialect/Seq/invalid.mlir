// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{needs a query and a target file}}
seq.align @a query "" target "t.fa" match 2 mismatch 4 gap_open 4 gap_extend 2 band 100 zdrop 400 threads 0 output ""

// -----

// expected-error@+1 {{match must be in [1, 255], got 0}}
seq.align @a query "q.fa" target "t.fa" match 0 mismatch 4 gap_open 4 gap_extend 2 band 100 zdrop 400 threads 0 output ""

// -----

// expected-error@+1 {{mismatch must be in [1, 255], got 256}}
seq.align @a query "q.fa" target "t.fa" match 2 mismatch 256 gap_open 4 gap_extend 2 band 100 zdrop 400 threads 0 output ""

// -----

// expected-error@+1 {{gap_open must be in [0, 255], got -1}}
seq.align @a query "q.fa" target "t.fa" match 2 mismatch 4 gap_open -1 gap_extend 2 band 100 zdrop 400 threads 0 output ""

// -----

// expected-error@+1 {{gap_extend must be in [1, 255], got 0}}
seq.align @a query "q.fa" target "t.fa" match 2 mismatch 4 gap_open 4 gap_extend 0 band 100 zdrop 400 threads 0 output ""

// -----

// expected-error@+1 {{band must be in [1, 1048576], got 0}}
seq.align @a query "q.fa" target "t.fa" match 2 mismatch 4 gap_open 4 gap_extend 2 band 0 zdrop 400 threads 0 output ""

// -----

// expected-error@+1 {{threads must be in [0, 65536], got -2}}
seq.align @a query "q.fa" target "t.fa" match 2 mismatch 4 gap_open 4 gap_extend 2 band 10 zdrop 400 threads -2 output ""

// -----

// expected-error@+1 {{zdrop must be at most 268435456, got 268435457}}
seq.align @a query "q.fa" target "t.fa" match 2 mismatch 4 gap_open 4 gap_extend 2 band 10 zdrop 268435457 threads 0 output ""
