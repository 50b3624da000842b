//===- Fasta.h - Reading FASTA files for sluice_align_fasta -----*- C++ -*-===//
//
// A FASTA file: records of a '>' header line (the id is its first word)
// followed by sequence lines. Letters A C G T N (either case) are bases;
// blank lines are skipped; '\r' before a newline is dropped. Anything else
// is a parse error at its line and column, as is text before the first
// header, a header with no id and a record with no bases. Gzip'd files are
// read too (LineReader).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_ALIGN_FASTA_H
#define SLUICE_RUNTIME_SRC_ALIGN_FASTA_H

#include "sluice/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::rt::align {

struct FastaRecord {
  std::string id;
  std::string bases;
  /// The line of the record's header (for messages about the record).
  uint64_t line = 0;
};

/// The longest sequence sluice_align_* accepts (2^20 bases: scores stay
/// far from the int32 -infinity).
constexpr uint32_t kMaxSequenceLength = 1u << 20;

/// Reads every record of `path`.
sluice_status_t readFasta(const std::string &path,
                          std::vector<FastaRecord> &records,
                          sluice_error_t *error);

} // namespace sluice::rt::align

#endif // SLUICE_RUNTIME_SRC_ALIGN_FASTA_H
