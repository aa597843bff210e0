/* The multicolor ordering shared by the multicolor SSOR and ILU(0)
 * preconditioners (mcssor.c, mcilu0.c): a greedy coloring of A's graph,
 * sparsified as Li & Saad section 5.3 describe when it needs many colors,
 * and the filter that leaves the couplings inside one color out of M. */
#ifndef KRYL_PRECOND_MCOLOR_H
#define KRYL_PRECOND_MCOLOR_H

#include "order/order.h"
#include "precond/precond.h"

/* A coloring of at most this many colors is used as it is. */
#define KRYL_MCOLOR_FEW_COLORS 8
/* ... or of this many for AMG's ILU(0) smoother where the backend factors
 * in the color order itself (kryl_ilu_backend_orders): the sparsification
 * is the host's work and makes the factorization the host's too (a
 * filter); on convection-diffusion 60^3 the smoother's setup took
 * 0.13-0.14 s sparsified against 0.04 s whole, in the same iterations.
 * A multicolor ILU(0) preconditioner keeps the bound above: whole,
 * bcsstk15 took 6935 GMRES iterations against 2838 (docs/BENCHMARKS.md). */
#define KRYL_MCOLOR_BACKEND_COLORS 64
/* Sparsification rounds, and the relative weight below which round r drops
 * an edge of a high-degree vertex: KRYL_MCOLOR_THETA * 2^r of its largest. */
#define KRYL_MCOLOR_ROUNDS 3
#define KRYL_MCOLOR_THETA  0.1

typedef struct kryl_mcolor {
    kryl_coloring c;      /* of A's rows in natural numbering; c.perm is the color order */
    int32_t ncolors_full; /* colors of the whole graph, before sparsification */
    int rounds;           /* sparsification rounds that gave c (0: the whole graph) */
    int64_t edges;        /* edges of A's graph (pairs i != j coupled either way); 0: not
                             counted (few colors, no sparsification tried) */
    int64_t edges_kept;   /* edges of the graph c colors (0 with edges) */
    int64_t dropped;      /* stored entries a_ij, i != j, with color(i) = color(j) */
} kryl_mcolor;

/* A's CSR arrays where the backend reads them: its storage's own (double
 * CSR in the natural order, matrix_csr_arrays), or the host copy's where
 * backend memory is host memory, or uploaded to the backend. */
typedef struct kryl_mcolor_arrays {
    int64_t *row_ptr;
    int32_t *col_idx;
    double *values;   /* NULL: the pattern only */
    bool own_row_ptr; /* row_ptr is a backend block of its own (released) */
    bool own_rest;    /* so are col_idx and values */
} kryl_mcolor_arrays;

/* *on = the arrays of the whole square A (values included) on A's backend. */
kryl_status kryl_mcolor_arrays_get(kryl_context ctx, kryl_matrix A, kryl_mcolor_arrays *on);
void kryl_mcolor_arrays_release(kryl_context ctx, kryl_mcolor_arrays *on);

/* The Jones-Plassmann coloring of the whole square A's graph by the
 * context's backend (color_rows, color_group; the host's serial oracle
 * where the backend has none), read back into c; on: A's arrays on the
 * backend (NULL: its pattern is uploaded for the coloring alone);
 * `symmetric`: A's pattern is known to be structurally symmetric. */
kryl_status kryl_mcolor_backend(kryl_context ctx, const kryl_csr *A, const kryl_mcolor_arrays *on,
                                bool symmetric, kryl_coloring *c);

/* Color the whole square matrix A (natural numbering): Jones-Plassmann on
 * the backend (kryl_mcolor_backend); with more than `few` colors, up to
 * KRYL_MCOLOR_ROUNDS rounds drop the weak edges of the vertices of degree
 * >= colors - 1 and color again, keeping the coloring with the fewest
 * colors.  Refuses a zero or missing diagonal entry (KRYL_ERR_ZERO_DIAGONAL
 * naming the row), logs the colors before and after under pc's name.
 * on: A's arrays on the backend as kryl_mcolor_backend takes them.  Free
 * with kryl_mcolor_free. */
kryl_status kryl_mcolor_create(kryl_precond *pc, kryl_matrix A, const kryl_mcolor_arrays *on,
                               int32_t few, kryl_mcolor *mc);
void kryl_mcolor_free(kryl_mcolor *mc);

/* The refusal (KRYL_ERR_ZERO_DIAGONAL) of a zero or missing diagonal
 * entry in global row `row`, under pc's name. */
kryl_status kryl_mcolor_zero_diagonal(const kryl_precond *pc, int64_t row);

/* Filter (user: the kryl_mcolor) of a matrix in the color order c.perm:
 * drops b_ij, i != j, of rows of one color, so that every triangle of M
 * couples only rows of different colors and its level schedule has one
 * level per color. */
kryl_status kryl_mcolor_filter(kryl_precond *pc, kryl_csr *B, const void *user);

#endif
