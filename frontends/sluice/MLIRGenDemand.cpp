//===- MLIRGenDemand.cpp - Lowering demand declarations -------------------===//
#include "frontends/sluice/MLIRGenDemand.h"

#include "dialects/Plan/IR/PlanOps.h"
#include "frontends/sluice/Frontend.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

using namespace sluice;
using namespace sluice::ast;

namespace {

class DemandLowering {
public:
  DemandLowering(mlir::ModuleOp module, const Program &program,
                 const ConstEnv &globals)
      : ctx(*module.getContext()), builder(module.getContext()),
        program(program), globals(globals) {
    builder.setInsertionPointToEnd(module.getBody());
  }

  void lower(const DemandDecl &d);
  bool failed = false;

private:
  mlir::Location loc(const SourceRange &r) { return toLocation(&ctx, r); }
  std::optional<int64_t> index(const Expr &e);
  std::optional<std::string> pattern(const Endpoint &ep);
  /// The `job` dictionary of a gather job, and its size (items x
  /// item_bytes); null after reporting.
  mlir::DictionaryAttr job(const DemandItem &item, double &bytes);
  /// The `job` dictionary of a blockio item (its `over` patterns are the
  /// middle tier); null after reporting.
  mlir::DictionaryAttr blockIOJob(const DemandItem &item);
  std::optional<ConstValue> constant(const Expr &e) {
    auto v = evaluateConstant(e, globals, &ctx);
    if (!v)
      failed = true;
    return v;
  }

  mlir::MLIRContext &ctx;
  mlir::OpBuilder builder;
  const Program &program;
  const ConstEnv &globals;
};

} // namespace

std::optional<int64_t> DemandLowering::index(const Expr &e) {
  auto v = evaluateConstant(e, globals, &ctx);
  if (!v || v->kind != ConstValue::Kind::Int) {
    if (v)
      mlir::emitError(loc(e.range)) << "a device index must be an integer";
    failed = true;
    return std::nullopt;
  }
  return v->i;
}

std::optional<std::string> DemandLowering::pattern(const Endpoint &ep) {
  std::string out;
  for (const Segment &s : ep.segments) {
    if (!out.empty())
      out += ".";
    out += s.name;
    switch (s.indexKind) {
    case Segment::IndexKind::None:
      break;
    case Segment::IndexKind::All:
      out += "[*]";
      break;
    case Segment::IndexKind::Single: {
      auto i = index(*s.lo);
      if (!i)
        return std::nullopt;
      out += "[" + std::to_string(*i) + "]";
      break;
    }
    case Segment::IndexKind::Range: {
      auto lo = index(*s.lo), hi = index(*s.hi);
      if (!lo || !hi)
        return std::nullopt;
      out += "[" + std::to_string(*lo) + ".." + std::to_string(*hi) + "]";
      break;
    }
    }
  }
  return out;
}

static std::string resolvePath(const SourceRange &where, llvm::StringRef path) {
  if (llvm::sys::path::is_absolute(path))
    return path.str();
  llvm::SmallString<256> full =
      llvm::sys::path::parent_path(where.begin.fileName());
  llvm::sys::path::append(full, path);
  return std::string(full);
}

