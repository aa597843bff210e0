/* What the core calls of a distributed context (src/dist).  Defined only
 * in builds with MPI (KRYL_HAVE_MPI); callers guard their calls with it. */
#ifndef KRYL_DIST_DIST_H
#define KRYL_DIST_DIST_H

#include "backends/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether ctx spans more than one rank. */
bool kryl_dist_active(kryl_context ctx);

/* Free the context's distributed state (its communicator, its thread). */
void kryl_dist_context_free(kryl_context ctx);

/* Rank and size of the context's communicator. */
void kryl_dist_rank(kryl_context ctx, int *rank, int *size);

/* The first failing status of any rank (kryl_context_agree). */
kryl_status kryl_dist_agree(kryl_context ctx, kryl_status st);

/* Start / finish summing count scalars over the ranks (kryl_reduce_begin/end). */
kryl_status kryl_dist_reduce_begin(kryl_context ctx, kryl_scalar first, int count);
kryl_status kryl_dist_reduce_end(kryl_context ctx);

/* kryl_matrix_convert of a distributed matrix: its local part converted,
 * its non-local part's rows and its send list following the local part's
 * row permutation. */
kryl_status kryl_dist_matrix_convert(kryl_matrix *B, kryl_matrix A, kryl_precision precision,
                                     kryl_format format, const kryl_fmt_params *params,
                                     kryl_order_kind order);

/* max |a_ij - a_ji| over all ranks' entries (INFINITY when the patterns
 * differ) and max |a_ij|, both global, on `threads` host threads; collective. */
kryl_status kryl_dist_asymmetry(struct kryl_dist_context *dc, const kryl_csr *A, int threads,
                                double *worst, double *max_abs);

/* Host values over the ranks (collective): each values[k] becomes the sum
 * or the maximum over the ranks; the exclusive scan of `value` in rank
 * order (0 on rank 0). */
void kryl_dist_host_sum(kryl_context ctx, int64_t *values, int count);
void kryl_dist_host_max(kryl_context ctx, double *values, int count);
int64_t kryl_dist_host_exscan(kryl_context ctx, int64_t value);

/* Smoothed aggregation over ranks (dist_amg.c).  A: this rank's rows of a
 * level (global columns); T: the tentative prolongator of its rows
 * (columns the rank's aggregates' coarse rows, 0-based), which are the
 * coarse rows [coarse_begin, coarse_begin + T->ncols) of coarse_rows;
 * the rank owns the coarse rows [owned[0], owned[1]) (the ranks' ranges
 * tile them in rank order).  P = (I - omega D^-1 A) T (omega = 0: T) with
 * this rank's rows and global coarse columns, R = P' and Ac = R A P with
 * the owned coarse rows (global columns), made exactly symmetric where
 * `symmetric` and its pattern is (*Ac_symmetric: whether it was).
 * Collective. */
kryl_status kryl_dist_amg_products(kryl_context ctx, const kryl_csr *A, const kryl_csr *T,
                                   int64_t coarse_begin, int64_t coarse_rows,
                                   const int64_t owned[2], double omega, bool symmetric,
                                   kryl_csr *P, kryl_csr *R, kryl_csr *Ac, bool *Ac_symmetric);
/* T = M' of a matrix whose ranks hold its rows (global columns): this
 * rank's rows of T are M's columns [col_begin, col_end) (the ranks' ranges
 * tile M's columns in rank order).  Collective. */
kryl_status kryl_dist_csr_transpose(kryl_context ctx, const kryl_csr *M, int64_t col_begin,
                                    int64_t col_end, kryl_csr *T);
/* B (n rows of k columns, column by column, malloc'ed) replaced by the
 * ranks' rows one after another on rank 0 (total rows; other ranks keep
 * none).  Collective. */
kryl_status kryl_dist_gather_columns(kryl_context ctx, double **B, int64_t n, int k, int64_t total);
/* Ainv = this rank's rows of the inverse of the whole matrix whose rows
 * the ranks hold in A (gathered on every rank and inverted densely there:
 * a few thousand rows at most).  Collective. */
kryl_status kryl_dist_amg_coarse_inverse(kryl_context ctx, const kryl_csr *A, kryl_csr *Ainv);

/* Collective read: rank 0 reads the file and hands each rank its rows. */
kryl_status kryl_dist_read_mtx(kryl_matrix *A, kryl_context ctx, const char *path);

/* The rows [*begin, *end) this rank generates of an n-row matrix. */
void kryl_dist_block_rows(kryl_context ctx, int64_t n, int64_t *begin, int64_t *end);

/* Send every entry of coo to the rank owning its row; *routed receives the
 * entries of this rank's rows [row_begin, row_end).  Collective. */
kryl_status kryl_dist_route_entries(kryl_context ctx, const kryl_coo *coo, int64_t row_begin,
                                    int64_t row_end, kryl_coo *routed);

/* kryl_vector_set_global / get_global of a distributed matrix's vector. */
kryl_status kryl_dist_vector_set_global(kryl_vector v, kryl_matrix A, const double *values);
kryl_status kryl_dist_vector_get_global(kryl_vector v, kryl_matrix A, double *values);

/* Global stored entries of a distributed matrix. */
int64_t kryl_dist_matrix_nnz(kryl_matrix A);

/* The local part of a distributed matrix (NULL for one rank). */
kryl_matrix kryl_dist_matrix_local(kryl_matrix A);

struct kryl_precond;
/* The multicolor SSOR(opts->sweeps, opts->omega) preconditioner of a
 * distributed matrix A: a distributed coloring, sweeps color by color
 * with halo exchanges (dist_mcssor.c).  Collective. */
kryl_status kryl_dist_mcssor_create(struct kryl_precond *pc, kryl_matrix A,
                                    const kryl_solver_options *opts);

/* kryl_matrix_dist_info / kryl_context_reset_dist_stats of a distributed context. */
void kryl_dist_matrix_info(kryl_matrix A, kryl_dist_info *info);
void kryl_dist_reset_stats(kryl_context ctx);
void kryl_dist_set_overlap(kryl_context ctx, kryl_overlap overlap);
void kryl_dist_set_partition(kryl_context ctx, kryl_partition_kind partition);

#ifdef __cplusplus
}
#endif

#endif
