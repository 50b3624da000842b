// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{holds no plan.demand}}
plan.demands @d on @t {
}

// -----

plan.demands @d on @t {
  // expected-error@+1 {{bytes must be finite and positive, got 0}}
  plan.demand transfer 0.0 from ["gpu[0]"] to ["gpu[1]"]
}

// -----

plan.demands @d on @t {
  // expected-error@+1 {{needs at least one source and one destination}}
  plan.demand transfer 1.0 from [] to ["gpu[1]"]
}

// -----

plan.demands @d on @t {
  // expected-error@+1 {{has an empty device pattern}}
  plan.demand transfer 1.0 from [""] to ["gpu[1]"]
}

// -----

plan.demands @d on @t {
  // expected-error@+1 {{'allreduce' runs over one group: sources and destinations must be equal}}
  plan.demand allreduce 1.0 from ["gpu[*]"] to ["gpu[0]"]
}

// -----

// expected-error@+1 {{chunk_bytes must be finite and non-negative, got -1}}
plan.demands @d on @t attributes {chunk_bytes = -1.0 : f64} {
  plan.demand transfer 1.0 from ["gpu[0]"] to ["gpu[1]"]
}

// -----

// expected-error@+1 {{makespan must be finite and non-negative, got -1}}
plan.schedule @s on @t makespan(-1.0) {
}

// -----

// expected-error@+1 {{lower_bound 3 must lie in [0, makespan = 2]}}
plan.schedule @s on @t makespan(2.0) attributes {lower_bound = 3.0 : f64} {
}

// -----

plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{ends at 2 s, after the schedule's makespan 1 s}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(0.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{rate must be finite and positive, got 0}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(0.0) window(0.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{window [1.5, 1] must satisfy 0 <= start <= end (finite)}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(1.5, 1.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{moves 1 bytes at rate 1 during [1, 2], not its 2 bytes}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(1.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{needs at least one chunk, got 0}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(0.0, 2.0) chunks(0)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{has 2000000 chunks; at most 1000000 are allowed}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(0.0, 2.0) chunks(2000000)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{path must start at 'a' and end at 'b'}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "c"] rate(1.0) window(0.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{path must name at least the source and the destination}}
  plan.transfer "a" -> "a" bytes(2.0) via ["a"] rate(1.0) window(0.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{path visits 'c' twice}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "c", "d", "c", "b"] rate(1.0) window(0.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{demand index must be non-negative}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(0.0, 2.0) chunks(1) {demand = -1 : i64}
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{ends at 3 s, after the schedule's makespan 2 s}}
  plan.compute "k" on "gpu" stream "s" window(0.0, 3.0)
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{window [3, 1] must satisfy 0 <= start <= end (finite)}}
  plan.compute "k" on "gpu" stream "s" window(3.0, 1.0)
}

// -----

// expected-error@+1 {{'plan.transfer' op expects parent op 'plan.schedule'}}
plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(0.0, 2.0) chunks(1)

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{group must hold at least two devices}}
  plan.collective "c" "all-reduce" "ring" bytes(1.0) over ["a"] window(0.0, 1.0) times {ring = 1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{times has no entry for its algorithm 'in-network'}}
  plan.collective "c" "all-reduce" "in-network" bytes(1.0) over ["a", "b"] window(0.0, 1.0) times {ring = 1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{window [0, 2] does not last the time of 'ring' (1 s)}}
  plan.collective "c" "all-reduce" "ring" bytes(1.0) over ["a", "b"] window(0.0, 2.0) times {ring = 1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{time of 'tree' must be a finite non-negative float}}
  plan.collective "c" "all-reduce" "ring" bytes(1.0) over ["a", "b"] window(0.0, 1.0) times {ring = 1.0 : f64, tree = -1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{ends at 5 s, after the schedule's makespan 4 s}}
  plan.collective "c" "all-reduce" "ring" bytes(1.0) over ["a", "b"] window(4.0, 5.0) times {ring = 1.0 : f64}
}

// -----

// expected-error@+1 {{tflops must be finite and non-negative, got -1}}
plan.schedule @s on @t makespan(1.0) attributes {tflops = -1.0 : f64} {
}

// -----

// expected-error@+1 {{data_parallel must be at least 1, got 0}}
plan.schedule @s on @t makespan(1.0) attributes {data_parallel = 0 : i64} {
}

// -----

// expected-error@+1 {{peak_bytes entry 'gpu' must be a finite non-negative float}}
plan.schedule @s on @t makespan(1.0) attributes {peak_bytes = {gpu = -2.0 : f64}} {
}

// -----

// expected-error@+1 {{link_bytes entry 'h2d' must be a finite non-negative float}}
plan.schedule @s on @t makespan(1.0) attributes {link_bytes = {h2d = 5 : i64}} {
}

// -----

plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{flops must be finite and non-negative, got -5}}
  plan.compute "k" on "gpu" stream "s" window(0.0, 1.0) {flops = -5.0 : f64}
}

