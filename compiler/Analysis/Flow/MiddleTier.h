//===- MiddleTier.h - Storage middle tier with SmartNIC offload -*- C++ -*-===//
//
// SmartDS (docs/flows.md, "Storage middle tier (SmartDS)"): block I/O
// between compute servers and storage servers is served by middle-tier
// servers that compress every block written on its way to storage and
// decompress every block read on its way back to compute. Each middle-tier
// server compresses either on its host CPU or, splitting every message
// (SmartDS's application-aware message split, AAMS: the header to the host
// CPU, the payload stays on the SmartNIC), on its SmartNIC's engine; and it
// decompresses on its host CPU or on its SmartNIC's decompression engine
// (two independent choices).
//
// Per server, in requests per second, with B the block size, r the share
// of reads (w = 1 - r writes), h the host CPU time per request for the
// header (protocol, metadata, mapping), c and d the host codec's
// compression and decompression rates per core (uncompressed bytes per
// second, measured), C the cores the server gives the service, L the
// summed line rate of its NICs and SmartNICs (bytes per second per
// direction), E and D the summed uncompressed rates of its SmartNIC
// compression and decompression engines, and rho the ratio of the
// compression site (blocks are read back at the ratio they were written
// with, and either site decodes the other's format):
//
//   host cores:        C / (h + [compress on host] w B / c
//                             + [decompress on host] r B / d)
//   compression engine:   E / (w B)     (compression on the SmartNIC)
//   decompression engine: D / (r B)     (decompression on the SmartNIC)
//   line rate:  L / max(w B + r B / rho,  w B / rho + r B)
//               (ingress: writes in full, reads compressed; egress the
//               other way round)
//
// and a site's throughput is the minimum of its bounds. The achieved
// compression ratio is the host codec's measured ratio on the host, and
// min(engine ratio, host codec's ratio) on the SmartNIC.
//
// A server may also split its requests between the sites: a share x of
// its writes compressed on the SmartNIC (the rest on the host) and a share
// y of its reads decompressed there. Every bound above then reads
// T <= 1 / g_k(x, y) with g_k affine in (x, y): the seconds of resource k
// per request, e.g. g_host = (h + w (1 - x) B / c + r (1 - y) B / d) / C,
// g_engine = w x B / E, g_line,in = (w B + r B m(x)) / L with
// m(x) = x / rho_nic + (1 - x) / rho_host (blocks are read back at the mix
// of ratios they were written with). The planner maximises
// T = 1 / max_k g_k(x, y) over the box [0, 1]^2 (x = 0 without an engine,
// y = 0 without a decoder or reads) exactly: minimise z subject to
// g_k(x, y) <= z and the box, a 3-variable LP whose optimum is a vertex,
// found by enumerating every vertex (three of the at most nine planes;
// ties: fewer host cores busy, then the first vertex). The pure sites are
// the box's corners, so the split never serves less than the best
// assignment of sites. The planner sums the servers and sizes the tier
// for a target request rate: the fewest servers (the fastest first) whose
// summed throughput reaches it, and, beyond the declared servers, more
// servers like the slowest declared one. The CPU-only middle tier is the
// same servers with x = y = 0.
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
  /// bytes/s of output (uncompressed), all its SmartNIC decompression
  /// engines; 0: none.
  double decompressRate = 0;
};

/// The block I/O load and the host side's measured costs.
struct BlockIOLoad {
  double requestRate = 0;      ///< requests/s the tier must serve in total
  double blockBytes = 0;       ///< B
  double headerSeconds = 0;    ///< h: host CPU seconds per request (header)
  double hostCompressRate = 0; ///< c: host codec, input bytes/s per core
  double hostRatio = 1;        ///< the host codec's ratio on these blocks
  double readFraction = 0;     ///< r: the share of requests that are reads
  /// d: host codec, uncompressed (output) bytes/s per core.
  double hostDecompressRate = 0;
};

enum class CompressionSite { Host, SmartNic, Split };
llvm::StringRef stringifySite(CompressionSite site);
/// Host for share 0, SmartNic for 1, Split in between.
CompressionSite siteOfShare(double nicShare);

