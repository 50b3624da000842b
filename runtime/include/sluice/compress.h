/*===- sluice/compress.h - libsluicert: measured block compression ---------===*
 *
 * The host CPU side of a storage middle tier (SmartDS, docs/flows.md
 * "Storage middle tier (SmartDS)"): compresses real blocks with zstd or lz4
 * on one core of this machine and reports the compression and
 * decompression rates and the ratio, so that the planner uses measured
 * rates instead of assumed ones.
 *
 * The blocks are generated deterministically from a seed with a given
 * compressibility c in [0, 1): each block is a sequence of 64-byte runs, a
 * fraction c of them (chosen by the seed) repeating an earlier run of the
 * block, the others fresh pseudo-random bytes, so an ideal codec reaches a
 * ratio of about 1 / (1 - c). Every block is decompressed again and
 * compared with its input byte for byte.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_COMPRESS_H
#define SLUICE_COMPRESS_H

#include "sluice/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sluice_compress_codec_t {
  SLUICE_COMPRESS_ZSTD = 0, /* libzstd: levels 1 to 19 */
  SLUICE_COMPRESS_LZ4 = 1,  /* liblz4: level 1 LZ4, levels 2 to 12 LZ4HC */
} sluice_compress_codec_t;

typedef struct sluice_compress_options_t {
  /* Block size in bytes, 64 B to 64 MiB. */
  uint64_t block_bytes;
  /* In [0, 1): the fraction of 64-byte runs that repeat an earlier run. */
  double compressibility;
  /* Compression level: zstd 1 to 19; lz4 1 (LZ4_compress_default) or 2 to
   * 12 (LZ4HC). */
  int level;
  /* Distinct blocks generated (they are compressed round robin), >= 1. */
  uint64_t blocks;
  /* Compress for at least this many wall seconds (and at least every block
   * once), > 0. */
  double min_seconds;
  /* Seed of the block contents. */
  uint64_t seed;
  /* The codec. */
  sluice_compress_codec_t codec;
} sluice_compress_options_t;

/* 4 KiB blocks, compressibility 0.5, level 1, 256 blocks, 0.5 s, seed 1,
 * zstd. */
SLUICE_API void
sluice_compress_options_init(sluice_compress_options_t *options);

typedef struct sluice_compress_report_t {
  /* Input bytes compressed per second on one core. */
  double compress_bytes_per_s;
  /* Output bytes decompressed per second on one core (input size). */
  double decompress_bytes_per_s;
  /* Input bytes / compressed bytes over the distinct blocks. */
  double ratio;
  /* Blocks compressed while timing, and the wall seconds they took. */
  uint64_t blocks_compressed;
  double seconds;
  /* "zstd 1.5.4", "lz4 1.9.4" */
  char codec[32];
} sluice_compress_report_t;

/* Measures as above. INVALID_ARGUMENT for options out of range,
 * DATA_CORRUPT if a block does not decompress to its input. */
SLUICE_API sluice_status_t sluice_compress_measure(
    const sluice_compress_options_t *options, sluice_compress_report_t *report,
    sluice_error_t *error);

/* Fills `out` with block `index` of the generator above. */
SLUICE_API void sluice_compress_fill_block(uint8_t *out, uint64_t bytes,
                                           double compressibility,
                                           uint64_t seed, uint64_t index);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_COMPRESS_H */
