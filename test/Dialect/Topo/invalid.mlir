// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// An unknown unit.
topo.topology @m {
  // expected-error@+1 {{unknown unit 'GiBs'}}
  topo.device @gpu kind(gpu) props {memory = #topo.q<80 GiBs>}
}

// -----

// A quantity without a number.
topo.topology @m {
  // expected-error@+1 {{expected a number at the start of a quantity, got 'GiB'}}
  topo.device @gpu kind(gpu) props {memory = #topo.q<GiB>}
}

// -----

// A quantity without a unit.
topo.topology @m {
  // expected-error@+1 {{expected a unit after 80}}
  topo.device @gpu kind(gpu) props {memory = #topo.q<80>}
}

// -----

// A number that does not fit a double.
topo.topology @m {
  // expected-error@+1 {{number 1e999 is out of range}}
  topo.device @gpu kind(gpu) props {memory = #topo.q<1e999 B>}
}

// -----

// Quantities are untyped.
// expected-error@+1 {{a quantity has no type}}
func.func private @f() attributes {q = #topo.q<1 B> : i32}

// -----

// An attribute the dialect does not define.
// expected-error@+1 {{unknown topo attribute 'bogus'}}
func.func private @f() attributes {q = #topo.bogus<1>}

// -----

// An empty endpoint segment name.
// expected-error@+1 {{endpoint segment names must not be empty}}
func.func private @f() attributes {ep = #topo.ep<"">}

// -----

topo.topology @m {
  topo.device @a kind(cpu)
  topo.device @b kind(cpu)
  // expected-error@+1 {{invalid name 'a.b' in an endpoint; separate segments with '::'}}
  topo.link a.b -> b {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @m {
  topo.device @a kind(cpu)
  // expected-error@+1 {{expected a device or instance name}}
  topo.link [0] -> a {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @m {
  // expected-error@+1 {{unknown device kind 'tpu'; expected one of gpu, cpu, nvme, nic, smartnic, switch, csd}}
  topo.device @t kind(tpu)
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op count must be at least 1, got 0}}
  topo.device @gpu kind(gpu) count 0
}

// -----

topo.topology @node {
}
topo.topology @m {
  // expected-error@+1 {{'topo.instance' op count must be at least 1, got -2}}
  topo.instance @server of @node count -2
}

// -----

topo.topology @m flat {
  // expected-error@+1 {{'topo.device' op a device in a flat topology cannot be an array}}
  topo.device @gpu kind(gpu) count 8
}

// -----

topo.topology @node {
}
topo.topology @m flat {
  // expected-error@+1 {{'topo.instance' op a flat topology cannot contain instances}}
  topo.instance @server of @node
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op device name 'server.gpu' may only contain letters, digits and '_'}}
  topo.device @"server.gpu" kind(gpu)
}

// -----

topo.topology @node {
}
topo.topology @m {
  // expected-error@+1 {{'topo.instance' op instance name 'a-b' may only contain letters, digits and '_'}}
  topo.instance @"a-b" of @node
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op unknown property 'memroy' for a gpu device; expected one of memory, memory_bandwidth, compute, sms, model, price, power}}
  topo.device @gpu kind(gpu) props {memroy = #topo.q<80 GiB>}
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op property 'memory' of a gpu device expects bytes, got 2.5 GB/s (bandwidth)}}
  topo.device @gpu kind(gpu) props {memory = #topo.q<2.5 GB/s>}
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op property 'memory' of a gpu device expects bytes, got string}}
  topo.device @gpu kind(gpu) props {memory = "80 GiB"}
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op property 'memory' of a gpu device expects bytes, got a number without a unit}}
  topo.device @gpu kind(gpu) props {memory = 80.0}
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op property 'sms' of a gpu device expects integer, got bool}}
  topo.device @gpu kind(gpu) props {sms = true}
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op property 'model' of a gpu device expects string, got integer}}
  topo.device @gpu kind(gpu) props {model = 100}
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op property 'rdma' of a nic device expects bool, got integer}}
  topo.device @nic kind(nic) props {rdma = 1}
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op property 'ports' of a switch device expects integer, got an attribute that is not a property value}}
  topo.device @sw kind(switch) props {ports = [64]}
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op property 'memory' of a gpu device must be positive, got 0 GiB}}
  topo.device @gpu kind(gpu) props {memory = #topo.q<0 GiB>}
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op property 'frequency' of a cpu device must be positive, got -2.5 GHz}}
  topo.device @cpu kind(cpu) props {frequency = #topo.q<-2.5 GHz>}
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.device' op property 'sms' of a gpu device must be positive, got -4}}
  topo.device @gpu kind(gpu) props {sms = -4}
}

