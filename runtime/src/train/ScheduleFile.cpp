//===- ScheduleFile.cpp - Offload schedules read from JSON files ----------===//
#include "runtime/src/train/ScheduleFile.h"

#include "runtime/src/train/Json.h"

#include <cstdint>
#include <fstream>
#include <sstream>

using namespace sluice::train;
using json::Value;

namespace {

class Reader {
public:
  Reader(const std::string &name, std::string &error)
      : name(name), error(error) {}

  bool fail(const Value &at, const std::string &what) {
    error = name + ":" + std::to_string(at.line) + ":" +
            std::to_string(at.column) + ": " + what;
    return false;
  }

  bool expect(const Value &v, Value::Kind kind, const std::string &what) {
    if (v.kind == kind)
      return true;
    return fail(v, what + " must be " + Value::kindName(kind) + ", not " +
                       Value::kindName(v.kind));
  }

  /// Only the fields in `known` (a null-terminated list).
  bool onlyFields(const Value &obj, const char *const *known,
                  const std::string &what) {
    for (const auto &f : obj.fields) {
      bool ok = false;
      for (const char *const *k = known; *k; ++k)
        ok |= f.first == *k;
      if (!ok) {
        std::string list;
        for (const char *const *k = known; *k; ++k)
          list += std::string(list.empty() ? "" : ", ") + *k;
        return fail(f.second, "unknown field '" + f.first + "' in " + what +
                                  " (expected " + list + ")");
      }
    }
    return true;
  }

  bool unsignedField(const Value &obj, const char *key, bool required,
                     uint64_t &out, const std::string &what) {
    const Value *v = obj.find(key);
    if (!v) {
      if (required)
        return fail(obj, what + " has no field '" + key + "'");
      return true;
    }
    if (!v->asUnsigned(out))
      return fail(*v, std::string("'") + key +
                          "' must be a non-negative integer");
    return true;
  }

  bool tensor(const Value &v, uint32_t layers, TensorRef &out) {
    if (!expect(v, Value::String, "a tensor"))
      return false;
    // "L<layer>.<slot>", the tensor names of the trainer.
    const std::string &t = v.text;
    size_t dot = t.find('.');
    bool ok = t.size() > 2 && t[0] == 'L' && dot != std::string::npos &&
              dot > 1 && dot - 1 <= 9;
    uint64_t layer = 0;
    for (size_t k = 1; ok && k < dot; ++k) {
      ok = t[k] >= '0' && t[k] <= '9';
      layer = layer * 10 + uint64_t(t[k] - '0');
    }
    if (!ok)
      return fail(v, "bad tensor name '" + t +
                         "' (expected L<layer>.<slot>, e.g. L0.param)");
    std::string slot = t.substr(dot + 1);
    bool found = false;
    for (unsigned s = 0; s < kSlotCount; ++s)
      if (slot == slotName(static_cast<Slot>(s))) {
        out.slot = static_cast<Slot>(s);
        found = true;
      }
    if (!found)
      return fail(v, "unknown slot '" + slot +
                         "' (expected param, grad, adam_m, adam_v or act)");
    if (layer >= layers)
      return fail(v, "unknown tensor '" + t + "' (the schedule has " +
                         std::to_string(layers) + " layers)");
    out.layer = static_cast<uint32_t>(layer);
    return true;
  }

  bool tensorList(const Value &entry, const char *key, uint32_t layers,
                  std::vector<TensorRef> &out) {
    const Value *v = entry.find(key);
    if (!v)
      return true;
    if (!expect(*v, Value::Array, std::string("'") + key + "'"))
      return false;
    for (const Value &item : v->items) {
      TensorRef r;
      if (!tensor(item, layers, r))
        return false;
      out.push_back(r);
    }
    return true;
  }

  bool entry(const Value &v, uint32_t layers, ScheduleEntry &e) {
    if (!expect(v, Value::Object, "a schedule entry"))
      return false;
    static const char *const known[] = {"layer", "phase",   "prefetch",
                                        "swap_out", "discard", "keep",
                                        "io_hidden", nullptr};
    if (!onlyFields(v, known, "a schedule entry"))
      return false;
    uint64_t layer = 0;
    if (!unsignedField(v, "layer", true, layer, "the entry"))
      return false;
    if (layer >= layers)
      return fail(*v.find("layer"), "layer " + std::to_string(layer) +
                                        " does not exist (the schedule has " +
                                        std::to_string(layers) + " layers)");
    e.layer = static_cast<uint32_t>(layer);
    const Value *phase = v.find("phase");
    if (!phase)
      return fail(v, "the entry has no field 'phase'");
    if (!expect(*phase, Value::String, "'phase'"))
      return false;
    if (phase->text == "forward")
      e.phase = Phase::Forward;
    else if (phase->text == "backward")
      e.phase = Phase::Backward;
    else if (phase->text == "optimizer")
      e.phase = Phase::Optimizer;
    else
      return fail(*phase, "unknown phase '" + phase->text +
                              "' (expected forward, backward or optimizer)");
    if (!tensorList(v, "prefetch", layers, e.prefetch) ||
        !tensorList(v, "swap_out", layers, e.swapOut) ||
        !tensorList(v, "discard", layers, e.discard) ||
        !tensorList(v, "keep", layers, e.keep))
      return false;
    e.ioHidden = false;
    if (const Value *h = v.find("io_hidden")) {
      if (!expect(*h, Value::Bool, "'io_hidden'"))
        return false;
      e.ioHidden = h->boolean;
    }
    return true;
  }

