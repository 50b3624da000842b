//===- BoostMaxFlow.h - The Boost.Graph max-flow graph type ----*- C++ -*-===//
//
// Private to the analysis libraries (TopoCut.cpp, Flow/HorizonFlow.cpp): the
// adjacency-list type that boost::boykov_kolmogorov_max_flow needs, with the
// Boost includes wrapped so GCC's misfiring warning stays quiet.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_BOOSTMAXFLOW_H
#define SLUICE_COMPILER_ANALYSIS_BOOSTMAXFLOW_H

// GCC's -Wmaybe-uninitialized misfires on Boost's edge iterators once they
// are inlined at -O2 and above; the region covers their source lines.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace sluice::analysis::detail {

using MaxFlowTraits =
    boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using MaxFlowEdge = MaxFlowTraits::edge_descriptor;
/// vecS vertices come with their own index map; the vertex and edge
/// properties are the ones Boykov-Kolmogorov reads and writes.
using MaxFlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS,
    boost::property<boost::vertex_color_t, boost::default_color_type,
                    boost::property<boost::vertex_distance_t, long,
                                    boost::property<boost::vertex_predecessor_t,
                                                    MaxFlowEdge>>>,
    boost::property<
        boost::edge_capacity_t, double,
        boost::property<boost::edge_residual_capacity_t, double,
                        boost::property<boost::edge_reverse_t, MaxFlowEdge>>>>;

} // namespace sluice::analysis::detail

#endif // SLUICE_COMPILER_ANALYSIS_BOOSTMAXFLOW_H