mlir::DictionaryAttr DemandLowering::job(const DemandItem &item,
                                         double &bytes) {
  llvm::SmallVector<mlir::NamedAttribute> attrs;
  int64_t items = 0;
  double itemBytes = 0;
  for (const Prop &p : item.props) {
    if (p.name == "items" || p.name == "classes") {
      auto v = constant(*p.value);
      if (!v)
        return {};
      if (p.name == "items")
        items = v->i;
      attrs.push_back(builder.getNamedAttr(p.name,
                                           builder.getI64IntegerAttr(v->i)));
    } else if (p.name == "item_bytes") {
      auto v = constant(*p.value);
      if (!v || !v->asNumber())
        return {};
      itemBytes = *v->asNumber();
      attrs.push_back(
          builder.getNamedAttr(p.name, builder.getF64FloatAttr(itemBytes)));
    } else if (p.name == "capacity") {
      auto v = constant(*p.value);
      if (!v)
        return {};
      llvm::SmallVector<mlir::Attribute> caps;
      for (const ConstValue &e : v->list)
        caps.push_back(builder.getF64FloatAttr(e.asNumber().value_or(0)));
      attrs.push_back(builder.getNamedAttr(p.name, builder.getArrayAttr(caps)));
    } else if (p.name == "access") {
      const auto &call = llvm::cast<CallExpr>(*p.value);
      if (call.callee == "file") {
        const auto &path = llvm::cast<StringLitExpr>(*call.args[0].value);
        attrs.push_back(builder.getNamedAttr(
            "access_file",
            builder.getStringAttr(resolvePath(path.range, path.value))));
        continue;
      }
      // sample(GRAPH, fanout: [...]): the graph declaration's file.
      llvm::SmallVector<int64_t> fanout;
      std::string graphName;
      for (const Arg &a : call.args) {
        if (a.name == "fanout") {
          auto v = constant(*a.value);
          if (!v)
            return {};
          for (const ConstValue &e : v->list)
            fanout.push_back(e.i);
        } else if (auto *n = llvm::dyn_cast<NameExpr>(a.value.get())) {
          graphName = n->name;
        }
      }
      const GraphDecl *graph = nullptr;
      for (const auto &m : program.modules)
        for (const DeclPtr &d : m->decls)
          if (auto *g = llvm::dyn_cast<GraphDecl>(d.get());
              g && g->name == graphName)
            graph = g;
      const CallExpr *load = graph ? graph->source.get() : nullptr;
      if (!load || load->callee != "load") {
        mlir::emitError(loc(call.range))
            << "not supported yet: sampling graph '" << graphName
            << "' (only load(...) graphs)";
        failed = true;
        return {};
      }
      std::string path, format = "snap", duplicates = "merge",
                        selfLoops = "drop";
      bool undirected = false, sawPath = false;
      for (const Arg &a : load->args) {
        if (!a.value)
          continue;
        if (a.name.empty() && !sawPath) {
          sawPath = true;
          if (auto v = constant(*a.value))
            path = resolvePath(graph->range, v->s);
        } else if (a.name.empty()) {
          if (auto *flag = llvm::dyn_cast<NameExpr>(a.value.get()))
            undirected = flag->name == "undirected";
        } else if (a.name == "format") {
          if (std::optional<std::string> w = bareWord(a.value.get()))
            format = *w;
        } else if (auto *word = llvm::dyn_cast<NameExpr>(a.value.get())) {
          if (a.name == "duplicates")
            duplicates = word->name;
          else if (a.name == "self_loops")
            selfLoops = word->name;
        }
      }
      attrs.push_back(
          builder.getNamedAttr("graph", builder.getStringAttr(path)));
      attrs.push_back(
          builder.getNamedAttr("graph_format", builder.getStringAttr(format)));
      attrs.push_back(builder.getNamedAttr("graph_undirected",
                                           builder.getBoolAttr(undirected)));
      attrs.push_back(builder.getNamedAttr("graph_duplicates",
                                           builder.getStringAttr(duplicates)));
      attrs.push_back(builder.getNamedAttr("graph_self_loops",
                                           builder.getStringAttr(selfLoops)));
      attrs.push_back(builder.getNamedAttr(
          "fanout", builder.getDenseI64ArrayAttr(fanout)));
    }
  }
  bytes = static_cast<double>(items) * itemBytes;
  return builder.getDictionaryAttr(attrs);
}

mlir::DictionaryAttr DemandLowering::blockIOJob(const DemandItem &item) {
  double headerCost = 1e-6; // SemaBlockIO.cpp: the default
  llvm::SmallVector<mlir::NamedAttribute> attrs;
  for (const Prop &p : item.props) {
    if (p.name == "codec") {
      // Sema checked the word against PlanEnums.td's Codec.
      auto *word = llvm::cast<ast::NameExpr>(p.value.get());
      attrs.push_back(builder.getNamedAttr(
          "codec", plan::CodecAttr::get(builder.getContext(),
                                        *plan::symbolizeCodec(word->name))));
      continue;
    }
    auto v = constant(*p.value);
    if (!v || !v->asNumber())
      return {};
    if (p.name == "header_cost")
      headerCost = *v->asNumber();
    else
      attrs.push_back(builder.getNamedAttr(
          p.name, builder.getF64FloatAttr(*v->asNumber())));
  }
  attrs.push_back(
      builder.getNamedAttr("header_cost", builder.getF64FloatAttr(headerCost)));
  llvm::SmallVector<std::string> tier;
  for (const DemandClause &c : item.clauses)
    if (c.word == "over")
      for (const Endpoint &ep : c.endpoints) {
        auto p = pattern(ep);
        if (!p)
          return {};
        tier.push_back(*p);
      }
  llvm::SmallVector<llvm::StringRef> refs(tier.begin(), tier.end());
  attrs.push_back(
      builder.getNamedAttr("middle_tier", builder.getStrArrayAttr(refs)));
  return builder.getDictionaryAttr(attrs);
}

