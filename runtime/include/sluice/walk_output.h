/*===- sluice/walk_output.h - libsluicert: writing random walks -----------===*
 *
 * Writers for the walks a walk engine produces: a text corpus (one walk per
 * line, vertex ids separated by single spaces, '\n' after every walk; what
 * word2vec and gensim's LineSentence read) or a NumPy .npy file (a 2-D
 * C-order array of int32 or int64 with shape (num_walks, walk_length);
 * walks that ended early are padded with SLUICE_WALK_NPY_PADDING).
 *
 * Walks arrive in batches, row-major: walk i of a batch is
 * vertices[i * walk_length .. i * walk_length + lengths[i]). Output goes to
 * a temporary file in the destination directory and appears under its name
 * only when sluice_walk_writer_commit() has written, fsync'd and renamed it:
 * an error or a released, uncommitted writer never leaves a partial file.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_WALK_OUTPUT_H
#define SLUICE_WALK_OUTPUT_H

#include "sluice/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sluice_walk_format_e {
  SLUICE_WALK_FORMAT_TEXT = 0,      /* "3 17 5\n" per walk */
  SLUICE_WALK_FORMAT_NPY_INT32 = 1, /* .npy, dtype '<i4' */
  SLUICE_WALK_FORMAT_NPY_INT64 = 2  /* .npy, dtype '<i8' */
} sluice_walk_format_t;

/* The .npy value after the last vertex of a walk that ended early. */
#define SLUICE_WALK_NPY_PADDING (-1)

/* Writer flags. */
enum {
  /* Write each vertex's original id (sluice_graph_original_id) instead of
   * its CSR id; needs the graph. */
  SLUICE_WALK_WRITE_ORIGINAL_IDS = 1u << 0
};

typedef struct sluice_walk_writer_t sluice_walk_writer_t;

/* Starts writing walks of at most `walk_length` (>= 1) vertices to `path`.
 * `graph` (may be NULL unless ORIGINAL_IDS is set) is used to check that
 * vertex ids are in range and to map them; it must outlive the writer. A
 * `path` that is (by device and inode: links too) a file `graph` was loaded
 * from, its graph or a label file, is INVALID_ARGUMENT before anything is
 * created. */
SLUICE_API sluice_status_t sluice_walk_writer_open(
    const char *path, sluice_walk_format_t format, uint32_t walk_length,
    uint32_t flags, const sluice_graph_t *graph,
    sluice_walk_writer_t **out_writer, sluice_error_t *error);

/* Appends `count` walks. `lengths` (count entries, each <= walk_length) may
 * be NULL when every walk has walk_length vertices. The batch is checked
 * before anything is written: an invalid batch (length too large, vertex out
 * of range, id too large for int32) is rejected whole and the writer stays
 * usable. An I/O error makes the writer failed: later calls return
 * FAILED_PRECONDITION and only release remains. */
SLUICE_API sluice_status_t sluice_walk_writer_append(
    sluice_walk_writer_t *writer, const uint32_t *vertices,
    const uint32_t *lengths, uint64_t count, sluice_error_t *error);

/* Writes the walks in a shuffled order instead of the order they are
 * appended: a Fisher-Yates permutation drawn from `seed` (splitmix64), the
 * same for the same walks and seed, so runs are reproducible. The walks
 * are held in memory (4 bytes a vertex, walk_length per walk) until commit
 * writes them. Call before the first append (FAILED_PRECONDITION after).
 * For training embeddings from walks in an order that does not follow the
 * start vertices. */
SLUICE_API sluice_status_t sluice_walk_writer_shuffle(
    sluice_walk_writer_t *writer, uint64_t seed, sluice_error_t *error);

/* Number of walks appended so far. */
SLUICE_API uint64_t
sluice_walk_writer_num_walks(const sluice_walk_writer_t *writer);

/* Finishes the file (the .npy header gets the final row count), fsyncs it
 * and renames it to its path. After commit only release is allowed. */
SLUICE_API sluice_status_t
sluice_walk_writer_commit(sluice_walk_writer_t *writer, sluice_error_t *error);

/* Frees the writer; an uncommitted output is deleted. NULL is allowed. */
SLUICE_API void sluice_walk_writer_release(sluice_walk_writer_t *writer);

/* One call: open, append all walks, commit. */
SLUICE_API sluice_status_t sluice_walks_write(
    const char *path, sluice_walk_format_t format, const uint32_t *vertices,
    const uint32_t *lengths, uint64_t num_walks, uint32_t walk_length,
    uint32_t flags, const sluice_graph_t *graph, sluice_error_t *error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_WALK_OUTPUT_H */
