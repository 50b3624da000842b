// RUN: sluice-opt %s | sluice-opt | FileCheck %s
// model.gnn and model.gnn_train print and parse back.

// CHECK: model.gnn @sage sage layers 2 fanouts [10, 5] features 128 hidden 256 classes 47
model.gnn @sage sage layers 2 fanouts [10, 5] features 128 hidden 256 classes 47
// CHECK: model.gnn @gcn gcn layers 1 fanouts [3] features 16 hidden 8 classes 2
model.gnn @gcn gcn layers 1 fanouts [3] features 16 hidden 8 classes 2
// CHECK: model.gnn @gat gat heads 4 layers 2 fanouts [3, 3] features 16 hidden 8 classes 2
model.gnn @gat gat heads 4 layers 2 fanouts [3, 3] features 16 hidden 8 classes 2
// CHECK: model.gnn @gat1 gat layers 1 fanouts [3] features 16 hidden 7 classes 2
model.gnn @gat1 gat layers 1 fanouts [3] features 16 hidden 7 classes 2
walk.graph @g "edges.el" format edgelist undirected {labels = "labels.txt"}
// CHECK: model.gnn_train @fit @sage on @box graph @g batch 64 epochs 20 attributes {dropout = 5.000000e-01 : f64, features = "x.npy", lr = 1.000000e-02 : f64, seed = 1 : i64, threads = 2 : i64, weight_decay = 0.000000e+00 : f64}
model.gnn_train @fit @sage on @box graph @g batch 64 epochs 20 attributes {dropout = 0.5 : f64, features = "x.npy", lr = 0.01 : f64, seed = 1 : i64, threads = 2 : i64, weight_decay = 0.0 : f64}
// CHECK: model.gnn_train @tiled @sage on @box graph @g batch 64 epochs 20 attributes {dropout = 0.000000e+00 : f64, lr = 1.000000e-02 : f64, seed = 1 : i64, tile = 16 : i64, weight_decay = 0.000000e+00 : f64}
model.gnn_train @tiled @sage on @box graph @g batch 64 epochs 20 attributes {dropout = 0.0 : f64, lr = 0.01 : f64, seed = 1 : i64, tile = 16 : i64, weight_decay = 0.0 : f64}
