/*
 * Reorderings of a square host CSR matrix for the preconditioners: reverse
 * Cuthill-McKee, approximate minimum degree (SuiteSparse AMD, optional),
 * greedy multicoloring with sparsification, the level schedule of a
 * triangle, and quality measures of a permutation (see docs/ORDERINGS.md).
 *
 * Every ordering works on the symmetrised pattern of A (A + A^T, diagonal
 * ignored) and needs the whole matrix on this process: a non-square A
 * gives KRYL_ERR_NOT_SQUARE, a partial row range KRYL_ERR_UNSUPPORTED.
 * A permutation follows src/formats/format.h: perm[i] = original index of
 * the row and column at position i, so the reordered matrix is P A P^T.
 */
#ifndef KRYL_ORDER_ORDER_H
#define KRYL_ORDER_ORDER_H

#include <stdbool.h>

#include "core/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* kryl_order_kind, kryl_order_name and kryl_order_from_name are public (kryl.h). */
#define KRYL_ORDER_COUNT 4

/* Whether this build has SuiteSparse AMD. */
bool kryl_order_have_amd(void);

/* Maximum-transversal row matching into perm[n] (row j of P A is row
 * perm[j] of A), *matched = the nonzero diagonal entries of P A (n when A
 * is structurally nonsingular); KRYL_ERR_UNSUPPORTED without SuiteSparse
 * BTF (match.c). */
kryl_status kryl_order_match(const kryl_csr *A, int32_t *perm, int64_t *matched);

/* Reverse Cuthill-McKee into perm[n]. */
kryl_status kryl_order_rcm(const kryl_csr *A, int32_t *perm);

/* Approximate minimum degree into perm[n]; KRYL_ERR_UNSUPPORTED when the
 * build has no SuiteSparse AMD. */
kryl_status kryl_order_amd(const kryl_csr *A, int32_t *perm);

/* The ordering `kind` into perm[n]; _on: the coloring's graph built on
 * `threads` host threads (the same perm whatever the count). */
kryl_status kryl_order_compute(const kryl_csr *A, kryl_order_kind kind, int32_t *perm);
kryl_status kryl_order_compute_on(const kryl_csr *A, kryl_order_kind kind, int threads,
                                  int32_t *perm);

/* A coloring: color[i] of original row i in [0, ncolors); perm lists the
 * rows color by color (ascending original index within a color), color c
 * at positions [color_ptr[c], color_ptr[c + 1]). */
typedef struct kryl_coloring {
    int32_t ncolors;
    int32_t *color;     /* n */
    int64_t *color_ptr; /* ncolors + 1 */
    int32_t *perm;      /* n */
} kryl_coloring;

/* Greedy first-fit coloring, rows in natural order, of the graph of the
 * couplings with |a_ij| > tau * sqrt(|a_ii a_jj|) (either a_ij or a_ji; tau
 * = 0 keeps every stored entry).  With tau > 0 it never returns more colors
 * than tau = 0 (it keeps the unsparsified coloring when that has fewer).
 * Allocates c's arrays; free with kryl_coloring_free. */
kryl_status kryl_order_color(const kryl_csr *A, double tau, kryl_coloring *c);
/* kryl_order_color with the graph built on `threads` host threads (the same coloring). */
kryl_status kryl_order_color_on(const kryl_csr *A, double tau, int threads, kryl_coloring *c);
void kryl_coloring_free(kryl_coloring *c);

/* Jones-Plassmann coloring of the graph of the n x n pattern (row_ptr,
 * col_idx; rows i != j coupled when a_ij or a_ji is stored), run serially
 * (color_jp.c): color[i] = the smallest color of no coupled row of higher
 * priority (kryl_color_yields), *ncolors = the colors used.  The definition
 * every backend's color_rows operation computes. */
kryl_status kryl_color_jp_serial(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                 int32_t *color, int32_t *ncolors);

/* First-fit coloring in the natural order of the n x n pattern (row_ptr,
 * col_idx), run serially (color.c): color[i] = the smallest color of no
 * row j < i stored in row i (j != i), *ncolors = the colors used.  On a
 * structurally symmetric pattern this is kryl_order_color's coloring at
 * tau = 0 (the graph of A + A^T); on another it colors only the couplings
 * a_ij with j < i, which need not be a coloring of A + A^T.  The
 * definition every backend's color_first_fit operation computes. */