// -----

topo.topology @m {
  topo.device @a kind(cpu)
  topo.device @b kind(cpu)
  // expected-error@+1 {{'topo.link' op unknown link property 'width'; expected one of bandwidth, latency, type}}
  topo.link a -> b {bandwidth = #topo.q<1 GB/s>, width = 16}
}

// -----

topo.topology @m {
  topo.device @a kind(cpu)
  topo.device @b kind(cpu)
  // expected-error@+1 {{'topo.link' op link requires a bandwidth property}}
  topo.link a -> b {latency = #topo.q<1 us>}
}

// -----

topo.topology @m {
  topo.device @a kind(cpu)
  topo.device @b kind(cpu)
  // expected-error@+1 {{'topo.link' op link property 'bandwidth' expects bandwidth, got 25 GB (bytes)}}
  topo.link a -> b {bandwidth = #topo.q<25 GB>}
}

// -----

topo.topology @m {
  topo.device @a kind(cpu)
  topo.device @b kind(cpu)
  // expected-error@+1 {{'topo.link' op link property 'bandwidth' must be positive, got 0 GB/s}}
  topo.link a <-> b {bandwidth = #topo.q<0 GB/s>}
}

// -----

topo.topology @m {
  topo.device @a kind(cpu)
  topo.device @b kind(cpu)
  // expected-error@+1 {{'topo.link' op link property 'latency' must be non-negative, got -1 us}}
  topo.link a <-> b {bandwidth = #topo.q<1 GB/s>, latency = #topo.q<-1 us>}
}

// -----

topo.topology @m {
  topo.device @a kind(cpu)
  topo.device @b kind(cpu)
  // expected-error@+1 {{'topo.link' op link property 'type' expects string, got integer}}
  topo.link a <-> b {bandwidth = #topo.q<1 GB/s>, type = 4}
}

// -----

topo.topology @m {
  topo.device @gpu kind(gpu) count 2
  // expected-error@+1 {{'topo.link' op link connects gpu[0] to itself}}
  topo.link gpu[0] <-> gpu[0] {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @m {
  topo.device @gpu kind(gpu) count 2
  topo.link gpu[0] <-> gpu[1] {bandwidth = #topo.q<1 GB/s>}
  // expected-error@+1 {{'topo.override' op override connects gpu[1] to itself}}
  topo.override gpu[1] -> gpu[1] {bandwidth = #topo.q<2 GB/s>}
}

// -----

topo.topology @m {
  topo.device @gpu kind(gpu) count 2
  topo.link gpu[0] <-> gpu[1] {bandwidth = #topo.q<1 GB/s>}
  // expected-error@+1 {{'topo.override' op override must set at least one property}}
  topo.override gpu[0] <-> gpu[1] {}
}

// -----

topo.topology @m {
  topo.device @gpu kind(gpu) count 2
  topo.link gpu[0] <-> gpu[1] {bandwidth = #topo.q<1 GB/s>}
  // expected-error@+1 {{'topo.override' op unknown link property 'speed'; expected one of bandwidth, latency, type}}
  topo.override gpu[0] <-> gpu[1] {speed = #topo.q<2 GB/s>}
}

// -----

topo.topology @m {
  topo.device @gpu kind(gpu) count 8
  // expected-error@+1 {{'topo.link' op no device or instance named 'tpu' in @m}}
  topo.link gpu[0] -> tpu {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @m {
  topo.device @gpu kind(gpu) count 8
  topo.device @cpu kind(cpu)
  // expected-error@+1 {{'topo.link' op 'gpu' in @m is an array of 8; expected an index}}
  topo.link cpu -> gpu {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @m {
  topo.device @gpu kind(gpu) count 8
  topo.device @cpu kind(cpu)
  // expected-error@+1 {{'topo.link' op 'cpu' in @m is not an array; unexpected index 0}}
  topo.link cpu[0] -> gpu[0] {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @m {
  topo.device @gpu kind(gpu) count 8
  topo.device @cpu kind(cpu)
  // expected-error@+1 {{'topo.link' op index 8 out of range for gpu[8]}}
  topo.link cpu -> gpu[8] {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @m {
  topo.device @gpu kind(gpu) count 8
  topo.device @cpu kind(cpu)
  // expected-error@+1 {{'topo.link' op index -1 out of range for gpu[8]}}
  topo.link cpu -> gpu[-1] {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @m {
  topo.device @gpu kind(gpu) count 8
  topo.device @cpu kind(cpu)
  // expected-error@+1 {{'topo.link' op 'cpu' in @m is a device; it has no member 'core'}}
  topo.link cpu::core -> gpu[1] {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @node {
  topo.device @gpu kind(gpu) count 4
}
topo.topology @m {
  topo.instance @server of @node count 2
  topo.device @spine kind(switch)
  // expected-error@+1 {{'topo.link' op 'server[1]' is an instance of @node, not a device}}
  topo.link server[1] -> spine {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @node {
  topo.device @gpu kind(gpu) count 4
}
topo.topology @m {
  topo.instance @server of @node count 2
  topo.device @spine kind(switch)
  // expected-error@+1 {{'topo.override' op 'server' in @m is an array of 2; expected an index}}
  topo.override server::gpu[0] -> spine {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @node {
  topo.device @gpu kind(gpu) count 4
}
topo.topology @m {
  topo.instance @server of @node count 2
  topo.device @spine kind(switch)
  // expected-error@+1 {{'topo.link' op index 4 out of range for gpu[4]}}
  topo.link server[1]::gpu[4] -> spine {bandwidth = #topo.q<1 GB/s>}
}

// -----

topo.topology @node {
  topo.device @gpu kind(gpu) count 4
}
topo.topology @m {
  topo.instance @server of @node count 2
  topo.device @spine kind(switch)
  // expected-error@+1 {{'topo.link' op no device or instance named 'nic' in @node}}
  topo.link server[0]::nic -> spine {bandwidth = #topo.q<1 GB/s>}
}

// -----

func.func private @f()
topo.topology @m {
  topo.device @spine kind(switch)
  // expected-error@+1 {{'topo.link' op 's' is an instance of @f, which is not a topology}}
  topo.link s::gpu -> spine {bandwidth = #topo.q<1 GB/s>}
  topo.instance @s of @f
}

// -----

topo.topology @m {
  // expected-error@+1 {{'topo.instance' op no topology named @nope}}
  topo.instance @s of @nope
}

// -----

func.func private @f()
topo.topology @m {
  // expected-error@+1 {{'topo.instance' op @f is not a topology}}
  topo.instance @s of @f
}

// -----

topo.topology @a {
  // expected-error@+1 {{'topo.instance' op instancing cycle: @a -> @b -> @c -> @a}}
  topo.instance @x of @b
}
topo.topology @b {
  topo.instance @y of @c count 2
}
topo.topology @c {
  topo.instance @z of @a
}

// -----

topo.topology @a {
  topo.device @cpu kind(cpu)
  // expected-error@+1 {{'topo.instance' op instancing cycle: @a -> @a}}
  topo.instance @self of @a
}

// -----

topo.topology @m {
  // expected-note@+1 {{see existing symbol definition here}}
  topo.device @gpu kind(gpu) count 8
  // expected-error@+1 {{redefinition of symbol named 'gpu'}}
  topo.device @gpu kind(cpu)
}

// -----

topo.topology @m {
  // expected-error@+1 {{'func.func' op is not allowed in a topology; expected topo.device, topo.instance, topo.link or topo.override}}
  func.func private @f()
}

// -----

topo.topology @m {
  topo.device @spine kind(switch)
  // expected-error@+1 {{'topo.link' op 'f' in @m is not a device or an instance}}
  topo.link f -> spine {bandwidth = #topo.q<1 GB/s>}
  func.func private @f()
}
