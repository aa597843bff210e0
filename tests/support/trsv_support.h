/* Triangular-solve test support: triangles of awkward shapes and vectors
 * moved between the host and a backend's memory through its operation
 * table (tests of the omp and cuda trsv against ref's substitution). */
#ifndef KRYL_TEST_TRSV_SUPPORT_H
#define KRYL_TEST_TRSV_SUPPORT_H

#include "backends/backend.h"
#include "test_support.h"

/* A vector of n entries of `precision` in ctx's memory (data NULL on failure). */
struct kryl_vector_s test_trsv_vector(kryl_context ctx, int64_t n, kryl_precision precision);

/* v = scale * b in v's precision (buf: host scratch of n entries). */
void test_trsv_upload(kryl_context ctx, struct kryl_vector_s *v, const double *b, double scale,
                      void *buf);

/* x = v in double. */
void test_trsv_download(kryl_context ctx, const struct kryl_vector_s *v, void *buf, double *x);

/* The `lower` (or upper) triangle of a random n x n matrix, with a diagonal
 * dominating each row unless unit (then no diagonal is stored). */
void test_random_triangle(kryl_csr *T, int64_t n, bool lower, bool unit, uint64_t seed);

/* A triangle of order n (diagonal 4 unless unit) whose only off-diagonal
 * entries are `dense` (row n-1 of a lower, row 0 of an upper triangle
 * coupled to every other row) or a chain (t_{i,i-1}, or t_{i,i+1}: a
 * level per row). */
void test_shaped_triangle(kryl_csr *T, int64_t n, bool lower, bool unit, bool dense);

#endif
