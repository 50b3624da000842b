/*===- sluice/runtime.h - libsluicert: status codes and error details -----===*
 *
 * The embeddable Sluice runtime has a C ABI: opaque handles, explicit status
 * codes, no exceptions and no global state. Every call that can fail
 * returns a sluice_status_t and takes an optional caller-owned
 * sluice_error_t* (NULL when the caller does not want details) that receives
 * what went wrong, where (file, line, column or byte offset) and why.
 *
 * Thread safety: functions that create or destroy a handle may run
 * concurrently on different handles; queries on one handle may run
 * concurrently from many threads; an error struct belongs to one caller.
 *
 * See docs/runtime.md.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_H
#define SLUICE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define SLUICE_API
#else
#define SLUICE_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the runtime library (not of the binary graph format). */
#define SLUICE_RUNTIME_VERSION_MAJOR 0
#define SLUICE_RUNTIME_VERSION_MINOR 3

/* The version of the runtime library actually linked (the macros above are
 * the version of the headers a program was built with): major * 1000 +
 * minor, and "MAJOR.MINOR". */
SLUICE_API uint32_t sluice_runtime_version(void);
SLUICE_API const char *sluice_runtime_version_string(void);

/* Result of every fallible call. SLUICE_STATUS_OK is 0; every other value
 * is an error and the call's outputs are left untouched (no handle is
 * created, no file is left behind). */
typedef enum sluice_status_e {
  SLUICE_STATUS_OK = 0,
  /* A NULL pointer, an unknown enum value or inconsistent options. */
  SLUICE_STATUS_INVALID_ARGUMENT = 1,
  /* The input file (or the directory of an output file) does not exist. */
  SLUICE_STATUS_NOT_FOUND = 2,
  /* The operating system refused access to a file or directory. */
  SLUICE_STATUS_PERMISSION_DENIED = 3,
  /* Reading or writing failed (disk full, file too large, fsync failed...). */
  SLUICE_STATUS_IO_ERROR = 4,
  /* A text input (edge list, Matrix Market, label file) is malformed. */
  SLUICE_STATUS_PARSE_ERROR = 5,
  /* A binary input is malformed: bad magic, truncated, inconsistent. */
  SLUICE_STATUS_DATA_CORRUPT = 6,
  /* Well-formed input that this runtime does not support (format version,
   * Matrix Market 'complex' or 'array', big-endian hosts). */
  SLUICE_STATUS_UNSUPPORTED = 7,
  /* A value does not fit (vertex id beyond 32 bits, id beyond int32 in an
   * int32 .npy file, vertex id not in the graph). */
  SLUICE_STATUS_OUT_OF_RANGE = 8,
  /* An allocation failed. */
  SLUICE_STATUS_OUT_OF_MEMORY = 9,
  /* A call on a handle in the wrong state (append after close). */
  SLUICE_STATUS_FAILED_PRECONDITION = 10,
  /* A bug in the runtime; please report it with the error message. */
  SLUICE_STATUS_INTERNAL = 11
} sluice_status_t;

/* A short lower-case description of a status code ("parse error"); never
 * NULL, "unknown status" for values outside the enum. */
SLUICE_API const char *sluice_status_message(sluice_status_t status);

/* What went wrong in one call. Caller-owned: declare one on the stack, pass
 * its address, read it when the call returns an error. A successful call
 * resets it (status OK, empty message). Strings are NUL-terminated and
 * truncated to fit. */
typedef struct sluice_error_t {
  sluice_status_t status;
  /* 1-based line and column in `path` for text inputs; 0 when unknown or
   * not applicable (binary files, options). */
  uint64_t line;
  uint64_t column;
  /* Byte offset in `path` for binary inputs; 0 when not applicable. */
  uint64_t byte_offset;
  /* The file the error is about (may be empty). */
  char path[1024];
  /* What was wrong, lower case, no trailing period:
   * "expected a vertex id, got 'abc'". */
  char message[512];
} sluice_error_t;

/* Resets `error` to status OK with empty strings. NULL is allowed. */
SLUICE_API void sluice_error_clear(sluice_error_t *error);

/* Formats `error` as "path:line:column: message" (parts that are unknown are
 * left out; binary inputs give "path: byte N: message") into `buffer`, NUL
 * terminated and truncated to `capacity`. Returns the length the full text
 * would have (like snprintf). */
SLUICE_API size_t sluice_error_format(const sluice_error_t *error, char *buffer,
                                      size_t capacity);

/* Progress reporting for long operations (graph loads). The runtime calls it
 * with one human-readable line (no trailing newline). When no callback is
 * given the line goes to stderr. */
typedef void (*sluice_progress_fn_t)(void *user_data, const char *line);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_RUNTIME_H */