// -----

plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{bytes must be finite and non-negative, got -1}}
  plan.compute "k" on "gpu" stream "s" window(0.0, 1.0) {bytes = -1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{attribute 'tensor' failed to satisfy constraint: string attribute}}
  plan.transfer "a" -> "b" bytes(1.0) via ["a", "b"] rate(1.0) window(0.0, 1.0) chunks(1) {tensor = 3 : i64}
}

// -----

// A demand set holds only plan.demand.
plan.demands @d on @t {
  plan.demand transfer 1.0 from ["gpu[0]"] to ["gpu[1]"]
  // expected-error@+1 {{'builtin.unrealized_conversion_cast' op is not allowed in plan.demands}}
  %c = builtin.unrealized_conversion_cast to i64
}

// -----

// A job on a demand that is not a gather.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op only a 'gather' and a 'blockio' have a job}}
  plan.demand transfer 8.0 from ["ssd"] to ["gpu[0]"] {job = {items = 2 : i64, item_bytes = 4.0 : f64, access_file = "a.txt"}}
}

// -----

// A gather job without item_bytes.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op a gather job needs positive 'items' (i64) and 'item_bytes' (f64)}}
  plan.demand gather 8.0 from ["ssd"] to ["gpu[0]"] {job = {items = 2 : i64, access_file = "a.txt"}}
}

// -----

// A gather job with both an access file and a graph.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op a gather job needs exactly one of 'access_file' and 'graph'}}
  plan.demand gather 8.0 from ["ssd"] to ["gpu[0]"] {job = {items = 2 : i64, item_bytes = 4.0 : f64, access_file = "a.txt", graph = "g.txt", graph_format = "snap", fanout = array<i64: 10>}}
}

// -----

// A sampled gather job without a fanout.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op a sampled gather job needs 'graph_format' and 'fanout'}}
  plan.demand gather 8.0 from ["ssd"] to ["gpu[0]"] {job = {items = 2 : i64, item_bytes = 4.0 : f64, graph = "g.txt", graph_format = "snap"}}
}

// -----

// Attached access counts on a job that reads an access file.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op only a sampled gather job (with 'graph') has 'access_counts'}}
  plan.demand gather 8.0 from ["ssd"] to ["gpu[0]"] {job = {items = 2 : i64, item_bytes = 4.0 : f64, access_file = "a.txt", access_counts = dense<1.0> : tensor<2x1xf64>}}
}

// -----

// Attached access counts with one row too few.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op 'access_counts' must be a tensor of 2 items x destinations f64 counts}}
  plan.demand gather 8.0 from ["ssd"] to ["gpu[0]"] {job = {items = 2 : i64, item_bytes = 4.0 : f64, graph = "g.txt", graph_format = "snap", fanout = array<i64: 10>, access_counts = dense<1.0> : tensor<1x1xf64>}}
}

// -----

// Two tiers but one capacity.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op 'capacity' needs one size per tier}}
  plan.demand gather 8.0 from ["host", "ssd"] to ["gpu[0]"] {job = {items = 2 : i64, item_bytes = 4.0 : f64, access_file = "a.txt", capacity = [4.0]}}
}

// -----

// Two tiers but one item count.
plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{'plan.placement' op needs one item count and one capacity per tier}}
  plan.placement "f.0" "greedy-whole" items(2 x 4.0) tiers ["host", "ssd"] counts [2.0] capacity [8.0, 8.0] stored {} makespans {}
}

// -----

// Integer tier counts.
plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{'plan.placement' op tier counts and capacities are f64}}
  plan.placement "f.0" "greedy-whole" items(2 x 4.0) tiers ["host"] counts [2 : i64] capacity [8.0] stored {} makespans {}
}

// -----

// A negative baseline makespan.
// expected-error@+1 {{'plan.schedule' op baseline makespans must be finite and non-negative}}
plan.schedule @s on @t makespan(1.0) attributes {direct_makespan = -1.0 : f64} {
}

// -----

