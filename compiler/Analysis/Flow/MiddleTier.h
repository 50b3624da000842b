//===- MiddleTier.h - Storage middle tier with SmartNIC offload -*- C++ -*-===//
//
// SmartDS (docs/flows.md, "Storage middle tier (SmartDS)"): block I/O from
// compute servers to storage servers is served by middle-tier servers that
// compress every block on its way to storage. Each middle-tier server
// either compresses on its host CPU, or splits every message (SmartDS's
// application-aware message split, AAMS): the header goes to the host CPU,
// the payload stays on the SmartNIC, whose engine compresses it.
//
// Per server, in requests per second, with B the block size, h the host
// CPU time per request for the header (protocol, metadata, mapping), c the
// host codec's rate per core (input bytes per second, measured), C the
// cores the server gives the service, L the summed line rate of its NICs
// and SmartNICs (bytes per second per direction), E the summed input rate
// of its SmartNIC compression engines:
//
//   host:     min( C / (h + B / c),  L / B )
//   smartnic: min( C / h,  E / B,  L / B )      (only with E > 0)
//
// (ingress carries B per request, egress B / ratio <= B, so the line rate
// binds on ingress). The achieved compression ratio is the host codec's
// measured ratio on the host, and min(engine ratio, host codec's ratio) on
// the SmartNIC. The planner picks per server the site with the higher
// throughput (a tie goes to the SmartNIC: it leaves host cores idle), sums
// the servers, and sizes the tier for a target request rate: the fewest
// servers (the fastest first) whose summed throughput reaches it, and,
// beyond the declared servers, more servers like the slowest declared one.
// The CPU-only middle tier is the same servers with every site `host`.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_MIDDLETIER_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_MIDDLETIER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::flow {

/// One middle-tier server, as the topology declares it.
struct MiddleTierServer {
  std::string name;       ///< "mid[0]"
  double cores = 0;       ///< host cores serving the tier
  double lineRate = 0;    ///< bytes/s per direction, all its NICs
  double engineRate = 0;  ///< bytes/s of input, all its SmartNIC engines
  double engineRatio = 0; ///< best ratio the engines reach (>= 1); 0: none
};

/// The block I/O load and the host side's measured costs.
struct BlockIOLoad {
  double requestRate = 0;      ///< requests/s the tier must serve in total
  double blockBytes = 0;       ///< B
  double headerSeconds = 0;    ///< h: host CPU seconds per request (header)
  double hostCompressRate = 0; ///< c: host codec, input bytes/s per core
  double hostRatio = 1;        ///< the host codec's ratio on these blocks
};

enum class CompressionSite { Host, SmartNic };
llvm::StringRef stringifySite(CompressionSite site);

/// One server's throughput at one site.
struct SiteThroughput {
  CompressionSite site = CompressionSite::Host;
  double requests = 0;    ///< requests/s: the minimum of the three bounds
  double hostBound = 0;   ///< requests/s the host cores allow
  double engineBound = 0; ///< requests/s the engines allow (0 at the host)
  double lineBound = 0;   ///< requests/s the line rate allows
  double ratio = 1;       ///< the compression ratio achieved
  double coresBusy = 0;   ///< host cores used at `requests`
  /// "host cores", "compression engine" or "line rate" (the first of
  /// these that binds).
  llvm::StringRef bottleneck;
};

/// The throughput of `server` with compression at `site` (an error for a
/// SmartNIC site on a server without an engine).
llvm::Expected<SiteThroughput> siteThroughput(const MiddleTierServer &server,
                                              const BlockIOLoad &load,
                                              CompressionSite site);

struct ServerPlan {
  std::string name;
  SiteThroughput chosen;
  SiteThroughput host;    ///< the host site, always evaluated
  bool hasEngine = false; ///< whether the SmartNIC site was a candidate
};

struct TierTotals {
  double requests = 0; ///< requests/s of all declared servers
  double bytesIn = 0;  ///< bytes/s from compute servers
  double bytesOut = 0; ///< bytes/s to storage servers (compressed)
  /// Fewest servers whose throughput reaches the load's request rate (the
  /// fastest first; beyond the declared ones, copies of the slowest).
  int64_t serversNeeded = 0;
  bool extrapolated = false; ///< serversNeeded exceeds the declared servers
};

struct MiddleTierPlan {
  std::vector<ServerPlan> servers; ///< in declaration order
  TierTotals planned;              ///< with the chosen sites
  TierTotals cpuOnly;              ///< every server compressing on the host
  /// planned.requests / cpuOnly.requests.
  double speedup = 0;
};

/// Plans the tier. Errors: no servers, a non-positive or non-finite block
/// size, request rate, codec rate or ratio below 1, a negative header cost,
/// a server without cores or line rate, an engine without a ratio >= 1.
llvm::Expected<MiddleTierPlan>
planMiddleTier(llvm::ArrayRef<MiddleTierServer> servers,
               const BlockIOLoad &load);

/// Fewest servers of per-server throughputs `perServer` (requests/s) whose
/// sum reaches `target`: the fastest first; beyond them, copies of the
/// slowest; a sum within a relative 1e-9 of the target reaches it. Sets
/// `extrapolated` when more than perServer.size() are needed (-1 when the
/// slowest serves nothing).
int64_t serversForTarget(llvm::ArrayRef<double> perServer, double target,
                         bool &extrapolated);

/// The plan as JSON: {"servers": [{"name", "site", "requests_per_s",
/// "ratio", "bottleneck", "host_cores_busy", "host_requests_per_s"}],
/// "planned": T, "cpu_only": T, "speedup"} with T = {"requests_per_s",
/// "bytes_in_per_s", "bytes_out_per_s", "servers_needed", "extrapolated"}.
std::string middleTierToJSON(const MiddleTierPlan &plan);

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_MIDDLETIER_H