void DemandLowering::lower(const DemandDecl &d) {
  double chunk = 0;
  for (const Prop &p : d.props)
    if (p.name == "chunk")
      if (auto v = evaluateConstant(*p.value, globals, &ctx))
        chunk = v->asNumber().value_or(0);
  auto demands = builder.create<plan::DemandsOp>(
      loc(d.range), builder.getStringAttr(d.name),
      mlir::FlatSymbolRefAttr::get(&ctx, d.topology),
      builder.getF64FloatAttr(chunk));
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&demands.getBody().emplaceBlock());
  for (const DemandItem &item : d.items) {
    mlir::DictionaryAttr jobAttr;
    std::optional<ConstValue> size;
    bool blockIO = item.kind == "blockio";
    if (blockIO) {
      jobAttr = blockIOJob(item);
      if (!jobAttr) {
        failed = true;
        continue;
      }
      size = evaluateConstant(*item.bytes, globals, &ctx);
    } else if (item.hasProps) {
      double total = 0;
      jobAttr = job(item, total);
      if (!jobAttr) {
        failed = true;
        continue;
      }
      size = ConstValue::ofFloat(total);
    } else {
      size = evaluateConstant(*item.bytes, globals, &ctx);
    }
    if (!size || !size->asNumber()) {
      if (size)
        mlir::emitError(loc(item.bytes->range))
            << "the size of a demand must be a constant number of bytes";
      failed = true;
      continue;
    }
    llvm::SmallVector<std::string> from, to;
    for (const DemandClause &c : item.clauses) {
      if (blockIO && c.word == "over")
        continue; // the middle tier, in the job
      llvm::SmallVector<std::string> &list = c.word == "to" ? to : from;
      for (const Endpoint &ep : c.endpoints) {
        auto p = pattern(ep);
        if (!p)
          return;
        list.push_back(*p);
      }
      if (c.word == "over")
        to = from;
    }
    llvm::SmallVector<llvm::StringRef> fromRefs(from.begin(), from.end());
    llvm::SmallVector<llvm::StringRef> toRefs(to.begin(), to.end());
    std::optional<plan::DemandKind> kind = plan::symbolizeDemandKind(item.kind);
    assert(kind && "Sema accepts only the demand kinds of PlanEnums.td");
    builder.create<plan::DemandOp>(loc(item.range),
                                   plan::DemandKindAttr::get(&ctx, *kind),
                                   builder.getF64FloatAttr(*size->asNumber()),
                                   builder.getStrArrayAttr(fromRefs),
                                   builder.getStrArrayAttr(toRefs), jobAttr);
  }
}

mlir::LogicalResult sluice::lowerDemands(mlir::ModuleOp module,
                                         const Program &program,
                                         const ConstEnv &globals) {
  DemandLowering lowering(module, program, globals);
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls)
      if (auto *demand = llvm::dyn_cast<DemandDecl>(d.get()))
        lowering.lower(*demand);
  return mlir::success(!lowering.failed);
}

bool sluice::isDemandGraph(const Program &program, const Decl &decl) {
  if (decl.getKind() != Decl::Kind::Graph)
    return false;
  for (const auto &m : program.modules)
    for (const DeclPtr &d : m->decls)
      if (auto *demand = llvm::dyn_cast<DemandDecl>(d.get()))
        for (const DemandItem &item : demand->items)
          for (const Prop &p : item.props) {
            auto *call = llvm::dyn_cast<CallExpr>(p.value.get());
            if (p.name != "access" || !call || call->callee != "sample")
              continue;
            for (const Arg &a : call->args)
              if (auto *n = llvm::dyn_cast<NameExpr>(a.value.get());
                  n && a.name.empty() && n->name == decl.name)
                return true;
          }
  return false;
}
