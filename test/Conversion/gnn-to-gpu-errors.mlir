// RUN: sluice-opt %s -split-input-file -gnn-to-gpu -verify-diagnostics

// A gat model has no GPU aggregation kernel yet.

module {
  topo.topology @box {
    topo.device @c kind(cpu)
  }
  walk.graph @cliques "g.el" format edgelist undirected {labels = "g.labels"}
  model.gnn @att gat heads 2 layers 2 fanouts [4, 4] features 16 hidden 8 classes 2
  // expected-error @below {{not supported yet: GPU aggregation kernels of gat model 'att' (job 'fit'); sage and gcn jobs have them}}
  model.gnn_train @fit @att on @box graph @cliques batch 4 epochs 20 attributes {dropout = 0.000000e+00 : f64, lr = 1.000000e-02 : f64, seed = 3 : i64, weight_decay = 0.000000e+00 : f64}
}

// -----

// The kernels' gpu.module needs its name.

// expected-error @below {{gnn-to-gpu: the symbol 'sluice_gnn' is taken}}
module {
  llvm.func @sluice_gnn()
  topo.topology @box {
    topo.device @c kind(cpu)
  }
  walk.graph @cliques "g.el" format edgelist undirected {labels = "g.labels"}
  model.gnn @sage sage layers 2 fanouts [4, 4] features 16 hidden 8 classes 2
  model.gnn_train @fit @sage on @box graph @cliques batch 4 epochs 20 attributes {dropout = 0.000000e+00 : f64, lr = 1.000000e-02 : f64, seed = 3 : i64, weight_decay = 0.000000e+00 : f64}
}
