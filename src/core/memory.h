/* The host memory kryl may plan to use for one matrix it reads or
 * generates, checked before arrays sized by a file's header or a
 * generator's size are allocated. */
#ifndef KRYL_CORE_MEMORY_H
#define KRYL_CORE_MEMORY_H

#include "kryl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The limit in bytes (-1: no limit) and, in *source, where it comes from
 * ("kryl_set_max_memory", "KRYL_MAX_MEMORY", "available memory (MemAvailable)"). */
int64_t kryl_memory_limit(const char **source);

/* KRYL_ERR_OUT_OF_MEMORY when `bytes` exceed the limit: "WHAT needs N
 * bytes (...), more than the M bytes of SOURCE ...".  `what` names the
 * file and line or the object. */
kryl_status kryl_memory_check(int64_t bytes, const char *what);

/* kryl_solver_check_memory (solvers/memory_estimate.c); with matrix_held,
 * the matrix is already in host memory (read from a file), so its CSR
 * bytes are not asked of the host again and the count of entries is exact. */
kryl_status kryl_solver_check_memory_read(kryl_context ctx, int64_t nrows, int64_t nnz,
                                          const kryl_solver_options *options, const char *what,
                                          bool matrix_held, kryl_memory_estimate *estimate);

/* "172 kB", "34.4 GB": bytes in decimal units for messages, written to text. */
const char *kryl_format_bytes(char *text, size_t size, int64_t bytes);

/* dst = src (bytes), in pieces of 256 KiB on `threads` host threads. */
void kryl_host_copy(void *dst, const void *src, size_t bytes, int threads);

/* a * b + c, saturating at INT64_MAX (a, b, c >= 0). */
int64_t kryl_bytes_mul_add(int64_t a, int64_t b, int64_t c);

#ifdef __cplusplus
}
#endif

#endif