  bool tierIo(const Value &v, TierIo &out) {
    if (!expect(v, Value::Object, "a tier's predicted I/O"))
      return false;
    static const char *const known[] = {"read", "written", nullptr};
    return onlyFields(v, known, "a tier's predicted I/O") &&
           unsignedField(v, "read", true, out.read, "the tier's I/O") &&
           unsignedField(v, "written", true, out.written, "the tier's I/O");
  }

  bool document(const Value &root, OffloadSchedule &out) {
    if (!expect(root, Value::Object, "the schedule"))
      return false;
    static const char *const known[] = {
        "format", "version",           "layers", "homes",   "device_budget",
        "host_budget", "predicted_step_io", "plan", "entries", "abft",
        nullptr};
    const Value *format = root.find("format");
    if (!format || format->kind != Value::String ||
        format->text != kScheduleFormat)
      return fail(format ? *format : root,
                  std::string("not an offload schedule (expected \"format\": "
                              "\"") +
                      kScheduleFormat + "\")");
    uint64_t version = 0;
    if (!unsignedField(root, "version", true, version, "the schedule"))
      return false;
    if (version != kScheduleVersion)
      return fail(*root.find("version"),
                  "schedule version " + std::to_string(version) +
                      " is not supported (this runtime reads version " +
                      std::to_string(kScheduleVersion) + ")");
    if (!onlyFields(root, known, "the schedule"))
      return false;
    uint64_t layers = 0;
    if (!unsignedField(root, "layers", true, layers, "the schedule"))
      return false;
    if (layers == 0 || layers > 100000)
      return fail(*root.find("layers"), "'layers' must be in 1..100000");
    const uint32_t L = static_cast<uint32_t>(layers);
    OffloadSchedule s;
    if (const Value *homes = root.find("homes")) {
      if (!expect(*homes, Value::Object, "'homes'"))
        return false;
      for (const auto &f : homes->fields) {
        unsigned slot = kSlotCount;
        for (unsigned k = 0; k < kSlotCount; ++k)
          if (f.first == slotName(static_cast<Slot>(k)))
            slot = k;
        if (slot == kSlotCount)
          return fail(f.second, "unknown slot '" + f.first +
                                    "' in 'homes' (expected param, grad, "
                                    "adam_m, adam_v or act)");
        if (!expect(f.second, Value::String, "a home tier"))
          return false;
        if (f.second.text == "device")
          s.homes[slot] = SLUICE_TIER_DEVICE;
        else if (f.second.text == "host")
          s.homes[slot] = SLUICE_TIER_HOST;
        else
          return fail(f.second, "unknown home tier '" + f.second.text +
                                    "' (expected device or host)");
      }
    }
    if (!unsignedField(root, "device_budget", false, s.deviceBudget,
                       "the schedule") ||
        !unsignedField(root, "host_budget", false, s.hostBudget,
                       "the schedule"))
      return false;
    if (const Value *abft = root.find("abft")) {
      if (!expect(*abft, Value::String, "'abft'"))
        return false;
      if (!parseAbftMode(abft->text, s.abft))
        return fail(*abft, "unknown abft mode '" + abft->text +
                               "' (expected off, fail or recompute)");
    }
    if (const Value *io = root.find("predicted_step_io")) {
      if (!expect(*io, Value::Object, "'predicted_step_io'"))
        return false;
      static const char *const tiers[] = {"device", "host", nullptr};
      if (!onlyFields(*io, tiers, "'predicted_step_io'"))
        return false;
      const Value *dev = io->find("device"), *host = io->find("host");
      if (!dev || !host)
        return fail(*io, "'predicted_step_io' needs 'device' and 'host'");
      if (!tierIo(*dev, s.predicted[SLUICE_TIER_DEVICE]) ||
          !tierIo(*host, s.predicted[SLUICE_TIER_HOST]))
        return false;
      s.hasPrediction = true;
    }
    if (const Value *plan = root.find("plan")) {
      if (!expect(*plan, Value::Object, "'plan'"))
        return false;
      for (const auto &f : plan->fields)
        if (f.second.kind == Value::String)
          s.origin += (s.origin.empty() ? "" : " ") + f.first + "=" +
                      f.second.text;
    }
    const Value *entries = root.find("entries");
    if (!entries)
      return fail(root, "the schedule has no field 'entries'");
    if (!expect(*entries, Value::Array, "'entries'"))
      return false;
    for (const Value &item : entries->items) {
      s.entries.emplace_back();
      if (!entry(item, L, s.entries.back()))
        return false;
    }
    size_t bad = SIZE_MAX;
    std::string why = validate(s, L, &bad);
    if (!why.empty())
      return fail(bad < entries->items.size() ? entries->items[bad] : *entries,
                  why);
    out = std::move(s);
    return true;
  }

private:
  const std::string &name;
  std::string &error;
};

} // namespace

bool sluice::train::parseSchedule(const std::string &text,
                                  const std::string &name,
                                  OffloadSchedule &out, std::string &error) {
  Value root;
  std::string syntax;
  if (!json::parse(text, root, syntax)) {
    error = name + ":" + syntax;
    return false;
  }
  return Reader(name, error).document(root, out);
}

bool sluice::train::loadSchedule(const std::string &path, OffloadSchedule &out,
                                 std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open the schedule file";
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    error = path + ": cannot read the schedule file";
    return false;
  }
  return parseSchedule(text.str(), path, out, error);
}