kryl_status kryl_color_first_fit_serial(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                        int32_t *color, int32_t *ncolors);

/* The Jones-Plassmann coloring of the whole square A (kryl_color_jp_serial),
 * grouped; free with kryl_coloring_free. */
kryl_status kryl_order_color_jp(const kryl_csr *A, kryl_coloring *c);

/* perm[n] = the rows color by color, ascending within a color; color_ptr
 * (ncolors + 1) = where each color starts in perm. */
void kryl_color_group_serial(int64_t n, const int32_t *color, int32_t ncolors, int32_t *perm,
                             int64_t *color_ptr);

/* KRYL_SUCCESS when c is a valid coloring of A's graph sparsified with tau
 * (no two coupled rows share a color, perm and color_ptr agree with color);
 * KRYL_ERR_INVALID_ARGUMENT naming the first conflict otherwise. */
kryl_status kryl_order_color_check(const kryl_csr *A, double tau, const kryl_coloring *c);

/* Whether this build has METIS (graph partitioning). */
bool kryl_order_have_metis(void);

/* Partition the graph of A (pattern of A + A^T, no self loops) into nparts
 * parts (METIS k-way): part[i] in [0, nparts) for each row i, parts balanced
 * by nonzeros (vertex weight = row length), the edge cut minimised.
 * KRYL_ERR_UNSUPPORTED without METIS; nparts >= n gives one row per part. */
kryl_status kryl_partition_metis(const kryl_csr *A, int32_t nparts, int32_t *part);

/* Which triangle a level schedule follows. */
typedef enum kryl_triangle {
    KRYL_LOWER = 0, /* forward substitution: row i waits for rows j < i */
    KRYL_UPPER = 1  /* back substitution: row i waits for rows j > i */
} kryl_triangle;

/* Level schedule (Saad, Iterative Methods, sec. 11.6; Li & Saad sec. 4.1):
 * level[i] = 0 for a row with no dependency, else 1 + the largest level
 * of the rows it depends on; every row of one level can be solved at once.
 * order lists the rows level by level (the paper's q), level l at
 * positions [level_ptr[l], level_ptr[l + 1]).  Indices are those of the
 * (permuted) matrix. */
typedef struct kryl_levels {
    int32_t nlevels;
    int32_t *level;     /* n */
    int64_t *level_ptr; /* nlevels + 1 */
    int32_t *order;     /* n */
} kryl_levels;

/* The level schedule of the strict `tri` triangle of P A P^T (perm NULL:
 * of A itself); entries of the other triangle and the diagonal are
 * ignored, so A may be the whole matrix or a triangular factor.  Allocates
 * lv's arrays; free with kryl_levels_free. */
kryl_status kryl_order_levels(const kryl_csr *A, const int32_t *perm, kryl_triangle tri,
                              kryl_levels *lv);
void kryl_levels_free(kryl_levels *lv);

/* KRYL_SUCCESS when perm[n] holds each of 0..n-1 once;
 * KRYL_ERR_INVALID_ARGUMENT naming the first repeated or bad entry. */
kryl_status kryl_order_check_perm(const int32_t *perm, int64_t n);

/* Shape of P A P^T (perm NULL: of A). */
typedef struct kryl_order_quality {
    int64_t bandwidth;     /* max |i - j| over the entries */
    int64_t profile;       /* envelope: sum_i (i - min{j <= i : a_ij or a_ji stored}) */
    int32_t nlevels_lower; /* levels of the strict lower triangle */
} kryl_order_quality;

kryl_status kryl_order_quality_of(const kryl_csr *A, const int32_t *perm, kryl_order_quality *q);

/* Every ordering measured on one matrix. */
typedef struct kryl_order_report {
    bool have[KRYL_ORDER_COUNT]; /* false: the ordering is not in this build */
    kryl_order_quality quality[KRYL_ORDER_COUNT];
    double tau;                 /* sparsification of the second coloring */
    int32_t ncolors;            /* colors without sparsification */
    int32_t ncolors_sparsified; /* colors with tau */
} kryl_order_report;

kryl_status kryl_order_report_compute(const kryl_csr *A, double tau, kryl_order_report *r);

#ifdef __cplusplus
}
#endif

#endif
