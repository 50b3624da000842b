//===- GnnServersPlan.h - Multi-server part of gnn plans ------*- C++ -*-===//
//
// The topology side and the writers of the multi-server plan of a gnn
// train job (compiler/Analysis/Gnn/GnnServers.h; docs/gnn.md, "Several
// servers"): which groups of the flattened topology are servers, each
// server's devices as a topology of its own, and the text and JSON of the
// prediction. GnnPlan.cpp calls these when a job's topology has two or more
// servers.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_GNN_GNNSERVERSPLAN_H
#define SLUICE_COMPILER_TARGET_GNN_GNNSERVERSPLAN_H

#include "compiler/Analysis/Gnn/GnnServers.h"
#include "compiler/Analysis/TopoGraph.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace sluice::target {

/// The servers of a topology: its groups (top-level instances, e.g.
/// "server[1]") that hold a cpu, in order of first appearance, each with
/// the device index of its first cpu.
std::vector<std::pair<std::string, unsigned>>
serverGroups(const analysis::TopoGraph &topo);

/// The devices of `group` (arcs dropped), in order.
analysis::TopoGraph groupTopology(const analysis::TopoGraph &topo,
                                  llvm::StringRef group);

/// The multi-server section of the text plan.
void writeServersText(const gnn::MultiServerPrediction &m,
                      const gnn::GnnJob &job, uint64_t arcs,
                      llvm::raw_ostream &os);

/// The per-server objects (`servers`) and the shared figures
/// (`multi_server`) of the JSON plan.
llvm::json::Array serversJson(const gnn::MultiServerPrediction &m);
llvm::json::Object multiServerJson(const gnn::MultiServerPrediction &m,
                                   uint64_t arcs);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_GNN_GNNSERVERSPLAN_H
