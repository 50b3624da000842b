//===- Error.h - Filling sluice_error_t from inside the runtime -*- C++ -*-===//
//
// Internal helpers: every fallible internal function returns a
// sluice_status_t and, on error, fills the caller's (possibly NULL)
// sluice_error_t through these. Messages are lower case with no trailing
// period and quote the offending token.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_ERROR_H
#define SLUICE_RUNTIME_SRC_ERROR_H

#include "sluice/runtime.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace sluice::rt {

/// Where an error is: a file and, for text, a 1-based line and column; for
/// binary files a byte offset.
struct ErrorLocation {
  std::string_view path;
  uint64_t line = 0;
  uint64_t column = 0;
  uint64_t byteOffset = 0;
};

/// Fills `error` (if not NULL) and returns `status`.
sluice_status_t fail(sluice_error_t *error, sluice_status_t status,
                     const ErrorLocation &where, const std::string &message);

/// Maps an errno value to a status (ENOENT -> NOT_FOUND, EACCES/EPERM/EROFS
/// -> PERMISSION_DENIED, ENOMEM -> OUT_OF_MEMORY, else IO_ERROR).
sluice_status_t statusFromErrno(int err);

/// fail() with statusFromErrno(err) and "<what>: <strerror(err)>".
sluice_status_t failErrno(sluice_error_t *error, int err, std::string_view path,
                          const std::string &what);

/// A token as it appears in a message: quoted, non-printable bytes escaped
/// as \xNN, cut to 40 characters with "...".
std::string quote(std::string_view token);

/// The integer in an enum argument or field, read without loading it as the
/// enum type: a C caller may pass any int, which C++ may not hold in the enum.
template <typename Enum> int64_t enumValue(const Enum &field) {
  std::underlying_type_t<Enum> value;
  std::memcpy(&value, &field, sizeof(value));
  return static_cast<int64_t>(value);
}

/// "0x1f".
std::string hex(uint64_t value);

/// The shortest text that reads back as `value`: "-1", "0.25", "1e+30".
std::string formatFloat(float value);

/// Runs `body` (returning sluice_status_t) and turns C++ exceptions into
/// status codes, so that none crosses the C ABI.
template <typename Body>
sluice_status_t guarded(sluice_error_t *error, std::string_view path,
                        Body &&body) noexcept;

sluice_status_t failOutOfMemory(sluice_error_t *error, std::string_view path);
sluice_status_t failInternal(sluice_error_t *error, std::string_view path,
                             const char *what);

} // namespace sluice::rt

#include <new>
#include <stdexcept>

template <typename Body>
sluice_status_t sluice::rt::guarded(sluice_error_t *error,
                                    std::string_view path,
                                    Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return failOutOfMemory(error, path);
  } catch (const std::length_error &) {
    return failOutOfMemory(error, path);
  } catch (const std::exception &e) {
    return failInternal(error, path, e.what());
  } catch (...) {
    return failInternal(error, path, "unknown exception");
  }
}

#endif // SLUICE_RUNTIME_SRC_ERROR_H
