//===- SemaSchedules.cpp - Schedules of walks, algorithms and jobs -------===//
//
// A schedule names the walk, algorithm or finetune job it schedules; its
// keys are checked against the tables below (docs/language.md, section 12).
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"
#include "frontends/sluice/SemaOptions.h"

#include "dialects/Graph/IR/GraphSchema.h"
#include "dialects/Model/IR/ModelSchema.h"
#include "dialects/Walk/IR/WalkSchema.h"

using namespace sluice;
using namespace sluice::sema;

namespace {

const std::vector<OptionSpec> &walkScheduleSpecs() {
  static const std::vector<OptionSpec> specs = {
      word("sampler", walk::samplerNames()),
      word("target", walk::targetNames()),
      upTo("threads", walk::kMaxWalkThreads),
      upTo("walkers_per_thread", walk::kMaxWalkersPerThread)};
  return specs;
}

/// A finetune job's schedule: the homes of its model states and the
/// choices it pins (docs/language.md, "Job schedule keys").
const std::vector<OptionSpec> &jobScheduleSpecs() {
  static const std::vector<OptionSpec> specs = {
      word("params", model::tierNames()), word("grads", model::tierNames()),
      word("optimizer", model::tierNames()), opt("recompute", OptKind::Bool),
      pos("micro_batch", OptKind::Int)};
  return specs;
}

const std::vector<OptionSpec> &labelScheduleSpecs() {
  static const std::vector<OptionSpec> specs = {
      opt(graph::kDirectionKey, OptKind::Direction),
      opt(graph::kParallelKey, OptKind::Parallel),
      opt(graph::kTileKey, OptKind::IntOrAuto),
      opt(graph::kFrontierKey, OptKind::Frontier),
      word(graph::kFormatKey, graph::edgeFormatNames()),
      word(graph::kOrderKey, graph::vertexOrderNames()),
      word(graph::kFusionKey, graph::fusionNames())};
  return specs;
}

const std::vector<OptionSpec> &algorithmScheduleSpecs() {
  static const std::vector<OptionSpec> specs = [] {
    std::vector<OptionSpec> s = {word("target", graph::targetNames()),
                                 pos("threads", OptKind::Int)};
    for (const OptionSpec &l : labelScheduleSpecs())
      s.push_back(l);
    return s;
  }();
  return specs;
}

} // namespace

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

void Sema::checkSchedule(ast::ScheduleDecl &schedule) {
  auto looseAll = [&] {
    for (ast::Prop &p : schedule.props)
      checkLoose(*this, p.value.get());
    for (auto &l : schedule.labeled)
      for (ast::Prop &p : l.props)
        checkLoose(*this, p.value.get());
  };
  Symbol *sym = resolveGlobal(schedule.name, schedule.nameRange,
                              {SymKind::Walk, SymKind::Algorithm, SymKind::Job},
                              "walk, algorithm or finetune job");
  auto [prev, inserted] = schedules.emplace(schedule.name, schedule.nameRange);
  if (!inserted) {
    auto diag = error(schedule.nameRange)
                << "duplicate schedule for '" << schedule.name << "'";
    note(diag, prev->second,
         "previous schedule for '" + schedule.name + "' is here");
  }
  if (!sym || !sym->decl) {
    looseAll();
    return;
  }

  if (auto *walk = llvm::dyn_cast<ast::WalkDecl>(sym->decl)) {
    OptionChecker(*this, "option", "the schedule of walk '" + walk->name + "'",
                  schedule.nameRange)
        .run(itemsOf(schedule.props), walkScheduleSpecs());
    for (auto &l : schedule.labeled) {
      error(l.labelRange) << "walk '" << walk->name
                          << "' has no labels; only algorithm loops can be "
                             "labelled";
      for (ast::Prop &p : l.props)
        checkLoose(*this, p.value.get());
    }
    return;
  }

  if (auto *job = llvm::dyn_cast<ast::JobDecl>(sym->decl)) {
    checkJobSchedule(schedule, *job);
    return;
  }

  auto *algo = llvm::cast<ast::AlgorithmDecl>(sym->decl);
  ensureChecked(algo);
  const AlgoInfo &info = algoInfo[algo];
  OptionChecker(*this, "option",
                "the schedule of algorithm '" + algo->name + "'",
                schedule.nameRange)
      .run(itemsOf(schedule.props), algorithmScheduleSpecs());

  std::map<std::string, ast::SourceRange> seenLabels;
  for (auto &l : schedule.labeled) {
    auto found = info.labels.find(l.label);
    if (found == info.labels.end()) {
      std::vector<std::string> labels;
      for (const auto &entry : info.labels)
        labels.push_back("@" + entry.first);
      error(l.labelRange) << "unknown label '@" << l.label << "' in algorithm '"
                          << algo->name << "'"
                          << didYouMean("@" + l.label, labels);
      for (ast::Prop &p : l.props)
        checkLoose(*this, p.value.get());
      continue;
    }
    auto [prevLabel, fresh] = seenLabels.emplace(l.label, l.labelRange);
    if (!fresh) {
      auto diag = error(l.labelRange)
                  << "duplicate schedule for label '@" << l.label << "'";
      note(diag, prevLabel->second,
           "previous schedule for '@" + l.label + "' is here");
    }
    OptionChecker(*this, "option", "label '@" + l.label + "'", l.labelRange)
        .run(itemsOf(l.props), labelScheduleSpecs());
    if (found->second.isEdges)
      continue;
    for (ast::Prop &p : l.props)
      if (graph::isEdgesOnlyScheduleKey(p.name))
        error(p.nameRange) << "option '" << p.name
                           << "' applies to edges loops; '@" << l.label
                           << "' labels a vertices loop";
  }
}

