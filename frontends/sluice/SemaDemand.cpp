//===- SemaDemand.cpp - Checking demand declarations ----------------------===//
//
// `demand NAME on TOPOLOGY { option: value, KIND SIZE CLAUSES ... }`:
//  - the topology must exist and be concrete (every parameter defaulted);
//  - options: `chunk` (bytes, > 0), the chunk size of the timeline;
//  - an item's kind is one of transfer, gather (clauses `from` and `to`),
//    alltoall, allgather, reducescatter, allreduce (clause `over`); each
//    clause exactly once;
//  - the size is bytes and positive;
//  - every endpoint names devices of the topology (with did-you-mean,
//    index bounds checked as for links).
// The topology graph checks (patterns that match no device, unreachable
// destinations) run when plan-schedule-flows builds the flow problem, and
// are reported at the item.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

#include "llvm/ADT/STLExtras.h"

using namespace sluice;
using namespace sluice::sema;
using ast::Type;

namespace {
/// The demand kinds (the same list as plan::demandKinds()) and whether each
/// runs over one group (`over`) rather than `from` / `to`.
struct DemandKind {
  llvm::StringRef name;
  bool overGroup;
};
const DemandKind kDemandKinds[] = {
    {"transfer", false}, {"gather", false},       {"alltoall", true},
    {"allgather", true}, {"reducescatter", true}, {"allreduce", true},
};
} // namespace

void Sema::checkDemand(ast::DemandDecl &demand) {
  ast::TopologyDecl *topo = nullptr;
  if (Symbol *sym = resolveGlobal(demand.topology, demand.topologyRange,
                                  {SymKind::Topology}, "topology"))
    topo = llvm::dyn_cast<ast::TopologyDecl>(sym->decl);
  if (topo && ensureChecked(topo)) {
    for (const ast::Param &p : topo->params)
      if (!p.defaultValue) {
        auto diag = error(demand.topologyRange)
                    << "topology '" << topo->name << "' has a parameter '"
                    << p.name << "' without a default; a demand needs a "
                    << "concrete topology";
        note(diag, p.range, "parameter '" + p.name + "' is declared here");
        topo = nullptr;
        break;
      }
  } else {
    topo = nullptr;
  }

  Type bytes = Type::quantity(Dim::bytes());
  for (ast::Prop &p : demand.props) {
    if (p.name != "chunk") {
      error(p.nameRange) << "unknown demand option '" << p.name
                         << "'; the only option is 'chunk'"
                         << didYouMean(p.name, {std::string("chunk")});
      check(p.value.get());
      continue;
    }
    if (!checkAs(p.value.get(), bytes, "'chunk'"))
      continue;
    if (const Value *v = valueOf(p.value.get()))
      if (auto n = v->asNumber(); n && *n <= 0)
        error(p.value->range)
            << "'chunk' must be positive, got " << formatValue(*v, bytes);
  }

  if (demand.items.empty())
    error(demand.range) << "demand '" << demand.name
                        << "' moves nothing: add a transfer, gather or "
                           "collective";

  std::vector<std::string> kindNames;
  for (const DemandKind &k : kDemandKinds)
    kindNames.push_back(k.name.str());
  for (ast::DemandItem &item : demand.items) {
    const DemandKind *kind = nullptr;
    for (const DemandKind &k : kDemandKinds)
      if (k.name == item.kind)
        kind = &k;
    if (!kind)
      error(item.kindRange)
          << "unknown demand kind '" << item.kind << "'; expected one of "
          << joinNames(kindNames) << didYouMean(item.kind, kindNames);
    // The size.
    if (checkAs(item.bytes.get(), bytes, "the size of '" + item.kind + "'"))
      if (const Value *v = valueOf(item.bytes.get()))
        if (auto n = v->asNumber(); n && *n <= 0)
          error(item.bytes->range)
              << "the size of '" << item.kind << "' must be positive, got "
              << formatValue(*v, bytes);
    // The clauses.
    std::map<std::string, ast::SourceRange> seen;
    for (ast::DemandClause &c : item.clauses) {
      auto [it, inserted] = seen.emplace(c.word, c.wordRange);
      if (!inserted) {
        auto diag = error(c.wordRange) << "duplicate '" << c.word
                                       << "' clause in '" << item.kind << "'";
        note(diag, it->second, "first '" + c.word + "' clause is here");
      } else if (kind && (c.word == "over") != kind->overGroup) {
        error(c.wordRange) << "'" << item.kind << "' takes "
                           << (kind->overGroup ? "'over GROUP'"
                                               : "'from SOURCES to "
                                                 "DESTINATIONS'")
                           << ", not '" << c.word << "'";
      }
      for (ast::Endpoint &ep : c.endpoints)
        if (topo)
          checkTopologyEndpoint(*topo, ep);
    }
    if (kind) {
      llvm::SmallVector<llvm::StringRef, 2> needed;
      if (kind->overGroup)
        needed.push_back("over");
      else
        needed.append({"from", "to"});
      for (llvm::StringRef w : needed)
        if (!seen.count(w.str()))
          error(item.range)
              << "'" << item.kind << "' needs " << (w == "over" ? "an" : "a")
              << " '" << w << "' clause";
    }
  }
}
