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
//  - a gather job (`gather NAME from [TIERS] to DESTS { ... }`): the item
//    names its data set; options items, item_bytes, access (file("PATH") or
//    sample(GRAPH, fanout: [..])), classes, capacity (see checkGatherJob).
// The topology graph checks (patterns that match no device, unreachable
// destinations) run when plan-schedule-flows builds the flow problem, and
// are reported at the item.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

#include "dialects/Plan/IR/PlanSchema.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace sluice;
using namespace sluice::sema;
using ast::Type;

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

  // The kinds are the plan dialect's (PlanEnums.td); each runs over one
  // group (`over`) or from sources to destinations.
  std::vector<std::string> kindNames;
  for (llvm::StringRef k : plan::demandKindNames())
    kindNames.push_back(k.str());
  for (ast::DemandItem &item : demand.items) {
    std::optional<plan::DemandKind> kind = plan::symbolizeDemandKind(item.kind);
    if (!kind)
      error(item.kindRange)
          << "unknown demand kind '" << item.kind << "'; expected one of "
          << joinNames(kindNames) << didYouMean(item.kind, kindNames);
    bool blockIO = kind == plan::DemandKind::BlockIO;
    if (blockIO)
      checkBlockIO(item);
    if (item.hasProps && !blockIO) {
      if (kind != plan::DemandKind::Gather) {
        error(item.propsRange)
            << "only a 'gather' item takes options (a gather job); '"
            << item.kind << "' does not";
      } else {
        size_t tiers = 0;
        for (const ast::DemandClause &c : item.clauses)
          if (c.word == "from")
            tiers = c.endpoints.size();
        checkGatherJob(item, tiers);
      }
    }
    // The size (a gather job's data set is a name instead).
    if (item.hasProps && !blockIO) {
    } else if (checkAs(item.bytes.get(), bytes,
                       "the size of '" + item.kind + "'"))
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
      } else if (kind && !blockIO &&
                 (c.word == "over") != plan::isOverOneGroup(*kind)) {
        error(c.wordRange) << "'" << item.kind << "' takes "
                           << (plan::isOverOneGroup(*kind) ? "'over GROUP'"
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
      if (plan::isOverOneGroup(*kind))
        needed.push_back("over");
      else
        needed.append({"from", "to"});
      if (blockIO)
        needed.push_back("over");
      for (llvm::StringRef w : needed)
        if (!seen.count(w.str()))
          error(item.range)
              << "'" << item.kind << "' needs " << (w == "over" ? "an" : "a")
              << " '" << w << "' clause";
    }
  }
}

