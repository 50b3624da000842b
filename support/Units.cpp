//===- Units.cpp - Physical units and dimensions for Sluice ---------------===//
#include "support/Units.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <vector>

using namespace sluice;

Dim Dim::operator*(const Dim &o) const {
  Dim r;
  for (unsigned i = 0; i < kNumBaseDims; ++i)
    r.exp[i] = static_cast<int8_t>(exp[i] + o.exp[i]);
  return r;
}

Dim Dim::operator/(const Dim &o) const {
  Dim r;
  for (unsigned i = 0; i < kNumBaseDims; ++i)
    r.exp[i] = static_cast<int8_t>(exp[i] - o.exp[i]);
  return r;
}

namespace {
struct NamedDim {
  const char *name;
  Dim dim;
};
const std::vector<NamedDim> &namedDims() {
  static const std::vector<NamedDim> dims = {
      {"number", Dim::none()},         {"bytes", Dim::bytes()},
      {"time", Dim::time()},           {"flops", Dim::flops()},
      {"price", Dim::price()},         {"power", Dim::power()},
      {"bandwidth", Dim::bandwidth()}, {"compute", Dim::compute()},
      {"frequency", Dim::frequency()},
  };
  return dims;
}

struct UnitEntry {
  const char *spelling;
  UnitInfo info;
};

// Ordered as documented in docs/language.md ("Units").
const std::vector<UnitEntry> &unitTable() {
  static const std::vector<UnitEntry> table = [] {
    std::vector<UnitEntry> t;
    auto add = [&](const char *s, Dim d, double f) {
      t.push_back({s, {d, f}});
    };
    const double k = 1e3, ki = 1024.0;
    // Bytes, decimal and binary prefixes.
    add("B", Dim::bytes(), 1);
    add("KB", Dim::bytes(), k);
    add("MB", Dim::bytes(), k * k);
    add("GB", Dim::bytes(), k * k * k);
    add("TB", Dim::bytes(), k * k * k * k);
    add("PB", Dim::bytes(), k * k * k * k * k);
    add("KiB", Dim::bytes(), ki);
    add("MiB", Dim::bytes(), ki * ki);
    add("GiB", Dim::bytes(), ki * ki * ki);
    add("TiB", Dim::bytes(), ki * ki * ki * ki);
    add("PiB", Dim::bytes(), ki * ki * ki * ki * ki);
    add("bit", Dim::bytes(), 0.125);
    add("Kbit", Dim::bytes(), k / 8);
    add("Mbit", Dim::bytes(), k * k / 8);
    add("Gbit", Dim::bytes(), k * k * k / 8);
    add("Tbit", Dim::bytes(), k * k * k * k / 8);
    // Bandwidths.
    add("B/s", Dim::bandwidth(), 1);
    add("KB/s", Dim::bandwidth(), k);
    add("MB/s", Dim::bandwidth(), k * k);
    add("GB/s", Dim::bandwidth(), k * k * k);
    add("TB/s", Dim::bandwidth(), k * k * k * k);
    add("KiB/s", Dim::bandwidth(), ki);
    add("MiB/s", Dim::bandwidth(), ki * ki);
    add("GiB/s", Dim::bandwidth(), ki * ki * ki);
    add("TiB/s", Dim::bandwidth(), ki * ki * ki * ki);
    add("Mbit/s", Dim::bandwidth(), k * k / 8);
    add("Gbit/s", Dim::bandwidth(), k * k * k / 8);
    add("Tbit/s", Dim::bandwidth(), k * k * k * k / 8);
    add("Mbps", Dim::bandwidth(), k * k / 8);
    add("Gbps", Dim::bandwidth(), k * k * k / 8);
    add("Tbps", Dim::bandwidth(), k * k * k * k / 8);
    // Time.
    add("ns", Dim::time(), 1e-9);
    add("us", Dim::time(), 1e-6);
    add("ms", Dim::time(), 1e-3);
    add("s", Dim::time(), 1);
    add("min", Dim::time(), 60);
    add("h", Dim::time(), 3600);
    // Floating-point work and rates.
    add("FLOP", Dim::flops(), 1);
    add("GFLOP", Dim::flops(), 1e9);
    add("TFLOP", Dim::flops(), 1e12);
    add("PFLOP", Dim::flops(), 1e15);
    add("FLOPS", Dim::compute(), 1);
    add("GFLOPS", Dim::compute(), 1e9);
    add("TFLOPS", Dim::compute(), 1e12);
    add("PFLOPS", Dim::compute(), 1e15);
    // Frequency, money, power.
    add("Hz", Dim::frequency(), 1);
    add("MHz", Dim::frequency(), 1e6);
    add("GHz", Dim::frequency(), 1e9);
    add("USD", Dim::price(), 1);
    add("W", Dim::power(), 1);
    add("kW", Dim::power(), 1e3);
    return t;
  }();
  return table;
}
} // namespace

