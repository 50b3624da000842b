//===- SemaBlockIO.cpp - Checking blockio demand items --------------------===//
//
// `blockio BLOCK from COMPUTE to STORAGE over MIDDLE { options }` (SmartDS,
// docs/flows.md "Storage middle tier (SmartDS)"): block I/O of BLOCK-byte
// blocks from the compute devices to the storage devices, served by the
// middle-tier servers whose host CPUs MIDDLE names. checkDemand checks the
// size and the three clauses; this checks the options:
//  - rate: frequency > 0, the requests per second the tier must serve
//    (`rate: 4 MHz` or `rate: 4000000 / 1 s`);
//  - compressibility: number in [0, 1), the fraction of every block an
//    ideal codec removes;
//  - header_cost: time >= 0, host CPU time per request for the header
//    (optional, 1 us);
//  - read_fraction: number in [0, 1], the share of requests that are
//    reads, decompressed in the middle tier on their way back to compute
//    (optional, 0: writes only);
//  - codec: zstd or lz4, the host codec (a bare word of PlanEnums.td's
//    Codec; optional, zstd).
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

#include "dialects/Plan/IR/PlanSchema.h"
#include "llvm/ADT/STLExtras.h"

using namespace sluice;
using namespace sluice::sema;
using ast::Type;

void Sema::checkBlockIO(ast::DemandItem &item) {
  if (!item.hasProps) {
    error(item.range) << "a 'blockio' item needs options: { rate: ..., "
                         "compressibility: ... }";
    return;
  }
  static const std::vector<std::string> keys = {
      "rate", "compressibility", "header_cost", "read_fraction", "codec"};
  std::map<std::string, ast::SourceRange> seen;
  for (ast::Prop &p : item.props) {
    if (!llvm::is_contained(keys, p.name)) {
      error(p.nameRange) << "unknown blockio option '" << p.name
                         << "'; expected one of " << joinNames(keys)
                         << didYouMean(p.name, keys);
      check(p.value.get());
      continue;
    }
    auto [it, inserted] = seen.emplace(p.name, p.nameRange);
    if (!inserted) {
      auto diag = error(p.nameRange)
                  << "duplicate blockio option '" << p.name << "'";
      note(diag, it->second, "first '" + p.name + "' is here");
      continue;
    }
    if (p.name == "codec") {
      checkCodec(*p.value);
      continue;
    }
    Type want = p.name == "rate"          ? Type::quantity(Dim::frequency())
                : p.name == "header_cost" ? Type::quantity(Dim::time())
                                          : Type::of(Type::Kind::Float);
    if (!checkAs(p.value.get(), want, "'" + p.name + "'"))
      continue;
    const Value *v = valueOf(p.value.get());
    std::optional<double> x = v ? v->asNumber() : std::nullopt;
    if (!x)
      continue;
    if (p.name == "rate" && *x <= 0)
      error(p.value->range)
          << "'rate' must be positive, got " << formatValue(*v, want);
    else if (p.name == "compressibility" && !(*x >= 0 && *x < 1))
      error(p.value->range) << "'compressibility' must be in [0, 1), got "
                            << formatValue(*v, want);
    else if (p.name == "header_cost" && *x < 0)
      error(p.value->range) << "'header_cost' must not be negative, got "
                            << formatValue(*v, want);
    else if (p.name == "read_fraction" && !(*x >= 0 && *x <= 1))
      error(p.value->range)
          << "'read_fraction' must be in [0, 1], got " << formatValue(*v, want);
  }
  for (const char *k : {"rate", "compressibility"})
    if (!seen.count(k))
      error(item.propsRange) << "a 'blockio' item needs '" << k << "'";
}

void Sema::checkCodec(ast::Expr &value) {
  auto *word = llvm::dyn_cast<ast::NameExpr>(&value);
  if (!word) {
    Type t = check(&value);
    if (!t.isUnknown())
      error(value.range) << "'codec' expects zstd or lz4, got " << typeName(t);
    return;
  }
  if (!plan::symbolizeCodec(word->name)) {
    error(value.range) << "unknown codec '" << word->name
                       << "'; expected zstd or lz4";
    return;
  }
  value.type = Type::of(Type::Kind::Enum);
}