// A schedule holds only transfers, computes, collectives and placements.
plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{'builtin.unrealized_conversion_cast' op is not allowed in plan.schedule}}
  %c = builtin.unrealized_conversion_cast to i64
}

// -----

// A negative endpoint bound.
plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{'plan.collective' op endpoint_bound must be finite and non-negative}}
  plan.collective "c" "all-reduce" "ring" bytes(1.0) over ["a", "b"] window(0.0, 1.0) times {ring = 1.0 : f64} {endpoint_bound = -1.0 : f64}
}

// -----

// More items on a tier than its capacity holds.
plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{'plan.placement' op tier 'host' holds 3 items, more than its capacity}}
  plan.placement "f.0" "greedy-whole" items(3 x 4.0) tiers ["host"] counts [3.0] capacity [8.0] stored {} makespans {}
}

// -----

// The tiers hold 3 of the 4 items.
plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{'plan.placement' op places 3 of 4 items}}
  plan.placement "f.0" "greedy-whole" items(4 x 4.0) tiers ["host", "ssd"] counts [2.0, 1.0] capacity [8.0, 8.0] stored {} makespans {}
}

// -----

// A negative chunk size on a schedule.
// expected-error@+1 {{'plan.schedule' op chunk_bytes must be finite and non-negative, got -16}}
plan.schedule @s on @t makespan(1.0) attributes {chunk_bytes = -16.0 : f64} {
}

// -----

// A transfer of no bytes.
plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{'plan.transfer' op bytes must be finite and positive, got 0}}
  plan.transfer "a" -> "b" bytes(0.0) via ["a", "b"] rate(1.0) window(0.0, 0.0) chunks(1)
}

// -----

// A collective of no bytes.
plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{'plan.collective' op bytes must be finite and positive, got 0}}
  plan.collective "c" "all-reduce" "ring" bytes(0.0) over ["a", "b"] window(0.0, 1.0) times {ring = 1.0 : f64}
}

// -----

// A blockio demand needs its job.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op a 'blockio' demand needs a job}}
  plan.demand blockio 4096.0 from ["cpu"] to ["ssd"]
}

// -----

// A blockio job names its middle tier.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op a 'blockio' job needs 'middle_tier', a non-empty array of device patterns}}
  plan.demand blockio 4096.0 from ["cpu"] to ["ssd"] {job = {compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = [], rate = 1.0 : f64}}
}

// -----

// A blockio job's rate is positive.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op a 'blockio' job needs a positive 'rate' (f64)}}
  plan.demand blockio 4096.0 from ["cpu"] to ["ssd"] {job = {compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = ["m.cpu"], rate = 0.0 : f64}}
}

// -----

// A blockio job's compressibility is in [0, 1).
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op a 'blockio' job needs 'compressibility' (f64) in [0, 1)}}
  plan.demand blockio 4096.0 from ["cpu"] to ["ssd"] {job = {compressibility = 1.0 : f64, header_cost = 0.0 : f64, middle_tier = ["m.cpu"], rate = 1.0 : f64}}
}

// -----

// A blockio job's header cost is not negative.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op a 'blockio' job needs a non-negative 'header_cost' (f64)}}
  plan.demand blockio 4096.0 from ["cpu"] to ["ssd"] {job = {compressibility = 0.5 : f64, header_cost = -1.0 : f64, middle_tier = ["m.cpu"], rate = 1.0 : f64}}
}

// -----

// A blockio job's codec is a #plan<codec>.
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op a 'blockio' job's 'codec' must be a #plan<codec>, e.g. #plan<codec lz4>}}
  plan.demand blockio 4096.0 from ["cpu"] to ["ssd"] {job = {codec = "lz4", compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = ["m.cpu"], rate = 1.0 : f64}}
}

// -----

// A blockio job's read share is in [0, 1].
plan.demands @d on @t {
  // expected-error@+1 {{'plan.demand' op a 'blockio' job's 'read_fraction' must be an f64 in [0, 1]}}
  plan.demand blockio 4096.0 from ["cpu"] to ["ssd"] {job = {compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = ["m.cpu"], rate = 1.0 : f64, read_fraction = 1.5 : f64}}
}

// -----