void Sema::checkJobSchedule(ast::ScheduleDecl &schedule, ast::JobDecl &job) {
  ensureChecked(&job);
  for (auto &l : schedule.labeled) {
    error(l.labelRange) << "job '" << job.name
                        << "' has no labels; only algorithm loops can be "
                           "labelled";
    for (ast::Prop &p : l.props)
      checkLoose(*this, p.value.get());
  }
  if (job.action != model::stringifyJobAction(model::JobAction::Finetune)) {
    error(schedule.nameRange)
        << "schedules of jobs apply to finetune jobs, not to " << job.action
        << " job '" << job.name << "'";
    for (ast::Prop &p : schedule.props)
      checkLoose(*this, p.value.get());
    return;
  }
  auto given =
      OptionChecker(*this, "option", "the schedule of job '" + job.name + "'",
                    schedule.nameRange)
          .run(itemsOf(schedule.props), jobScheduleSpecs());
  auto tier = [&](const char *key) -> std::optional<model::Tier> {
    auto it = given.find(key);
    auto *n = it == given.end()
                  ? nullptr
                  : llvm::dyn_cast_or_null<ast::NameExpr>(it->second);
    return n ? model::symbolizeTier(n->name) : std::nullopt;
  };
  std::optional<model::Tier> grads = tier("grads"), opt = tier("optimizer");
  if (opt == model::Tier::Gpu)
    error(given["optimizer"]->range)
        << "optimizer states are not planned on the gpu (the planner "
           "offloads them); expected cpu, nvme or csd";
  if (grads == model::Tier::Gpu || grads == model::Tier::Nvme)
    error(given["grads"]->range)
        << "gradients go to the optimizer: cpu (updated by the CPU) or csd "
           "(updated on computational storage), got "
        << model::stringifyTier(*grads);
  else if (grads && opt && opt != model::Tier::Gpu &&
           (*grads == model::Tier::Csd) != (*opt == model::Tier::Csd))
    error(given["grads"]->range)
        << "grads: " << model::stringifyTier(*grads) << " needs optimizer: "
        << (*grads == model::Tier::Csd ? "csd" : "cpu or nvme")
        << " (gradients are updated where the optimizer states live)";
  // What the job sets itself is not set again by its schedule.
  for (ast::Prop &jp : job.props)
    if (auto it = given.find(jp.name); it != given.end() && it->second) {
      auto diag = error(it->second->range)
                  << "'" << jp.name << "' is set by job '" << job.name
                  << "' and by its schedule";
      note(diag, jp.nameRange, "job '" + job.name + "' sets it here");
    }
  const Value *micro = argValue(*this, given, "micro_batch");
  for (ast::Prop &jp : job.props)
    if (jp.name == "batch")
      if (const Value *batch = valueOf(jp.value.get());
          batch && micro && batch->kind == Value::Kind::Int && batch->i > 0 &&
          micro->i > 0 && batch->i % micro->i != 0)
        error(given["micro_batch"]->range)
            << "batch (" << batch->i << ") of job '" << job.name
            << "' must be divisible by micro_batch (" << micro->i << ")";
}
