//===- AlgoArrays.cpp - An algorithm run's outputs as numpy arrays --------===//
//
// See Bindings.h: the columns of CompiledAlgorithm::Result handed to numpy
// without copying (one capsule owns the result and every array's base is
// it), vertex-valued columns translated to the graph's original ids.
//
//===----------------------------------------------------------------------===//
#include "python/Bindings.h"

#include <cstdint>

namespace py = pybind11;

namespace sluice::python {

py::dict algorithmArrays(target::CompiledAlgorithm::Result result,
                         const sluice_graph_t *graph) {
  const auto n = static_cast<py::ssize_t>(sluice_graph_num_vertices(graph));
  auto *owned = new target::CompiledAlgorithm::Result(std::move(result));
  py::capsule base(owned, [](void *p) {
    delete static_cast<target::CompiledAlgorithm::Result *>(p);
  });
  py::dict out;
  for (const sluice_algo_column_t &column : owned->outputs) {
    if (std::string(column.name) == "id")
      throw py::value_error("the algorithm's output 'id' has the name of the "
                            "vertex ids' array; rename the property");
    switch (column.type) {
    case SLUICE_ALGO_F64:
      out[column.name] = py::array_t<double>(
          {n}, {py::ssize_t(sizeof(double))},
          static_cast<const double *>(column.data), base);
      break;
    case SLUICE_ALGO_F32:
      out[column.name] =
          py::array_t<float>({n}, {py::ssize_t(sizeof(float))},
                             static_cast<const float *>(column.data), base);
      break;
    case SLUICE_ALGO_I64:
      out[column.name] = py::array_t<int64_t>(
          {n}, {py::ssize_t(sizeof(int64_t))},
          static_cast<const int64_t *>(column.data), base);
      break;
    case SLUICE_ALGO_BOOL:
      out[column.name] = py::array(py::dtype("bool"), {n}, {py::ssize_t(1)},
                                   column.data, base);
      break;
    case SLUICE_ALGO_VERTEX: {
      py::array_t<int64_t> ids(n);
      auto *to = ids.mutable_data();
      const auto *from = static_cast<const uint32_t *>(column.data);
      for (py::ssize_t v = 0; v < n; ++v)
        to[v] = from[v] == SLUICE_VERTEX_NONE
                    ? -1
                    : static_cast<int64_t>(
                          sluice_graph_original_id(graph, from[v]));
      out[column.name] = ids;
      break;
    }
    default:
      throw std::runtime_error(std::string("output '") + column.name +
                               "' has an unknown element type");
    }
  }
  py::array_t<int64_t> ids(n);
  auto *to = ids.mutable_data();
  for (py::ssize_t v = 0; v < n; ++v)
    to[v] = static_cast<int64_t>(
        sluice_graph_original_id(graph, static_cast<uint32_t>(v)));
  out["id"] = ids;
  return out;
}

} // namespace sluice::python
