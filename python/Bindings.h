//===- Bindings.h - Parts of the sluice._sluice extension -------*- C++ -*-===//
#ifndef SLUICE_PYTHON_BINDINGS_H
#define SLUICE_PYTHON_BINDINGS_H

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "compiler/Target/Graph/AlgoCompile.h"
#include "sluice/graph.h"

#include <memory>

namespace sluice::python {

/// sluice._sluice.Graph: a runtime graph, shared by the Python object and
/// the numpy views of its arrays.
class Graph {
public:
  explicit Graph(sluice_graph_t *g)
      : g(g, [](sluice_graph_t *p) { sluice_graph_release(p); }) {}
  explicit Graph(std::shared_ptr<sluice_graph_t> g) : g(std::move(g)) {}
  const sluice_graph_t *get() const { return g.get(); }

private:
  std::shared_ptr<sluice_graph_t> g;
};

/// sluice._sluice.Graph and sluice._sluice.Error (GraphBindings.cpp).
void bindGraphs(pybind11::module_ &m);

/// An algorithm run's outputs as numpy arrays keyed by property name, plus
/// "id": the original id of every vertex (AlgoArrays.cpp). The f64, i64
/// and bool columns are views into `result` (moved into the arrays' owner:
/// no copy); vertex-valued columns become original ids (-1: none).
pybind11::dict algorithmArrays(target::CompiledAlgorithm::Result result,
                               const sluice_graph_t *graph);

} // namespace sluice::python

#endif // SLUICE_PYTHON_BINDINGS_H