std::string Dim::name() const {
  for (const NamedDim &nd : namedDims())
    if (nd.dim == *this)
      return nd.name;
  static const char *symbols[kNumBaseDims] = {"B", "s", "FLOP", "USD", "W"};
  std::string out;
  llvm::raw_string_ostream os(out);
  bool first = true;
  for (unsigned i = 0; i < kNumBaseDims; ++i) {
    if (exp[i] == 0)
      continue;
    if (!first)
      os << "*";
    first = false;
    os << symbols[i];
    if (exp[i] != 1)
      os << "^" << static_cast<int>(exp[i]);
  }
  return out;
}

std::optional<Dim> Dim::fromTypeName(llvm::StringRef name) {
  for (const NamedDim &nd : namedDims())
    if (name == nd.name && name != "number")
      return nd.dim;
  return std::nullopt;
}

std::optional<UnitInfo> sluice::lookupUnit(llvm::StringRef spelling) {
  for (const UnitEntry &e : unitTable())
    if (spelling == e.spelling)
      return e.info;
  return std::nullopt;
}

namespace {

/// Spellings of units other than bytes and bits that people write, by the
/// Sluice unit they mean.
const std::pair<const char *, const char *> kUnitWords[] = {
    {"sec", "s"},       {"secs", "s"},      {"second", "s"},
    {"seconds", "s"},   {"msec", "ms"},     {"msecs", "ms"},
    {"usec", "us"},     {"usecs", "us"},    {"nsec", "ns"},
    {"nsecs", "ns"},    {"mins", "min"},    {"minute", "min"},
    {"minutes", "min"}, {"hr", "h"},        {"hrs", "h"},
    {"hour", "h"},      {"hours", "h"},     {"watt", "W"},
    {"watts", "W"},     {"kilowatt", "kW"}, {"kilowatts", "kW"},
    {"dollar", "USD"},  {"dollars", "USD"},
};

void addIfUnit(std::vector<std::string> &out, const std::string &unit) {
  if (lookupUnit(unit) && llvm::find(out, unit) == out.end())
    out.push_back(unit);
}

/// Bytes and bits: [prefix][i](B|b|byte[s]|bit[s])[ps|/s]. Returns false if
/// `spelling` is not of that form.
bool suggestDataUnits(llvm::StringRef spelling, std::vector<std::string> &out) {
  llvm::StringRef s = spelling;
  bool rate = false, psForm = false;
  if (s.size() > 2 && s.ends_with_insensitive("ps")) {
    s = s.drop_back(2);
    rate = psForm = true;
  } else if (s.size() > 2 && s.ends_with_insensitive("/s")) {
    s = s.drop_back(2);
    rate = true;
  }
  // The prefix: k, M, G, T, P in either case, optionally binary (`Gi`).
  std::string prefix;
  if (s.size() > 1 && llvm::StringRef("kmgtpKMGTP").contains(s.front())) {
    prefix = std::string(1, llvm::toUpper(s.front()));
    s = s.drop_front();
  }
  bool binary =
      !prefix.empty() && s.size() > 1 && llvm::toLower(s.front()) == 'i';
  if (binary)
    s = s.drop_front();
  // A capital B is a byte and a small b a bit; the words as well.
  bool bytes =
      s == "B" || s.equals_insensitive("byte") || s.equals_insensitive("bytes");
  bool bits =
      s == "b" || s.equals_insensitive("bit") || s.equals_insensitive("bits");
  if (!bytes && !bits)
    return false;
  // All in lower case (`gb`, `kb/s`, `gbps`), it may mean either.
  if (s == "b" && !prefix.empty() && spelling.lower() == spelling)
    bytes = true;
  std::string per = rate ? "/s" : "";
  if (bytes)
    addIfUnit(out, prefix + (binary ? "i" : "") + "B" + per);
  if (bits && !binary) {
    // One spelling of bits: Gbps for `gbps`, Gbit/s for `Gb/s`, else the
    // other one.
    std::string ps = prefix + "bps", bit = prefix + "bit" + per;
    if (!rate)
      addIfUnit(out, bit);
    else if (lookupUnit(psForm ? ps : bit))
      addIfUnit(out, psForm ? ps : bit);
    else
      addIfUnit(out, psForm ? bit : ps);
  }
  return true;
}

} // namespace

