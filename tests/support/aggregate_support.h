/* Checks of a backend's AMG aggregation (backend.h: amg_aggregate) against
 * the host's code on one thread, shared by test_amg_aggregate (ref, omp)
 * and test_cuda_amg_aggregate. */
#ifndef KRYL_TEST_AGGREGATE_SUPPORT_H
#define KRYL_TEST_AGGREGATE_SUPPORT_H

#include "core/csr.h"
#include "kryl.h"

/* ctx's amg_aggregate of a copy of the square A (host CSR, rows sorted) on
 * ctx, as double CSR in the natural order, as a hierarchy's first level and
 * as a coarser one: the oracle's aggregates and
 * count (amg_strength and amg_aggregate_parallel on one thread), every
 * aggregate numbered 0..count-1 and holding a row, -1 exactly for the rows
 * without strong couplings. */
void test_check_aggregate(kryl_context ctx, const kryl_csr *A, double theta, bool symmetric,
                          const char *label);

/* test_check_aggregate on every awkward shape and size (their patterns are
 * not symmetric) with theta 0 and 0.25, n = 0 and 1, a graph without edges,
 * isolated rows, two disconnected grids, 2-D and 3-D grids (symmetric) and
 * the real matrices (those absent reported skipped). */
void test_aggregate_cases(kryl_context ctx);

#endif
