//===- Error.cpp - Status codes and error details -------------------------===//
//
// The C entry points sluice_status_message(), sluice_error_clear() and
// sluice_error_format(), and the internal helpers that fill sluice_error_t.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/Error.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

using namespace sluice::rt;

namespace {

/// Copies `text` into a fixed buffer, NUL terminated, truncated to fit.
template <size_t N> void copyTruncated(char (&dst)[N], std::string_view text) {
  size_t n = text.size() < N - 1 ? text.size() : N - 1;
  if (n)
    std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

} // namespace

#define SLUICE_STR2(x) #x
#define SLUICE_STR(x) SLUICE_STR2(x)

extern "C" uint32_t sluice_runtime_version(void) {
  return SLUICE_RUNTIME_VERSION_MAJOR * 1000 + SLUICE_RUNTIME_VERSION_MINOR;
}

extern "C" const char *sluice_runtime_version_string(void) {
  return SLUICE_STR(SLUICE_RUNTIME_VERSION_MAJOR) "." SLUICE_STR(
      SLUICE_RUNTIME_VERSION_MINOR);
}

extern "C" const char *sluice_status_message(sluice_status_t status) {
  switch (enumValue(status)) {
  case SLUICE_STATUS_OK:
    return "ok";
  case SLUICE_STATUS_INVALID_ARGUMENT:
    return "invalid argument";
  case SLUICE_STATUS_NOT_FOUND:
    return "not found";
  case SLUICE_STATUS_PERMISSION_DENIED:
    return "permission denied";
  case SLUICE_STATUS_IO_ERROR:
    return "i/o error";
  case SLUICE_STATUS_PARSE_ERROR:
    return "parse error";
  case SLUICE_STATUS_DATA_CORRUPT:
    return "corrupt data";
  case SLUICE_STATUS_UNSUPPORTED:
    return "unsupported";
  case SLUICE_STATUS_OUT_OF_RANGE:
    return "out of range";
  case SLUICE_STATUS_OUT_OF_MEMORY:
    return "out of memory";
  case SLUICE_STATUS_FAILED_PRECONDITION:
    return "failed precondition";
  case SLUICE_STATUS_INTERNAL:
    return "internal error";
  }
  return "unknown status";
}

extern "C" void sluice_error_clear(sluice_error_t *error) {
  if (!error)
    return;
  error->status = SLUICE_STATUS_OK;
  error->line = 0;
  error->column = 0;
  error->byte_offset = 0;
  error->path[0] = '\0';
  error->message[0] = '\0';
}

extern "C" size_t sluice_error_format(const sluice_error_t *error, char *buffer,
                                      size_t capacity) {
  std::string text;
  if (!error) {
    text = "no error details";
  } else {
    text = error->path;
    if (error->line) {
      text += ':' + std::to_string(error->line);
      if (error->column)
        text += ':' + std::to_string(error->column);
    } else if (error->byte_offset) {
      text += ": byte " + std::to_string(error->byte_offset);
    }
    if (!text.empty())
      text += ": ";
    text += error->message[0] ? error->message
                              : sluice_status_message(error->status);
  }
  if (buffer && capacity) {
    size_t n = text.size() < capacity - 1 ? text.size() : capacity - 1;
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return text.size();
}

sluice_status_t sluice::rt::fail(sluice_error_t *error, sluice_status_t status,
                                 const ErrorLocation &where,
                                 const std::string &message) {
  if (error) {
    error->status = status;
    error->line = where.line;
    error->column = where.column;
    error->byte_offset = where.byteOffset;
    copyTruncated(error->path, where.path);
    copyTruncated(error->message, message);
  }
  return status;
}

sluice_status_t sluice::rt::statusFromErrno(int err) {
  switch (err) {
  case ENOENT:
  case ENOTDIR:
    return SLUICE_STATUS_NOT_FOUND;
  case EACCES:
  case EPERM:
  case EROFS:
    return SLUICE_STATUS_PERMISSION_DENIED;
  case ENOMEM:
    return SLUICE_STATUS_OUT_OF_MEMORY;
  default:
    return SLUICE_STATUS_IO_ERROR;
  }
}

sluice_status_t sluice::rt::failErrno(sluice_error_t *error, int err,
                                      std::string_view path,
                                      const std::string &what) {
  return fail(error, statusFromErrno(err), {path},
              what + ": " + std::strerror(err));
}

std::string sluice::rt::quote(std::string_view token) {
  constexpr size_t maxShown = 40;
  std::string out = "'";
  size_t shown = 0;
  for (unsigned char c : token) {
    if (shown == maxShown) {
      out += "...";
      break;
    }
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
    ++shown;
  }
  out += "'";
  return out;
}

sluice_status_t sluice::rt::failOutOfMemory(sluice_error_t *error,
                                            std::string_view path) {
  return fail(error, SLUICE_STATUS_OUT_OF_MEMORY, {path},
              "out of memory (an allocation failed)");
}

sluice_status_t sluice::rt::failInternal(sluice_error_t *error,
                                         std::string_view path,
                                         const char *what) {
  return fail(error, SLUICE_STATUS_INTERNAL, {path},
              std::string("internal error: ") + what);
}

std::string sluice::rt::hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx",
                static_cast<unsigned long long>(value));
  return text;
}

std::string sluice::rt::formatFloat(float value) {
  char text[32];
  auto result = std::to_chars(text, text + sizeof(text), value);
  return std::string(text, result.ptr);
}
