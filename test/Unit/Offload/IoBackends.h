//===- IoBackends.h - The I/O backends a test runs under -------*- C++ -*-===//
#ifndef SLUICE_TEST_UNIT_OFFLOAD_IOBACKENDS_H
#define SLUICE_TEST_UNIT_OFFLOAD_IOBACKENDS_H

#include "sluice/io.h"

#include <gtest/gtest.h>
#include <vector>

namespace sluice::test {

/// The thread-pool backend, and io_uring where an engine with default
/// options picks it on this kernel.
inline std::vector<sluice_io_backend_t> ioBackends() {
  std::vector<sluice_io_backend_t> list = {SLUICE_IO_BACKEND_THREADS};
  sluice_io_options_t o;
  sluice_io_options_init(&o);
  sluice_io_engine_t *e = nullptr;
  if (sluice_io_engine_create(&o, &e, nullptr) == SLUICE_STATUS_OK &&
      sluice_io_engine_backend(e) == SLUICE_IO_BACKEND_URING)
    list.push_back(SLUICE_IO_BACKEND_URING);
  sluice_io_engine_destroy(e);
  return list;
}

/// The test-name suffix of a backend parameter.
inline const char *
ioBackendName(const testing::TestParamInfo<sluice_io_backend_t> &i) {
  return i.param == SLUICE_IO_BACKEND_URING ? "uring" : "threads";
}

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_OFFLOAD_IOBACKENDS_H