std::vector<std::string> sluice::suggestUnits(llvm::StringRef spelling) {
  std::vector<std::string> out;
  if (spelling.empty() || lookupUnit(spelling))
    return out;
  if (!suggestDataUnits(spelling, out)) {
    for (const auto &[word, unit] : kUnitWords)
      if (spelling.equals_insensitive(word))
        addIfUnit(out, unit);
    // `ghz`, `tflops`, `MS`: the same letters in another case.
    for (const UnitEntry &e : unitTable())
      if (spelling.equals_insensitive(e.spelling))
        addIfUnit(out, e.spelling);
  }
  return out;
}

std::string sluice::unitSuggestion(llvm::StringRef spelling) {
  std::vector<std::string> units = suggestUnits(spelling);
  if (units.empty())
    return "";
  // Bits or bytes, when both are offered.
  auto counts = [](llvm::StringRef u) -> std::string {
    bool bits = u.contains("bit") || u.ends_with("bps");
    return u.ends_with("/s") || u.ends_with("bps")
               ? (bits ? " (bits per second)" : " (bytes per second)")
               : (bits ? " (bits)" : " (bytes)");
  };
  if (units.size() == 1)
    return "; did you mean '" + units[0] + "'?";
  std::string text = "; did you mean";
  for (size_t i = 0; i < units.size(); ++i)
    text += (i == 0                  ? " '"
             : i + 1 == units.size() ? " or '"
                                     : ", '") +
            units[i] + "'" + counts(units[i]);
  return text + "?";
}

std::string sluice::listUnits() {
  std::string out;
  for (const UnitEntry &e : unitTable()) {
    if (!out.empty())
      out += ", ";
    out += e.spelling;
  }
  return out;
}

namespace {
struct Choice {
  const char *unit;
  double factor;
};
/// Preferred display units per dimension, largest first.
std::vector<Choice> displayChoices(const Dim &dim) {
  if (dim == Dim::bytes())
    return {{"TiB", 1099511627776.0},
            {"GiB", 1073741824.0},
            {"MiB", 1048576.0},
            {"KiB", 1024.0},
            {"B", 1}};
  if (dim == Dim::bandwidth())
    return {{"TB/s", 1e12},
            {"GB/s", 1e9},
            {"MB/s", 1e6},
            {"KB/s", 1e3},
            {"B/s", 1}};
  if (dim == Dim::time())
    return {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  if (dim == Dim::compute())
    return {{"PFLOPS", 1e15}, {"TFLOPS", 1e12}, {"GFLOPS", 1e9}, {"FLOPS", 1}};
  if (dim == Dim::flops())
    return {{"PFLOP", 1e15}, {"TFLOP", 1e12}, {"GFLOP", 1e9}, {"FLOP", 1}};
  if (dim == Dim::price())
    return {{"USD", 1}};
  if (dim == Dim::power())
    return {{"kW", 1e3}, {"W", 1}};
  if (dim == Dim::frequency())
    return {{"GHz", 1e9}, {"MHz", 1e6}, {"Hz", 1}};
  return {};
}

const Choice *pickChoice(const std::vector<Choice> &choices, double v) {
  for (const Choice &c : choices)
    if (std::fabs(v) >= c.factor || &c == &choices.back())
      return &c;
  return nullptr;
}
} // namespace

std::string sluice::chooseDisplayUnit(double v, const Dim &dim) {
  std::vector<Choice> choices = displayChoices(dim);
  const Choice *c = pickChoice(choices, v);
  return c ? c->unit : "";
}

std::string sluice::formatQuantity(double v, const Dim &dim) {
  std::string out;
  llvm::raw_string_ostream os(out);
  std::vector<Choice> choices = displayChoices(dim);
  if (const Choice *c = pickChoice(choices, v)) {
    os << llvm::format("%g", v / c->factor) << " " << c->unit;
    return out;
  }
  os << llvm::format("%g", v);
  if (!dim.isNone())
    os << " " << dim.name();
  return out;
}
