//===- FuzzBinaryCsr.cpp - Fuzz target: binary CSR files ------------------===//
//
// sluice_graph_load on a binary CSR file (runtime/src/BinaryCsr.h), mapped
// from a memfd. The first byte: bit 0 set makes the target rewrite the
// header's CRC-32 to match (else the fuzzer rarely gets past the checksum
// to the section and array checks); bits 1-4 are load flags and bit 5
// SUM_DUPLICATES, which a binary file must satisfy. The rest is the file. A
// graph that loads is walked by checkGraph: the validating pass must have
// caught every broken invariant.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-fuzz-readers/GraphFuzzSupport.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>
#include <zlib.h>

namespace {
// The header layout of runtime/src/BinaryCsr.h.
constexpr size_t kHeaderBytes = 128, kAtChecksum = 100;

void fixChecksum(std::vector<unsigned char> &file) {
  if (file.size() < kHeaderBytes)
    return;
  unsigned char header[kHeaderBytes];
  std::memcpy(header, file.data(), kHeaderBytes);
  std::memset(header + kAtChecksum, 0, 4);
  uint32_t crc = static_cast<uint32_t>(crc32(0L, header, kHeaderBytes));
  for (int i = 0; i < 4; ++i)
    file[kAtChecksum + i] = static_cast<unsigned char>(crc >> (8 * i));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sluice::fuzz::MemFile file("fuzz-csr");
  if (size < 1)
    return 0;
  std::vector<unsigned char> bytes(data + 1, data + size);
  if (data[0] & 1)
    fixChecksum(bytes);
  sluice_graph_load_options_t options;
  sluice_graph_load_options_init(&options);
  options.format =
      (data[0] & 0x80) ? SLUICE_GRAPH_FORMAT_AUTO : SLUICE_GRAPH_FORMAT_BINARY;
  options.flags = ((data[0] >> 1) & 0x0f) | SLUICE_GRAPH_LOAD_QUIET;
  if (data[0] & 0x20)
    options.flags |= SLUICE_GRAPH_LOAD_SUM_DUPLICATES;
  options.weights =
      (data[0] & 0x40) ? SLUICE_WEIGHTS_COLUMN : SLUICE_WEIGHTS_NONE;
  const char *path = file.assign(bytes.data(), bytes.size());
  sluice::fuzz::loadAndCheck(path, options);
  return 0;
}
