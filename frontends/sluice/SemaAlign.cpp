//===- SemaAlign.cpp - Checking align jobs --------------------------------===//
//
// `job NAME = align extension on TOPOLOGY { query: "q.fa", target: "t.fa",
// ... }` (docs/align.md): the subject is the alignment mode (only
// `extension`, minimap2's guided extension), the target a topology, and
// the options the two FASTA files and the scoring. The option table is in
// SemaSchemas.cpp (alignOptions); the ranges are those of the seq dialect's
// verifier and of sluice_align_check_scoring.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/SemaInternal.h"
#include "frontends/sluice/SemaOptions.h"

using namespace sluice;
using namespace sluice::sema;

void Sema::checkAlignJob(ast::JobDecl &job, llvm::ArrayRef<OptionSpec> specs) {
  if (job.subject != "extension")
    error(job.subjectRange)
        << "unknown alignment mode '" << job.subject << "'"
        << didYouMean(job.subject, {"extension"})
        << " (expected: extension, minimap2's guided extension)";
  Symbol *target = lookupGlobal(job.target);
  if (!target) {
    error(job.targetRange) << "unknown name '" << job.target << "'"
                           << didYouMean(job.target,
                                         globalNames({SymKind::Topology}));
  } else if (target->kind != SymKind::Topology) {
    auto diag = error(job.targetRange)
                << "align runs on a topology; '" << job.target << "' is "
                << describeA(target->kind);
    note(diag, target->range, "'" + job.target + "' is declared here");
  }
  OptionChecker options(*this, "option", "align job '" + job.name + "'",
                        job.nameRange);
  auto given = options.run(itemsOf(job.props), specs);
  // The range the option table cannot state.
  if (const Value *open = argValue(*this, given, "gap_open");
      open && open->i < 0)
    error(given["gap_open"]->range)
        << "option 'gap_open' must not be negative, got " << open->i;
}
