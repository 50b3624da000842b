// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{hidden must be positive, got 0}}
model.gnn @m sage layers 1 fanouts [3] features 4 hidden 0 classes 2

// -----

// expected-error@+1 {{has 1 fanouts for 2 layers}}
model.gnn @m sage layers 2 fanouts [3] features 4 hidden 8 classes 2

// -----

// expected-error@+1 {{fanout 0 is not in [1, 2^32 - 1]}}
model.gnn @m gcn layers 2 fanouts [3, 0] features 4 hidden 8 classes 2

// -----

// expected-error@+1 {{heads need kind gat}}
model.gnn @m sage heads 2 layers 1 fanouts [3] features 4 hidden 8 classes 2

// -----

// expected-error@+1 {{heads 0 is not in [1, 64]}}
model.gnn @m gat heads 0 layers 1 fanouts [3] features 4 hidden 8 classes 2

// -----

// expected-error@+1 {{hidden 8 is not a multiple of heads 3}}
model.gnn @m gat heads 3 layers 2 fanouts [3, 3] features 4 hidden 8 classes 2

// -----

walk.graph @g "e.el" format edgelist
model.gnn @m sage layers 1 fanouts [3] features 4 hidden 8 classes 2
// expected-error@+1 {{batch and epochs must be positive}}
model.gnn_train @j @m on @box graph @g batch 0 epochs 1 attributes {dropout = 0.0 : f64, lr = 0.01 : f64, seed = 1 : i64, weight_decay = 0.0 : f64}

// -----

walk.graph @g "e.el" format edgelist
model.gnn @m sage layers 1 fanouts [3] features 4 hidden 8 classes 2
// expected-error@+1 {{lr must be positive}}
model.gnn_train @j @m on @box graph @g batch 4 epochs 1 attributes {dropout = 0.0 : f64, lr = 0.0 : f64, seed = 1 : i64, weight_decay = 0.0 : f64}

// -----

walk.graph @g "e.el" format edgelist
model.gnn @m sage layers 1 fanouts [3] features 4 hidden 8 classes 2
// expected-error@+1 {{weight_decay must not be negative}}
model.gnn_train @j @m on @box graph @g batch 4 epochs 1 attributes {dropout = 0.0 : f64, lr = 0.01 : f64, seed = 1 : i64, weight_decay = -1.0 : f64}

// -----

walk.graph @g "e.el" format edgelist
model.gnn @m sage layers 1 fanouts [3] features 4 hidden 8 classes 2
// expected-error@+1 {{dropout must be in [0, 1)}}
model.gnn_train @j @m on @box graph @g batch 4 epochs 1 attributes {dropout = 1.0 : f64, lr = 0.01 : f64, seed = 1 : i64, weight_decay = 0.0 : f64}

// -----

walk.graph @g "e.el" format edgelist
model.gnn @m sage layers 1 fanouts [3] features 4 hidden 8 classes 2
// expected-error@+1 {{threads must be positive}}
model.gnn_train @j @m on @box graph @g batch 4 epochs 1 attributes {dropout = 0.0 : f64, lr = 0.01 : f64, seed = 1 : i64, threads = 0 : i64, weight_decay = 0.0 : f64}

// -----

walk.graph @g "e.el" format edgelist
// expected-error@+1 {{'g' does not name a model.gnn}}
model.gnn_train @j @g on @box graph @g batch 4 epochs 1 attributes {dropout = 0.0 : f64, lr = 0.01 : f64, seed = 1 : i64, weight_decay = 0.0 : f64}

// -----

model.gnn @m sage layers 1 fanouts [3] features 4 hidden 8 classes 2
// expected-error@+1 {{'nothing' does not name a graph}}
model.gnn_train @j @m on @box graph @nothing batch 4 epochs 1 attributes {dropout = 0.0 : f64, lr = 0.01 : f64, seed = 1 : i64, weight_decay = 0.0 : f64}

// -----

walk.graph @g "e.el" format edgelist
model.gnn @m sage layers 1 fanouts [3] features 4 hidden 8 classes 2
// expected-error@+1 {{feature_cache must be positive}}
model.gnn_train @j @m on @box graph @g batch 4 epochs 1 attributes {dropout = 0.0 : f64, feature_cache = 0 : i64, features = "x.npy", lr = 0.01 : f64, seed = 1 : i64, weight_decay = 0.0 : f64}

// -----

walk.graph @g "e.el" format edgelist
model.gnn @m sage layers 1 fanouts [3] features 4 hidden 8 classes 2
// expected-error@+1 {{feature_cache needs a features file}}
model.gnn_train @j @m on @box graph @g batch 4 epochs 1 attributes {dropout = 0.0 : f64, feature_cache = 4096 : i64, lr = 0.01 : f64, seed = 1 : i64, weight_decay = 0.0 : f64}

// -----

walk.graph @g "e.el" format edgelist
model.gnn @m sage layers 1 fanouts [3] features 4 hidden 8 classes 2
// expected-error@+1 {{tile must be 1 to 65536, got 0}}
model.gnn_train @j @m on @box graph @g batch 4 epochs 1 attributes {dropout = 0.0 : f64, lr = 0.01 : f64, seed = 1 : i64, tile = 0 : i64, weight_decay = 0.0 : f64}
