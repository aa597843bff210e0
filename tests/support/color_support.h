/* Checks of a backend's colorings (backend.h: Jones-Plassmann's
 * color_rows and color_group, first fit's color_first_fit) against the
 * serial oracles, shared by test_color_rows (ref, omp) and test_cuda_color. */
#ifndef KRYL_TEST_COLOR_SUPPORT_H
#define KRYL_TEST_COLOR_SUPPORT_H

#include "core/csr.h"
#include "kryl.h"

/* ctx's color_rows and color_group on the pattern of the square A (host
 * CSR, copied to ctx's memory): the oracle's colors (kryl_color_jp_serial),
 * a valid coloring (kryl_order_color_check), the oracle's grouping; then
 * its csr_permute (B = P A P^T in that color order) and mcsweep (z =
 * M^{-1} r) against the host's (the ref backend's). */
void test_check_color_rows(kryl_context ctx, const kryl_csr *A, const char *label);

/* test_check_color_rows on every awkward shape and size, patterns that are
 * not symmetric, n = 0 and 1, a graph without edges, a complete graph of
 * 150 rows (more than 64 colors), 2-D and 3-D grids and the real matrices
 * (those absent reported skipped). */
void test_color_rows_cases(kryl_context ctx);

/* ctx's color_first_fit on the pattern of the square A (host CSR, copied
 * to ctx's memory): kryl_color_first_fit_serial's colors; where A's
 * pattern is symmetric also kryl_order_color's at tau = 0, and a valid
 * coloring. */
void test_check_first_fit(kryl_context ctx, const kryl_csr *A, const char *label);

/* test_check_first_fit on the symmetrised awkward shapes and sizes, a
 * pattern that is not symmetric, n = 0 and 1, a graph without edges, a
 * path, a star, complete graphs of 150 and 300 rows (windows of 64 colors
 * beyond the first), a graph where first fit needs many colors at a low
 * degree, 2-D and 3-D grids and the real matrices (those absent reported
 * skipped). */
void test_first_fit_cases(kryl_context ctx);

#endif