/// A gather job: `gather NAME from [TIER, ...] to DESTS { options }`.
///  - items: i64 > 0 (with access: sample(...), the graph's vertex count,
///    checked when the pass loads the graph);
///  - item_bytes: bytes > 0;
///  - access: file("PATH") (an existing file, relative to the .sluice file)
///    or sample(GRAPH, fanout: [f1, ...]) (a declared graph; 1 to 8 hops,
///    every fanout positive);
///  - classes: i64 in [1, 1024], how many hotness classes the placement
///    works on (default 16);
///  - capacity: [bytes, ...], one per tier, the bytes each device of the
///    tier gives to the job (default: its memory / capacity property).
void Sema::checkGatherJob(ast::DemandItem &item, size_t tiers) {
  if (!llvm::isa<ast::NameExpr>(item.bytes.get()))
    error(item.bytes->range)
        << "a gather job names its data set (`gather NAME from ... to ... { "
           "... }`); its size is items x item_bytes";
  static const std::vector<std::string> keys = {
      "items", "item_bytes", "access", "classes", "capacity"};
  Type bytes = Type::quantity(Dim::bytes());
  Type i64 = Type::of(Type::Kind::Int);
  std::map<std::string, ast::SourceRange> seen;
  auto positiveInt = [&](ast::Prop &p, int64_t lo, int64_t hi) {
    if (!checkAs(p.value.get(), i64, "'" + p.name + "'"))
      return;
    if (const Value *v = valueOf(p.value.get()))
      if (v->kind == Value::Kind::Int && (v->i < lo || v->i > hi))
        error(p.value->range) << "'" << p.name << "' must be in [" << lo
                              << ", " << hi << "], got " << v->i;
  };
  for (ast::Prop &p : item.props) {
    if (!llvm::is_contained(keys, p.name)) {
      error(p.nameRange) << "unknown gather job option '" << p.name
                         << "'; expected one of " << joinNames(keys)
                         << didYouMean(p.name, keys);
      continue;
    }
    auto [it, inserted] = seen.emplace(p.name, p.nameRange);
    if (!inserted) {
      auto diag = error(p.nameRange) << "duplicate gather job option '"
                                     << p.name << "'";
      note(diag, it->second, "first '" + p.name + "' is here");
      continue;
    }
    if (p.name == "items") {
      positiveInt(p, 1, int64_t(1) << 40);
    } else if (p.name == "classes") {
      positiveInt(p, 1, 1024);
    } else if (p.name == "item_bytes") {
      if (checkAs(p.value.get(), bytes, "'item_bytes'"))
        if (const Value *v = valueOf(p.value.get()))
          if (auto n = v->asNumber(); n && *n <= 0)
            error(p.value->range) << "'item_bytes' must be positive, got "
                                  << formatValue(*v, bytes);
    } else if (p.name == "capacity") {
      if (!checkAs(p.value.get(), Type::list(bytes), "'capacity'"))
        continue;
      if (const Value *v = valueOf(p.value.get())) {
        if (v->kind == Value::Kind::List && v->elements().size() != tiers)
          error(p.value->range)
              << "'capacity' gives " << v->elements().size() << " sizes for "
              << tiers << " tier" << (tiers == 1 ? "" : "s")
              << " (one per pattern of 'from')";
        for (const Value &e : v->elements())
          if (auto n = e.asNumber(); n && *n < 0)
            error(p.value->range) << "'capacity' must not be negative, got "
                                  << formatValue(e, bytes);
      }
    } else if (p.name == "access") {
      auto *call = llvm::dyn_cast<ast::CallExpr>(p.value.get());
      if (!call || (call->callee != "file" && call->callee != "sample")) {
        error(p.value->range)
            << "'access' is file(\"PATH\") or sample(GRAPH, fanout: [...])";
        continue;
      }
      if (call->callee == "file") {
        auto *path = call->args.size() == 1 && call->args[0].name.empty()
                         ? llvm::dyn_cast<ast::StringLitExpr>(
                               call->args[0].value.get())
                         : nullptr;
        if (!path) {
          error(call->range) << "file(...) takes one path string";
          continue;
        }
        llvm::SmallString<256> full(path->value);
        if (!llvm::sys::path::is_absolute(full)) {
          full = llvm::sys::path::parent_path(path->range.begin.fileName());
          llvm::sys::path::append(full, path->value);
        }
        if (!llvm::sys::fs::is_regular_file(full))
          error(path->range) << "cannot open the access file '" << full
                             << "'";
        continue;
      }
      ast::Expr *fanout = nullptr;
      bool graphSeen = false;
      for (ast::Arg &a : call->args) {
        if (a.name.empty() && !graphSeen) {
          graphSeen = true;
          auto *g = llvm::dyn_cast<ast::NameExpr>(a.value.get());
          if (!g)
            error(a.value->range) << "sample(...) takes a graph name first";
          else
            resolveGlobal(g->name, g->range, {SymKind::Graph}, "graph");
        } else if (a.name == "fanout") {
          fanout = a.value.get();
        } else {
          error(a.name.empty() ? a.value->range : a.nameRange)
              << "sample(...) takes a graph and 'fanout: [...]'";
        }
      }
      if (!graphSeen)
        error(call->range) << "sample(...) needs a graph";
      if (!fanout) {
        error(call->range) << "sample(...) needs 'fanout: [f1, ...]'";
        continue;
      }
      if (!checkAs(fanout, Type::list(i64), "'fanout'"))
        continue;
      if (const Value *v = valueOf(fanout)) {
        if (v->elements().empty() || v->elements().size() > 8)
          error(fanout->range)
              << "'fanout' needs 1 to 8 hops, got " << v->elements().size();
        for (const Value &e : v->elements())
          if (e.kind == Value::Kind::Int && e.i <= 0)
            error(fanout->range)
                << "every fanout must be positive, got " << e.i;
      }
    }
  }
  for (const char *k : {"items", "item_bytes", "access"})
    if (!seen.count(k))
      error(item.propsRange) << "a gather job needs '" << k << "'";
}