/// One server's throughput with a share `nicShare` of its writes
/// compressed on the SmartNIC and a share `nicReadShare` of its reads
/// decompressed there (`site` and `decompressSite` say which of host,
/// SmartNIC or split). A bound that does not apply (an engine not used,
/// or used by no request) is +infinity.
struct SiteThroughput {
  CompressionSite site = CompressionSite::Host;
  CompressionSite decompressSite = CompressionSite::Host;
  double nicShare = 0;          ///< x: writes compressed on the SmartNIC
  double nicReadShare = 0;      ///< y: reads decompressed on the SmartNIC
  double requests = 0;          ///< requests/s: the minimum of the bounds
  double hostBound = 0;         ///< requests/s the host cores allow
  double engineBound = 0;       ///< requests/s the compression engines allow
  double decompressBound = 0;   ///< requests/s the decompression engines allow
  double lineBound = 0;         ///< requests/s the line rate allows
  /// The compression ratio achieved (split: of the mix, 1 / m(x)).
  double ratio = 1;
  double coresBusy = 0;         ///< host cores used at `requests`
  double ingressPerRequest = 0; ///< bytes in per request (w B + r B / rho)
  double egressPerRequest = 0;  ///< bytes out per request (w B / rho + r B)
  /// The bounds that bind, in the order "host cores", "compression
  /// engine", "decompression engine", "line rate", joined by " and " (a
  /// split usually balances two).
  std::string bottleneck;
};

/// The throughput of `server` with the shares `nicShare` and
/// `nicReadShare` in [0, 1] (an error for a positive share on a server
/// without that engine).
llvm::Expected<SiteThroughput> splitThroughput(const MiddleTierServer &server,
                                               const BlockIOLoad &load,
                                               double nicShare,
                                               double nicReadShare);

/// The throughput of `server` with compression at `site` and decompression
/// at `decompressSite`, Host or SmartNic: splitThroughput with shares 0 or
/// 1 (an error for a SmartNIC site on a server without that engine).
llvm::Expected<SiteThroughput>
siteThroughput(const MiddleTierServer &server, const BlockIOLoad &load,
               CompressionSite site,
               CompressionSite decompressSite = CompressionSite::Host);

struct ServerPlan {
  std::string name;
  SiteThroughput chosen;  ///< the best split (pure sites included)
  SiteThroughput host;    ///< both sites on the host, always evaluated
  bool hasEngine = false; ///< whether SmartNIC compression was a candidate
  /// Whether SmartNIC decompression was a candidate (an engine, and reads).
  bool hasDecompressEngine = false;
};

struct TierTotals {
  double requests = 0; ///< requests/s of all declared servers
  /// bytes/s into the servers: writes from compute (uncompressed) and
  /// reads from storage (compressed).
  double bytesIn = 0;
  double bytesOut = 0; ///< bytes/s out of them, the other way round
  /// Fewest servers whose throughput reaches the load's request rate (the
  /// fastest first; beyond the declared ones, copies of the slowest).
  int64_t serversNeeded = 0;
  bool extrapolated = false; ///< serversNeeded exceeds the declared servers
};

struct MiddleTierPlan {
  std::vector<ServerPlan> servers; ///< in declaration order
  TierTotals planned;              ///< with the chosen sites
  TierTotals cpuOnly;              ///< every server (de)compressing on the host
  /// planned.requests / cpuOnly.requests.
  double speedup = 0;
};

/// Plans the tier. Errors: no servers, a non-positive or non-finite block
/// size, request rate or codec rate (a decompression rate only with
/// reads), a ratio below 1, a negative header cost, a read fraction outside
/// [0, 1], a server without cores or line rate, an engine without a ratio
/// >= 1.
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

/// The plan as JSON: {"servers": [{"name", "site", "decompress_site",
/// "compress_nic_share", "decompress_nic_share", "requests_per_s",
/// "ratio", "bottleneck", "host_cores_busy", "host_requests_per_s"}],
/// "planned": T, "cpu_only": T, "speedup"} with T = {"requests_per_s",
/// "bytes_in_per_s", "bytes_out_per_s", "servers_needed", "extrapolated"}.
std::string middleTierToJSON(const MiddleTierPlan &plan);

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_MIDDLETIER_H