// A middle tier's codec comes from one of three sources.
// expected-error@+1 {{'plan.middle_tier' op cpu_source must be "measured", "given" or "fallback", got "guessed"}}
plan.middle_tier "io.0" block_bytes(4096.0) rate(1.0e6) {compressibility = 0.5 : f64, codec = #plan<codec zstd>, cpu_only = {}, cpu_decompress_rate = 5.0e9 : f64, cpu_rate = 2.5e8 : f64, cpu_ratio = 2.0 : f64, cpu_source = "guessed", header_cost = 1.0e-6 : f64, planned = {}, read_fraction = 0.0 : f64, servers = [], speedup = 1.0 : f64}

// -----

// A middle-tier server compresses on the host or on its SmartNIC.
// expected-error@+1 {{'plan.middle_tier' op every server needs a 'name', a 'site' with its 'compress_nic_share' and a 'decompress_site' with its 'decompress_nic_share' ("host" with 0, "smartnic" with 1, "split" with a share in between)}}
plan.middle_tier "io.0" block_bytes(4096.0) rate(1.0e6) {compressibility = 0.5 : f64, codec = #plan<codec zstd>, cpu_only = {}, cpu_decompress_rate = 5.0e9 : f64, cpu_rate = 2.5e8 : f64, cpu_ratio = 2.0 : f64, cpu_source = "given", header_cost = 1.0e-6 : f64, planned = {}, read_fraction = 0.0 : f64, servers = [{compress_nic_share = 0.0 : f64, decompress_nic_share = 0.0 : f64, decompress_site = "host", name = "m", site = "gpu"}], speedup = 1.0 : f64}

// -----

// ... and decompresses on the host or on its SmartNIC.
// expected-error@+1 {{'plan.middle_tier' op every server needs a 'name', a 'site' with its 'compress_nic_share' and a 'decompress_site' with its 'decompress_nic_share' ("host" with 0, "smartnic" with 1, "split" with a share in between)}}
plan.middle_tier "io.0" block_bytes(4096.0) rate(1.0e6) {compressibility = 0.5 : f64, codec = #plan<codec zstd>, cpu_only = {}, cpu_decompress_rate = 5.0e9 : f64, cpu_rate = 2.5e8 : f64, cpu_ratio = 2.0 : f64, cpu_source = "given", header_cost = 1.0e-6 : f64, planned = {}, read_fraction = 0.5 : f64, servers = [{compress_nic_share = 0.0 : f64, name = "m", site = "host"}], speedup = 1.0 : f64}

// -----

// A middle tier's codec rate is positive.
// expected-error@+1 {{'plan.middle_tier' op cpu_rate, cpu_decompress_rate, cpu_ratio and speedup must be positive, got 0}}
plan.middle_tier "io.0" block_bytes(4096.0) rate(1.0e6) {compressibility = 0.5 : f64, codec = #plan<codec zstd>, cpu_only = {}, cpu_decompress_rate = 5.0e9 : f64, cpu_rate = 0.0 : f64, cpu_ratio = 2.0 : f64, cpu_source = "given", header_cost = 1.0e-6 : f64, planned = {}, read_fraction = 0.0 : f64, servers = [], speedup = 1.0 : f64}

// -----

// A middle tier's read share is in [0, 1].
// expected-error@+1 {{'plan.middle_tier' op read_fraction must be in [0, 1], got -0.5}}
plan.middle_tier "io.0" block_bytes(4096.0) rate(1.0e6) {compressibility = 0.5 : f64, codec = #plan<codec zstd>, cpu_only = {}, cpu_decompress_rate = 5.0e9 : f64, cpu_rate = 2.5e8 : f64, cpu_ratio = 2.0 : f64, cpu_source = "given", header_cost = 1.0e-6 : f64, planned = {}, read_fraction = -0.5 : f64, servers = [], speedup = 1.0 : f64}

// -----

// A split's share lies strictly between 0 and 1.
// expected-error@+1 {{'plan.middle_tier' op every server needs a 'name', a 'site' with its 'compress_nic_share' and a 'decompress_site' with its 'decompress_nic_share' ("host" with 0, "smartnic" with 1, "split" with a share in between)}}
plan.middle_tier "io.0" block_bytes(4096.0) rate(1.0e6) {compressibility = 0.5 : f64, codec = #plan<codec zstd>, cpu_only = {}, cpu_decompress_rate = 5.0e9 : f64, cpu_rate = 2.5e8 : f64, cpu_ratio = 2.0 : f64, cpu_source = "given", header_cost = 1.0e-6 : f64, planned = {}, read_fraction = 0.0 : f64, servers = [{compress_nic_share = 1.0 : f64, decompress_nic_share = 0.0 : f64, decompress_site = "host", name = "m", site = "split"}], speedup = 1.0 : f64}
