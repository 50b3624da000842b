//===- GraphBindings.cpp - sluice._sluice.Graph over libsluicert ----------===//
//
// Graphs from files, from edge arrays and from CSR arrays (numpy, no
// files), with their arrays handed back to numpy as read-only views that
// keep the graph alive (no copy). Ids and sizes are checked before they
// are narrowed to the runtime's uint32 vertex ids; runtime errors become
// sluice._sluice.Error with the runtime's located message.
//
//===----------------------------------------------------------------------===//
#include "python/Bindings.h"

#include "sluice/graph.h"
#include "sluice/runtime.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace sluice::python {

namespace {

/// A runtime error: what sluice_error_format says.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void raise(const sluice_error_t &error) {
  char text[2048];
  sluice_error_format(&error, text, sizeof(text));
  throw Error(text);
}

uint32_t loadFlags(bool undirected, bool dropSelfLoops, bool deduplicate,
                   bool sumDuplicates, bool compactIds) {
  return (undirected ? uint32_t(SLUICE_GRAPH_LOAD_UNDIRECTED) : 0u) |
         (dropSelfLoops ? uint32_t(SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS) : 0u) |
         (deduplicate ? uint32_t(SLUICE_GRAPH_LOAD_DEDUPLICATE) : 0u) |
         (sumDuplicates ? uint32_t(SLUICE_GRAPH_LOAD_SUM_DUPLICATES) : 0u) |
         (compactIds ? uint32_t(SLUICE_GRAPH_LOAD_COMPACT_IDS) : 0u);
}

Graph load(const std::string &path, const std::string &format,
           bool undirected, bool dropSelfLoops, bool deduplicate,
           bool sumDuplicates, bool compactIds, bool quiet) {
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  sluice_error_t error;
  if (sluice_graph_format_from_name(format.c_str(), &o.format) !=
      SLUICE_STATUS_OK)
    throw py::value_error(
        "unknown graph format '" + format +
        "' (auto, snap, mtx, mtx-body, binary, csv, npy, npz)");
  o.flags = loadFlags(undirected, dropSelfLoops, deduplicate, sumDuplicates,
                      compactIds) |
            (quiet ? uint32_t(SLUICE_GRAPH_LOAD_QUIET) : 0u);
  sluice_graph_t *g = nullptr;
  sluice_status_t status;
  {
    py::gil_scoped_release release;
    status = sluice_graph_load(path.c_str(), &o, &g, &error);
  }
  if (status != SLUICE_STATUS_OK)
    raise(error);
  return Graph(g);
}

using IdArray = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;
using WeightArray =
    py::array_t<float, py::array::c_style | py::array::forcecast>;

/// The ids of `a` as uint32 vertex ids, each checked to be in [0, 2^32 - 1)
/// (UINT32_MAX is "no vertex") and below `limit` when it is not 0.
std::vector<uint32_t> vertexIds(const IdArray &a, const char *what,
                                uint64_t limit) {
  if (a.ndim() != 1)
    throw py::value_error(std::string(what) + " must be one-dimensional");
  std::vector<uint32_t> out(static_cast<size_t>(a.size()));
  const int64_t *p = a.data();
  for (size_t i = 0; i < out.size(); ++i) {
    if (p[i] < 0 || uint64_t(p[i]) >= UINT32_MAX ||
        (limit && uint64_t(p[i]) >= limit))
      throw py::value_error(
          std::string(what) + "[" + std::to_string(i) + "] = " +
          std::to_string(p[i]) + " is not a vertex id (0 <= id < " +
          std::to_string(limit ? limit : uint64_t(UINT32_MAX)) + ")");
    out[i] = static_cast<uint32_t>(p[i]);
  }
  return out;
}

Graph create(uint64_t numVertices, const std::vector<uint32_t> &sources,
             const std::vector<uint32_t> &targets,
             const std::optional<WeightArray> &weights, uint32_t flags) {
  if (weights && (weights->ndim() != 1 ||
                  size_t(weights->size()) != sources.size()))
    throw py::value_error("weights must be one-dimensional with one weight "
                          "per edge (" +
                          std::to_string(sources.size()) + ")");
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  sluice_status_t status;
  {
    py::gil_scoped_release release;
    status = sluice_graph_create_from_edges(
        numVertices, sources.size(), sources.data(), targets.data(),
        weights ? weights->data() : nullptr, nullptr, nullptr, flags, &g,
        &error);
  }
  if (status != SLUICE_STATUS_OK)
    raise(error);
  return Graph(g);
}

Graph fromEdges(const IdArray &src, const IdArray &dst, int64_t numVertices,
                const std::optional<WeightArray> &weights, bool undirected,
                bool dropSelfLoops, bool deduplicate, bool sumDuplicates) {
  if (src.size() != dst.size())
    throw py::value_error("src and dst have different lengths (" +
                          std::to_string(src.size()) + " and " +
                          std::to_string(dst.size()) + ")");
  if (numVertices < 0 || uint64_t(numVertices) >= UINT32_MAX)
    throw py::value_error("num_vertices must be in [0, 2^32 - 1), got " +
                          std::to_string(numVertices));
  uint64_t limit = uint64_t(numVertices);
  std::vector<uint32_t> s = vertexIds(src, "src", limit);
  std::vector<uint32_t> d = vertexIds(dst, "dst", limit);
  if (limit == 0) { // one more than the largest id
    for (uint32_t v : s)
      limit = std::max<uint64_t>(limit, uint64_t(v) + 1);
    for (uint32_t v : d)
      limit = std::max<uint64_t>(limit, uint64_t(v) + 1);
  }
  return create(limit, s, d, weights,
                loadFlags(undirected, dropSelfLoops, deduplicate,
                          sumDuplicates, false));
}

