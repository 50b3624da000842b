//===- SemaAdversarial.cpp - Adversarial training options of train jobs ---===//
//
// `train` jobs of a transformer may train adversarially (docs/language.md,
// "Adversarial training"; docs/adversarial.md): `adversarial: pgd | dbac |
// peeraid`, PGD's `pgd_steps`, `epsilon` and `step_size`, the attacked
// `attack_fraction` (DBAC: the schedule's start, `attack_fraction_end` its
// end, over the job's `steps`), DBAC's `pseudo_batches`, and PeerAiD's
// `peer` model. The rules checked here:
//
//  * every other option needs `adversarial`;
//  * `attack_fraction_end` and `pseudo_batches` are DBAC's, `peer` is
//    PeerAiD's (and PeerAiD needs one: a transformer);
//  * fractions are in [0, 1], and DBAC's grows;
//  * DBAC needs `steps` (its schedule spans them).
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"

#include "frontends/sluice/SemaOptions.h"

using namespace sluice;
using namespace sluice::sema;

namespace {

const llvm::StringRef kTechniques[] = {"pgd", "dbac", "peeraid"};

/// The options that only mean something with `adversarial`.
const llvm::StringRef kDependent[] = {
    "pgd_steps",           "epsilon",        "step_size", "attack_fraction",
    "attack_fraction_end", "pseudo_batches", "peer"};

} // namespace

void sluice::sema::appendAdversarialOptions(std::vector<OptionSpec> &specs) {
  specs.push_back(word("adversarial", kTechniques));
  specs.push_back(upTo("pgd_steps", 1000));
  specs.push_back(pos("epsilon", OptKind::Float));
  specs.push_back(pos("step_size", OptKind::Float));
  specs.push_back(opt("attack_fraction", OptKind::Float));
  specs.push_back(opt("attack_fraction_end", OptKind::Float));
  specs.push_back(upTo("pseudo_batches", 1024));
  specs.push_back(opt("peer", OptKind::Model));
}

void Sema::checkAdversarialJob(
    const std::map<std::string, ast::Expr *> &given) {
  auto known = [&](llvm::StringRef name) -> ast::Expr * {
    auto it = given.find(name.str());
    return it != given.end() && it->second && !it->second->type.isUnknown()
               ? it->second
               : nullptr;
  };
  ast::Expr *technique = known("adversarial");
  std::string kind;
  if (technique)
    if (auto *n = llvm::dyn_cast<ast::NameExpr>(technique))
      kind = n->name;
  if (!given.count("adversarial")) {
    for (llvm::StringRef name : kDependent)
      if (ast::Expr *e = known(name))
        error(e->range) << "option '" << name
                        << "' needs 'adversarial: pgd, dbac or peeraid'";
    return;
  }
  if (kind.empty())
    return; // reported by the option checker
  for (llvm::StringRef name : {"attack_fraction_end", "pseudo_batches"})
    if (ast::Expr *e = known(name); e && kind != "dbac")
      error(e->range) << "option '" << name
                      << "' belongs to DBAC's batch-level attack control; it "
                         "needs 'adversarial: dbac', got '"
                      << kind << "'";
  ast::Expr *peer = known("peer");
  if (peer && kind != "peeraid")
    error(peer->range) << "option 'peer' is PeerAiD's peer network; it needs "
                          "'adversarial: peeraid', got '"
                       << kind << "'";
  if (kind == "peeraid" && !given.count("peer"))
    error(technique->range)
        << "adversarial: peeraid needs 'peer' (the network trained beside "
           "the student, a transformer model)";
  if (peer && kind == "peeraid")
    if (auto *n = llvm::dyn_cast<ast::NameExpr>(peer))
      if (Symbol *sym = lookupGlobal(n->name);
          sym && modelKind(sym) != "transformer")
        error(peer->range) << "peer '" << n->name << "' is a " << modelKind(sym)
                           << " model; PeerAiD's peer must be a transformer";

  // The fractions, and as written (for the message).
  std::optional<double> start, end;
  std::string startText, endText;
  for (llvm::StringRef name : {"attack_fraction", "attack_fraction_end"}) {
    ast::Expr *e = known(name);
    const Value *v = e ? valueOf(e) : nullptr;
    if (!v || !v->asNumber())
      continue;
    const double f = *v->asNumber();
    if (!(f >= 0 && f <= 1)) {
      error(e->range) << "option '" << name << "' must be in [0, 1], got "
                      << formatValue(*v, e->type);
      continue;
    }
    const bool first = name == "attack_fraction";
    (first ? start : end) = f;
    (first ? startText : endText) = formatValue(*v, e->type);
  }
  if (kind == "dbac" && start && end && *start > *end)
    error(known("attack_fraction")->range)
        << "DBAC's attacked fraction grows: attack_fraction (" << startText
        << ") is above attack_fraction_end (" << endText << ")";
  if (kind == "dbac" && !given.count("steps"))
    error(technique->range) << "adversarial: dbac needs 'steps' (the attack "
                               "schedule spans the job's steps)";
}
