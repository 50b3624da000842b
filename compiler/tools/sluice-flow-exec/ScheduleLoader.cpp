//===- ScheduleLoader.cpp - Flow schedule JSON to the executor's structs -===//
//
// A strict reader of writeScheduleJSON's output over llvm::json: every
// value the executor needs is type-checked, and every error names the JSON
// path of the value ("demands[2].paths[0].arcs[1]").
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-flow-exec/ScheduleLoader.h"

#include "dialects/Common/BoundedJSON.h"
#include "support/NumberFormat.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <map>
#include <optional>

using namespace sluice;
using namespace sluice::flowexec;
namespace json = llvm::json;

sluice_flow_schedule_t LoadedSchedule::view() const {
  for (size_t d = 0; d < devices.size(); ++d)
    devices[d].name = names[d].c_str();
  for (size_t t = 0; t < transfers.size(); ++t) {
    transfers[t].path = paths[t].data();
    transfers[t].path_length = static_cast<uint32_t>(paths[t].size());
    transfers[t].segments = segments[t].data();
    transfers[t].num_segments = static_cast<uint32_t>(segments[t].size());
  }
  sluice_flow_schedule_t s{};
  s.devices = devices.data();
  s.num_devices = static_cast<uint32_t>(devices.size());
  s.links = links.data();
  s.num_links = static_cast<uint32_t>(links.size());
  s.transfers = transfers.data();
  s.num_transfers = static_cast<uint32_t>(transfers.size());
  s.predicted_makespan = makespan;
  return s;
}

namespace {

class Reader {
public:
  explicit Reader(llvm::StringRef file) : file(file.str()) {}

  llvm::Error error(const std::string &path, const llvm::Twine &msg) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   file + ": " +
                                       (path.empty() ? (prefix.empty() ? "(root)" : prefix)
                                                     : prefix.empty() ? path
                                                                      : prefix + "." + path) +
                                       ": " + msg.str());
  }

  /// Prepended to every path (the schedule's place in a plan file).
  std::string prefix;

  llvm::Expected<const json::Value *> field(const json::Object &o,
                                            const std::string &path,
                                            llvm::StringRef key) const {
    const json::Value *v = o.get(key);
    if (!v)
      return error(path, "missing key '" + key + "'");
    return v;
  }

  llvm::Expected<const json::Array *> array(const json::Object &o,
                                            const std::string &path,
                                            llvm::StringRef key) const {
    auto v = field(o, path, key);
    if (!v)
      return v.takeError();
    if (const json::Array *a = (*v)->getAsArray())
      return a;
    return error(join(path, key), "expected an array");
  }

  llvm::Expected<double> number(const json::Value &v,
                                const std::string &path) const {
    if (std::optional<double> d = v.getAsNumber())
      if (std::isfinite(*d))
        return *d;
    return error(path, "expected a finite number");
  }

  llvm::Expected<double> number(const json::Object &o, const std::string &path,
                                llvm::StringRef key) const {
    auto v = field(o, path, key);
    if (!v)
      return v.takeError();
    return number(**v, join(path, key));
  }

  llvm::Expected<uint32_t> index(const json::Value &v, const std::string &path,
                                 uint64_t limit, const char *what) const {
    std::optional<int64_t> i = v.getAsInteger();
    if (!i || *i < 0)
      return error(path, "expected a non-negative integer");
    if (static_cast<uint64_t>(*i) >= limit)
      return error(path, llvm::formatv("{0} {1} does not exist (there are {2})",
                                       what, *i, limit));
    return static_cast<uint32_t>(*i);
  }

  llvm::Expected<uint32_t> index(const json::Object &o, const std::string &path,
                                 llvm::StringRef key, uint64_t limit,
                                 const char *what) const {
    auto v = field(o, path, key);
    if (!v)
      return v.takeError();
    return index(**v, join(path, key), limit, what);
  }

  llvm::Expected<const json::Object *> object(const json::Value &v,
                                              const std::string &path) const {
    if (const json::Object *o = v.getAsObject())
      return o;
    return error(path, "expected an object");
  }

  static std::string join(const std::string &path, llvm::StringRef key) {
    return path.empty() ? key.str() : path + "." + key.str();
  }
  static std::string at(const std::string &path, size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }

