//===- Fasta.cpp - Reading FASTA files for sluice_align_fasta -------------===//
#include "runtime/src/align/Fasta.h"

#include "runtime/src/Error.h"
#include "runtime/src/LineReader.h"

namespace sluice::rt::align {

static bool isBase(char c) {
  switch (c) {
  case 'A':
  case 'C':
  case 'G':
  case 'T':
  case 'N':
  case 'a':
  case 'c':
  case 'g':
  case 't':
  case 'n':
    return true;
  default:
    return false;
  }
}

sluice_status_t readFasta(const std::string &path,
                          std::vector<FastaRecord> &records,
                          sluice_error_t *error) {
  LineReader reader;
  if (sluice_status_t s = reader.open(path, error))
    return s;
  auto parseError = [&](uint64_t line, uint64_t column,
                        const std::string &message) {
    return fail(error, SLUICE_STATUS_PARSE_ERROR, {path, line, column, 0},
                message);
  };
  auto checkLast = [&]() -> sluice_status_t {
    if (!records.empty() && records.back().bases.empty())
      return parseError(records.back().line, 1,
                        "record '" + records.back().id + "' has no bases");
    return SLUICE_STATUS_OK;
  };
  std::string_view line;
  sluice_status_t status = SLUICE_STATUS_OK;
  while (reader.next(line, status, error)) {
    uint64_t number = reader.lineNumber();
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty())
      continue;
    if (line.front() == '>') {
      if (sluice_status_t s = checkLast())
        return s;
      size_t start = line.find_first_not_of(" \t", 1);
      if (start == std::string_view::npos)
        return parseError(number, 1, "expected a sequence id after '>'");
      size_t end = line.find_first_of(" \t", start);
      FastaRecord record;
      record.id = std::string(line.substr(start, end - start));
      record.line = number;
      records.push_back(std::move(record));
      continue;
    }
    if (records.empty())
      return parseError(number, 1,
                        "expected a '>' header line before the bases, got " +
                            quote(line.substr(0, 20)));
    FastaRecord &record = records.back();
    for (size_t k = 0; k < line.size(); ++k)
      if (!isBase(line[k]))
        return parseError(number, k + 1,
                          "expected a base (A, C, G, T or N), got " +
                              quote(line.substr(k, 1)));
    if (record.bases.size() + line.size() > kMaxSequenceLength)
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {path, record.line, 1, 0},
                  "record '" + record.id + "' is longer than " +
                      std::to_string(kMaxSequenceLength) + " bases");
    record.bases.append(line);
  }
  if (status != SLUICE_STATUS_OK)
    return status;
  if (sluice_status_t s = checkLast())
    return s;
  if (records.empty())
    return parseError(0, 0, "no FASTA record");
  return SLUICE_STATUS_OK;
}

} // namespace sluice::rt::align