Graph fromCsr(const IdArray &indptr, const IdArray &indices,
              const std::optional<WeightArray> &weights) {
  if (indptr.ndim() != 1 || indptr.size() < 1)
    throw py::value_error("indptr must be one-dimensional with at least one "
                          "entry (num_vertices + 1)");
  uint64_t n = uint64_t(indptr.size() - 1);
  if (n >= UINT32_MAX)
    throw py::value_error("too many vertices for 32-bit ids: " +
                          std::to_string(n));
  const int64_t *ptr = indptr.data();
  if (ptr[0] != 0 || ptr[n] != int64_t(indices.size()))
    throw py::value_error("indptr must start at 0 and end at len(indices) (" +
                          std::to_string(indices.size()) + "), got " +
                          std::to_string(ptr[0]) + " and " +
                          std::to_string(ptr[n]));
  std::vector<uint32_t> targets = vertexIds(indices, "indices", n);
  std::vector<uint32_t> sources(targets.size());
  for (uint64_t v = 0; v < n; ++v) {
    if (ptr[v + 1] < ptr[v])
      throw py::value_error("indptr must not decrease: indptr[" +
                            std::to_string(v + 1) + "] = " +
                            std::to_string(ptr[v + 1]) + " < " +
                            std::to_string(ptr[v]));
    for (int64_t e = ptr[v]; e < ptr[v + 1]; ++e)
      sources[size_t(e)] = static_cast<uint32_t>(v);
  }
  return create(n, sources, targets, weights, 0);
}

/// A read-only numpy view of `count` elements at `data`, keeping `owner`
/// (the Graph) alive.
template <class T>
py::array view(const T *data, uint64_t count, py::handle owner) {
  py::array_t<T> a({static_cast<py::ssize_t>(count)}, {sizeof(T)}, data,
                   owner);
  py::detail::array_proxy(a.ptr())->flags &=
      ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return std::move(a);
}

} // namespace

void bindGraphs(py::module_ &m) {
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);

  py::class_<Graph>(m, "Graph")
      .def_static("load", &load, py::arg("path"), py::arg("format") = "auto",
                  py::arg("undirected") = false,
                  py::arg("drop_self_loops") = false,
                  py::arg("deduplicate") = false,
                  py::arg("sum_duplicates") = false,
                  py::arg("compact_ids") = false, py::arg("quiet") = true)
      .def_static("from_edges", &fromEdges, py::arg("src"), py::arg("dst"),
                  py::arg("num_vertices") = 0,
                  py::arg("weights") = py::none(),
                  py::arg("undirected") = false,
                  py::arg("drop_self_loops") = false,
                  py::arg("deduplicate") = false,
                  py::arg("sum_duplicates") = false)
      .def_static("from_csr", &fromCsr, py::arg("indptr"), py::arg("indices"),
                  py::arg("weights") = py::none())
      .def_property_readonly("num_vertices",
                             [](const Graph &g) {
                               return sluice_graph_num_vertices(g.get());
                             })
      .def_property_readonly("num_edges",
                             [](const Graph &g) {
                               return sluice_graph_num_edges(g.get());
                             })
      .def_property_readonly(
          "offsets",
          [](py::object self) {
            const Graph &g = self.cast<const Graph &>();
            return view(sluice_graph_offsets(g.get()),
                        sluice_graph_num_vertices(g.get()) + 1, self);
          })
      .def_property_readonly(
          "targets",
          [](py::object self) {
            const Graph &g = self.cast<const Graph &>();
            return view(sluice_graph_targets(g.get()),
                        sluice_graph_num_edges(g.get()), self);
          })
      .def_property_readonly(
          "weights",
          [](py::object self) -> py::object {
            const Graph &g = self.cast<const Graph &>();
            const float *w = sluice_graph_weights(g.get());
            if (!w)
              return py::none();
            return view(w, sluice_graph_num_edges(g.get()), self);
          })
      .def_property_readonly(
          "original_ids",
          [](py::object self) -> py::object {
            const Graph &g = self.cast<const Graph &>();
            const uint64_t *ids = sluice_graph_original_ids(g.get());
            if (!ids)
              return py::none();
            return view(ids, sluice_graph_num_vertices(g.get()), self);
          })
      .def("degree",
           [](const Graph &g, int64_t v) {
             if (v < 0 || uint64_t(v) >= sluice_graph_num_vertices(g.get()))
               throw py::index_error("vertex " + std::to_string(v) +
                                     " is not in the graph");
             return sluice_graph_degree(g.get(), uint32_t(v));
           })
      .def("has_edge",
           [](const Graph &g, int64_t u, int64_t v) {
             uint64_t n = sluice_graph_num_vertices(g.get());
             if (u < 0 || v < 0 || uint64_t(u) >= n || uint64_t(v) >= n)
               return false;
             return sluice_graph_has_edge(g.get(), uint32_t(u),
                                          uint32_t(v)) != 0;
           })
      .def("write_binary", [](const Graph &g, const std::string &path) {
        sluice_error_t error;
        if (sluice_graph_write_binary(g.get(), path.c_str(), &error) !=
            SLUICE_STATUS_OK)
          raise(error);
      });
}

} // namespace sluice::python