private:
  std::string file;
};

/// Two numbers of the schedule that must agree (bytes, seconds), up to the
/// solvers' rounding: 1e-6 relative, or 1e-9 absolute near zero.
bool closeTo(double a, double b) {
  return std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b)) + 1e-9;
}

/// Whole bytes of `x` (>= 0) rounded to nearest.
uint64_t wholeBytes(double x) {
  return static_cast<uint64_t>(std::llround(x));
}

} // namespace

llvm::Expected<LoadedSchedule>
flowexec::loadSchedule(llvm::StringRef text, llvm::StringRef file,
                       const LoadOptions &options) {
  Reader r(file);
  if (!std::isfinite(options.byteScale) || options.byteScale <= 0)
    return r.error("options", "byte scale must be finite and positive, got " +
                                  std::to_string(options.byteScale));
  llvm::Expected<json::Value> parsed = parseBoundedJSON(text);
  if (!parsed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   file + ": invalid JSON: " +
                                       llvm::toString(parsed.takeError()));
  const json::Object *root = parsed->getAsObject();
  if (!root)
    return r.error("(root)", "expected an object");
  if (const json::Value *plans = root->get("schedules")) {
    // A plan file: pick the schedule by name, or the only one.
    const json::Array *a = plans->getAsArray();
    if (!a)
      return r.error("schedules", "expected an array");
    const json::Object *chosen = nullptr;
    std::vector<std::string> names;
    for (size_t i = 0; i < a->size(); ++i) {
      auto o = r.object((*a)[i], Reader::at("schedules", i));
      if (!o)
        return o.takeError();
      std::string name = (*o)->getString("name").value_or("").str();
      names.push_back(name);
      if ((options.scheduleName.empty() && a->size() == 1) ||
          (!options.scheduleName.empty() && name == options.scheduleName)) {
        auto sched = r.field(**o, Reader::at("schedules", i), "schedule");
        if (!sched)
          return sched.takeError();
        auto so = r.object(**sched, Reader::at("schedules", i) + ".schedule");
        if (!so)
          return so.takeError();
        chosen = *so;
        r.prefix = Reader::at("schedules", i) + ".schedule";
      }
    }
    if (!chosen) {
      std::string list;
      for (const std::string &n : names)
        list += (list.empty() ? "'" : ", '") + n + "'";
      return r.error("schedules",
                     (names.empty() ? std::string("the plan holds no schedules")
                      : options.scheduleName.empty()
                          ? "the plan holds " + std::to_string(names.size()) +
                                " schedules; name one (" + list + ")"
                          : "no schedule named '" + options.scheduleName +
                                "' (the plan holds " +
                                (list.empty() ? std::string("none") : list) +
                                ")"));
    }
    root = chosen;
  }
  const double scale = options.byteScale;
  LoadedSchedule out;
  if (std::optional<llvm::StringRef> m = root->getString("method"))
    out.method = m->str();
  auto makespan = r.number(*root, "", "makespan");
  if (!makespan)
    return makespan.takeError();
  if (*makespan < 0)
    return r.error("makespan", "must be non-negative");
  out.makespan = *makespan * scale;

  // Nodes.
  auto nodes = r.array(*root, "", "nodes");
  if (!nodes)
    return nodes.takeError();
  int32_t gpus = 0;
  for (size_t i = 0; i < (*nodes)->size(); ++i) {
    std::optional<llvm::StringRef> name = (**nodes)[i].getAsString();
    if (!name)
      return r.error(Reader::at("nodes", i), "expected a string");
    out.names.push_back(name->str());
    sluice_flow_device_t d{};
    llvm::StringRef last = name->rsplit('.').second;
    if (last.empty())
      last = *name;
    if (!options.gpuPrefix.empty() && last.starts_with(options.gpuPrefix)) {
      d.memory = SLUICE_FLOW_MEMORY_GPU;
      d.gpu_ordinal = gpus++;
    }
    out.devices.push_back(d);
  }
  const uint64_t numNodes = out.devices.size();

  // Arcs -> links.
  auto arcs = r.array(*root, "", "arcs");
  if (!arcs)
    return arcs.takeError();
  for (size_t i = 0; i < (*arcs)->size(); ++i) {
    std::string p = Reader::at("arcs", i);
    auto o = r.object((**arcs)[i], p);
    if (!o)
      return o.takeError();
    auto idx = r.index(**o, p, "index", UINT32_MAX, "arc");
    if (!idx)
      return idx.takeError();
    if (*idx != i)
      return r.error(Reader::join(p, "index"),
                     llvm::formatv("expected {0}, arcs must be in order", i));
    auto from = r.index(**o, p, "from", numNodes, "node");
    if (!from)
      return from.takeError();
    auto to = r.index(**o, p, "to", numNodes, "node");
    if (!to)
      return to.takeError();
    auto cap = r.number(**o, p, "capacity");
    if (!cap)
      return cap.takeError();
    if (*cap <= 0)
      return r.error(Reader::join(p, "capacity"), "must be positive");
    out.links.push_back({*from, *to, *cap});
  }

  // Timeline chunk sizes, per (demand, path).
  std::map<std::pair<uint32_t, uint32_t>, double> timelineChunk;
  /// Per (demand, path): the bytes its timeline chunks cover, checked to
  /// tile [0, path bytes) without a gap, and where that list is.
  std::map<std::pair<uint32_t, uint32_t>, std::pair<double, std::string>>
      timelineBytes;
  if (const json::Value *tl = root->get("timeline")) {
    const json::Array *a = tl->getAsArray();
    if (!a)
      return r.error("timeline", "expected an array");
    for (size_t i = 0; i < a->size(); ++i) {
      std::string p = Reader::at("timeline", i);
      auto o = r.object((*a)[i], p);
      if (!o)
        return o.takeError();
      auto d = r.index(**o, p, "demand", UINT32_MAX, "demand");
      if (!d)
        return d.takeError();
      auto k = r.index(**o, p, "path", UINT32_MAX, "path");
      if (!k)
        return k.takeError();
      auto chunks = r.array(**o, p, "chunks");
      if (!chunks)
        return chunks.takeError();
      if ((*chunks)->empty())
        continue;
      // The chunks follow each other: each starts where the last ended. The
      // first one's size is the path's chunk size.
      const std::string chunksPath = Reader::join(p, "chunks");
      double next = 0;
      for (size_t c = 0; c < (*chunks)->size(); ++c) {
        std::string ep = Reader::at(chunksPath, c);
        auto co = r.object((**chunks)[c], ep);
        if (!co)
          return co.takeError();
        auto offset = r.number(**co, ep, "offset");
        if (!offset)
          return offset.takeError();
        auto cb = r.number(**co, ep, "bytes");
        if (!cb)
          return cb.takeError();
        if (!(*cb > 0))
          return r.error(Reader::join(ep, "bytes"), "must be positive");
        if (c == 0)
          timelineChunk[{*d, *k}] = *cb;
        if (!closeTo(*offset, next))
          return r.error(
              Reader::join(ep, "offset"),
              "is " + formatNumber(*offset) + " but the chunks before it end at " +
                  formatNumber(next) + " (a chunk is missing or overlaps)");
        next = *offset + *cb;
      }
      timelineBytes[{*d, *k}] = {next, chunksPath};
    }
  }

  // Demands -> commodities, paths -> transfers. First the sizes, to lay out
  // the regions: sources first, then destinations, in demand order.
  auto demands = r.array(*root, "", "demands");
  if (!demands)
    return demands.takeError();
  struct DemandInfo {
    uint32_t source, destination;
    uint64_t bytes;
    const json::Array *paths;
    std::string path;
    double bytesJson = 0; ///< as written (before scaling)
    double finish = 0;    ///< as written
  };
  double latestFinish = 0;
  std::vector<DemandInfo> infos;
  for (size_t i = 0; i < (*demands)->size(); ++i) {
    std::string p = Reader::at("demands", i);
    auto o = r.object((**demands)[i], p);
    if (!o)
      return o.takeError();
    DemandInfo info;
    info.path = p;
    auto src = r.index(**o, p, "source", numNodes, "node");
    if (!src)
      return src.takeError();
    auto dst = r.index(**o, p, "destination", numNodes, "node");
    if (!dst)
      return dst.takeError();
    auto bytes = r.number(**o, p, "bytes");
    if (!bytes)
      return bytes.takeError();
    if (*bytes < 0 || *bytes * scale > 9e15)
      return r.error(Reader::join(p, "bytes"),
                     "must be non-negative and below 9e15 after scaling");
    auto paths = r.array(**o, p, "paths");
    if (!paths)
      return paths.takeError();
    info.source = *src;
    info.destination = *dst;
    info.bytes = wholeBytes(*bytes * scale);
    info.paths = *paths;
    if (info.bytes && info.source != info.destination && info.paths->empty())
      return r.error(p, "a demand with bytes has no paths");
    if (info.source == info.destination && !info.paths->empty())
      return r.error(Reader::join(p, "paths"),
                     "a local demand (source = destination = node " +
                         std::to_string(info.source) +
                         ") moves nothing over the network but has " +
                         std::to_string(info.paths->size()) + " path(s)");
    info.bytesJson = *bytes;
    if (auto f = r.number(**o, p, "finish"))
      info.finish = *f;
    else
      return f.takeError();
    infos.push_back(info);
  }
  std::vector<uint64_t> used(numNodes, 0);
  std::vector<uint64_t> sourceAt(infos.size()), destinationAt(infos.size());
  for (size_t i = 0; i < infos.size(); ++i)
    if (infos[i].source != infos[i].destination) {
      sourceAt[i] = used[infos[i].source];
      used[infos[i].source] += infos[i].bytes;
    }
  for (size_t i = 0; i < infos.size(); ++i)
    if (infos[i].source != infos[i].destination) {
      destinationAt[i] = used[infos[i].destination];
      used[infos[i].destination] += infos[i].bytes;
    }
  for (size_t d = 0; d < numNodes; ++d)
    out.devices[d].memory_bytes = used[d];

  for (size_t i = 0; i < infos.size(); ++i) {
    const DemandInfo &info = infos[i];
    if (info.source == info.destination || info.bytes == 0)
      continue; // a local demand moves nothing over the network
    out.totalBytes += info.bytes;
    double pathSum = 0, demandFinish = 0;
    double cumulative = 0;
    uint64_t begin = 0;
    std::string pathsPath = Reader::join(info.path, "paths");
    for (size_t k = 0; k < info.paths->size(); ++k) {
      std::string p = Reader::at(pathsPath, k);
      auto o = r.object((*info.paths)[k], p);
      if (!o)
        return o.takeError();
      auto bytes = r.number(**o, p, "bytes");
      if (!bytes)
        return bytes.takeError();
      if (*bytes < 0)
        return r.error(Reader::join(p, "bytes"), "must be non-negative");
      cumulative += *bytes * scale;
      uint64_t end = k + 1 == info.paths->size()
                         ? info.bytes
                         : std::min(info.bytes, wholeBytes(cumulative));
      if (end < begin)
        end = begin;
      auto arcList = r.array(**o, p, "arcs");
      if (!arcList)
        return arcList.takeError();
      std::vector<uint32_t> links;
      for (size_t h = 0; h < (*arcList)->size(); ++h) {
        auto a = r.index((**arcList)[h], Reader::at(Reader::join(p, "arcs"), h),
                         out.links.size(), "arc");
        if (!a)
          return a.takeError();
        links.push_back(*a);
      }
      auto segs = r.array(**o, p, "segments");
      if (!segs)
        return segs.takeError();
      std::vector<sluice_flow_segment_t> profile;
      double sent = 0; ///< bytes the segments carry, as written
      for (size_t g = 0; g < (*segs)->size(); ++g) {
        std::string sp = Reader::at(Reader::join(p, "segments"), g);
        auto so = r.object((**segs)[g], sp);
        if (!so)
          return so.takeError();
        auto start = r.number(**so, sp, "start");
        if (!start)
          return start.takeError();
        auto end = r.number(**so, sp, "end");
        if (!end)
          return end.takeError();
        auto rate = r.number(**so, sp, "rate");
        if (!rate)
          return rate.takeError();
        if (!(*start >= 0 && *end > *start && *rate > 0 &&
              std::isfinite(*end) && std::isfinite(*rate)))
          return r.error(sp, "expected 0 <= start < end and a positive "
                             "finite rate, got start " +
                                 formatNumber(*start) + ", end " +
                                 formatNumber(*end) + ", rate " +
                                 formatNumber(*rate));
        if (!profile.empty() && *start < profile.back().end / scale &&
            !closeTo(*start, profile.back().end / scale))
          return r.error(Reader::join(sp, "start"),
                         "segments must not overlap: " + formatNumber(*start) +
                             " is before the end of the previous one");
        sent += *rate * (*end - *start);
        profile.push_back({*start * scale, *end * scale, *rate});
      }
      auto finish = r.number(**o, p, "finish");
      if (!finish)
        return finish.takeError();
      // The schedule's own arithmetic: the segments carry the path's bytes,
      // and the path finishes when its last segment ends.
      if (!profile.empty() && !closeTo(sent, *bytes))
        return r.error(Reader::join(p, "segments"),
                       "carry " + formatNumber(sent) +
                           " bytes (rate x duration), but the path has " +
                           formatNumber(*bytes));
      if (!profile.empty() && !closeTo(*finish, profile.back().end / scale))
        return r.error(Reader::join(p, "finish"),
                       "is " + formatNumber(*finish) +
                           " but the last segment ends at " +
                           formatNumber(profile.back().end / scale));
      auto tl = timelineBytes.find(
          {static_cast<uint32_t>(i), static_cast<uint32_t>(k)});
      if (tl != timelineBytes.end() && !closeTo(tl->second.first, *bytes))
        return r.error(tl->second.second,
                       "cover " + formatNumber(tl->second.first) +
                           " bytes of the path's " + formatNumber(*bytes) +
                           " (" + p + "): a chunk is missing");
      pathSum += *bytes;
      demandFinish = std::max(demandFinish, *finish);
      if (end == begin)
        continue; // rounded away: nothing to move
      sluice_flow_transfer_t t{};
      t.commodity = static_cast<uint32_t>(i);
      t.source = info.source;
      t.destination = info.destination;
      t.source_offset = sourceAt[i] + begin;
      t.destination_offset = destinationAt[i] + begin;
      t.bytes = end - begin;
      t.predicted_finish = *finish * scale;
      if (options.chunkBytes)
        t.chunk_bytes = options.chunkBytes;
      else if (options.chunksPerPath)
        t.chunk_bytes = t.bytes / options.chunksPerPath +
                        (t.bytes % options.chunksPerPath != 0);
      else {
        auto it = timelineChunk.find({static_cast<uint32_t>(i),
                                      static_cast<uint32_t>(k)});
        if (it != timelineChunk.end() && it->second > 0)
          t.chunk_bytes = std::max<uint64_t>(1, wholeBytes(it->second * scale));
      }
      // The whole bytes differ from the path's by at most one byte, which
      // the executor allows; the rates stay the solver's, within capacity.
      if (profile.empty())
        return r.error(Reader::join(p, "segments"),
                       "a path with bytes has no rate segments");
      out.transfers.push_back(t);
      out.paths.push_back(std::move(links));
      out.segments.push_back(std::move(profile));
      out.labels.push_back(p + " (" + out.names[info.source] + " -> " +
                           out.names[info.destination] + ")");
      begin = end;
    }
    if (!closeTo(pathSum, info.bytesJson))
      return r.error(Reader::join(info.path, "paths"),
                     "carry " + formatNumber(pathSum) +
                         " bytes, but the demand has " +
                         formatNumber(info.bytesJson));
    if (!closeTo(info.finish, demandFinish))
      return r.error(Reader::join(info.path, "finish"),
                     "is " + formatNumber(info.finish) +
                         " but its last path finishes at " +
                         formatNumber(demandFinish));
    latestFinish = std::max(latestFinish, demandFinish);
  }
  if (!closeTo(*makespan, latestFinish))
    return r.error("makespan", "is " + formatNumber(*makespan) +
                                   " but the last demand finishes at " +
                                   formatNumber(latestFinish));
  return out;
}
