/* Shared pieces of the storage formats: the row view a format is measured
 * on, the per-format operation table, permutation and padding helpers, and
 * the estimate of x's reuse behind the bandwidth model. */
#ifndef KRYL_FORMATS_FMT_INTERNAL_H
#define KRYL_FORMATS_FMT_INTERNAL_H

#include <stddef.h>

#include "formats/format.h"

/* Slots of padded formats are aligned to warps of this many rows. */
#define FMT_WARP 32

/* Padding and block fill are measured against at least this many
 * nonzeros, so aligning a tiny matrix to a warp never refuses it. */
#define FMT_MIN_MEASURED_NNZ 1024

/* A's rows in a format's order: row i of the view is row perm[i] of A and
 * column j of A is column inv[j] of the view (perm NULL: natural order). */
typedef struct fmt_view {
    const kryl_csr *A;
    int64_t n;
    const int32_t *perm;
    const int32_t *inv;
} fmt_view;

/* Row i of the view: its entries are A's k in [*begin, *end). */
static inline void fmt_view_row(const fmt_view *v, int64_t i, int64_t *begin, int64_t *end)
{
    const int64_t r = v->perm ? v->perm[i] : i;
    *begin = v->A->row_ptr[r];
    *end = v->A->row_ptr[r + 1];
}

/* Column of A's entry q in the view's numbering. */
static inline int64_t fmt_view_col(const fmt_view *v, int64_t q)
{
    return v->inv ? v->inv[v->A->col_idx[q]] : v->A->col_idx[q];
}

static inline int64_t fmt_view_len(const fmt_view *v, int64_t i)
{
    int64_t b, e;
    fmt_view_row(v, i, &b, &e);
    return e - b;
}

/* What a format would store for a view, and whether that is acceptable. */
typedef struct fmt_size {
    int64_t stored;      /* value slots, padding included */
    int64_t index_bytes; /* every other array the format stores, perm excluded */
    int64_t read_bytes;  /* bytes of the format's arrays one SpMV reads */
    bool suitable;
    char why[256];  /* refusal: why, what it would cost, what to use instead */
    char brief[64]; /* refusal in a few words ("padding 672x > 3x") */
} fmt_size;

/* A's rows by length: count[len] rows of each length len, 0 <= len <=
 * longest.  Sorting rows by decreasing length puts their lengths in one
 * order whatever the rows, so the sorted formats' sizes follow from these
 * counts alone. */
typedef struct fmt_lengths {
    int64_t longest;
    int64_t *count; /* owned */
} fmt_lengths;

/* One format family (CSR; ELL+ELLR; JDS; SELL+pJDS; BCSR2+BCSR4; DIA). */
typedef struct fmt_ops {
    /* Footprint and suitability of `kind` on rows already in its order. */
    kryl_status (*measure)(const fmt_view *v, kryl_format kind, const kryl_fmt_params *p,
                           fmt_size *size);
    /* Fill out->u from C (rows and columns in the final order, columns
     * sorted).  When C_owned, the arrays of C may be taken (set to NULL). */
    kryl_status (*fill)(kryl_csr *C, bool C_owned, kryl_format kind, const kryl_fmt_params *p,
                        kryl_fmt *out);
    void (*release)(kryl_fmt *f);
} fmt_ops;

extern const fmt_ops fmt_csr_ops, fmt_ell_ops, fmt_jds_ops, fmt_sell_ops, fmt_bcsr_ops, fmt_dia_ops;

/* A format prepared for a matrix: its permutation and its measured size. */
typedef struct fmt_plan {
    kryl_format kind;
    const fmt_ops *ops;
    int32_t *perm; /* owned; NULL = natural order */
    int32_t *inv;
    fmt_view view;
    fmt_size size;
} fmt_plan;

/* Check A, params and order and compute the permutation (order composed
 * with the format's row sort): the plan's view, its size not measured. */
kryl_status fmt_plan_order(fmt_plan *plan, const kryl_csr *A, kryl_format kind,
                           const int32_t *order, const kryl_fmt_params *params);

/* fmt_plan_order, then the format measured on the view. */
kryl_status fmt_plan_init(fmt_plan *plan, const kryl_csr *A, kryl_format kind, const int32_t *order,
                          const kryl_fmt_params *params);
void fmt_plan_free(fmt_plan *plan);

/* The size and refusal of each family from its measures (what its
 * `measure` computes on a view; kryl_fmt_accept for a backend that
 * measures in its own memory): CSR's and BCSR's arrays (stored,
 * index_bytes, read_bytes) of nnz entries or nblocks b x b blocks; BCSR2 or
 * BCSR4 of nblocks blocks, judged (`alternatives` named on refusal); DIA of ndiag occupied
 * diagonals; ELL/ELLR of rows up to `width` entries; SELL/pJDS of `stored` slots and rows up to
 * `longest`; JDS of ndiag jagged diagonals in `stored` slots. */
void fmt_csr_arrays(int64_t n, int64_t nnz, fmt_size *size);
void fmt_bcsr_arrays(int64_t b, int64_t n, int64_t nblocks, fmt_size *size);
void fmt_bcsr_size(kryl_format kind, int64_t n, int64_t nnz, int64_t nblocks,
                   const kryl_fmt_params *p, const char *alternatives, fmt_size *size);
void fmt_dia_size(int64_t n, int64_t nnz, int64_t ndiag, const kryl_fmt_params *p, fmt_size *size);
void fmt_ell_size(kryl_format kind, int64_t n, int64_t nnz, int64_t width, const kryl_fmt_params *p,
                  fmt_size *size);
void fmt_sell_size(kryl_format kind, int64_t n, int64_t nnz, int64_t stored, int64_t longest,
                   const kryl_fmt_params *p, fmt_size *size);
void fmt_jds_size(int64_t n, int64_t nnz, int64_t ndiag, int64_t stored, const kryl_fmt_params *p,
                  fmt_size *size);
/* JDS's size from A's row lengths (its measure, which needs no order). */
kryl_status fmt_jds_measure_lengths(const fmt_lengths *lengths, int64_t n, int64_t nnz,
                                    const kryl_fmt_params *p, fmt_size *size);

/* ---- permutations (fmt_permute.c) ---- */

/* order must hold each of 0..n-1 once (KRYL_ERR_INVALID_ARGUMENT otherwise). */
kryl_status fmt_check_order(const int32_t *order, int64_t n);

/* perm = order (or the identity) with, inside each window of `window`
 * positions, rows stably sorted by decreasing length (counting sort), on
 * `threads` host threads (the same perm whatever the count). */
kryl_status fmt_sorted_order(const kryl_csr *A, const int32_t *order, int64_t window, int threads,
                             int32_t *perm);

/* The longest row of A, on `threads` host threads. */
int64_t fmt_longest_row(const kryl_csr *A, int threads);

/* The counts of A, whose longest row is `longest`, on `threads` host threads. */
kryl_status fmt_lengths_of(const kryl_csr *A, int64_t longest, int threads, fmt_lengths *lengths);
void fmt_lengths_free(fmt_lengths *lengths);

/* The slots of slices of C rows, each padded to its longest row, over A's
 * rows sorted by decreasing length within windows of `window` rows
 * (fmt_sorted_order without an order), without sorting: from `lengths` for
 * one window (window >= n), else each window's counts (window a multiple
 * of C, so no slice crosses a window). */
kryl_status fmt_window_slots(const kryl_csr *A, const fmt_lengths *lengths, int64_t window,
                             int64_t C, int threads, int64_t *slots);

/* The same of rows sorted by decreasing length given by their counts:
 * count[k * step] rows of length longest - k for k < keys (fmt_sell.c). */
int64_t fmt_sorted_slots(const int64_t *count, ptrdiff_t step, int64_t keys, int64_t longest,
                         int64_t C);

/* inv[perm[i]] = i, on `threads` host threads */
void fmt_invert(const int32_t *perm, int64_t n, int threads, int32_t *inv);

/* C = P A P^T for the view: rows and columns renumbered, columns of each
 * row sorted again, on `threads` host threads (the same C whatever the
 * count). */
kryl_status fmt_permuted_csr(const fmt_view *v, int threads, kryl_csr *C);

/* ---- sizes and refusals (fmt_size.c) ---- */

static inline int64_t fmt_round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/* The padding column of row i: the row itself (a valid index of x). */
static inline int32_t fmt_pad_col(int64_t i, int64_t n) { return (int32_t)(i < n ? i : 0); }

/* a*b, saturated at INT64_MAX (footprints of formats never built). */
int64_t fmt_mul_sat(int64_t a, int64_t b);

/* Whether stored slots <= limit * max(nnz, FMT_MIN_MEASURED_NNZ): the padding accepted. */
bool fmt_padding_within(int64_t stored, int64_t nnz, double limit);

/* Decide suitability of size->stored against limit * max(nnz, FMT_MIN_MEASURED_NNZ).
 * On refusal why = "NAME: SHAPE would store PRODUCTX slots for Y nonzeros (Rx;
 * limit Lx); use ALTERNATIVES" and brief = "WORD Rx > Lx". */
void fmt_judge_padding(fmt_size *size, kryl_format kind, int64_t nnz, double limit,
                       const char *shape, const char *product, const char *word,
                       const char *alternatives);

/* "16.8 M", "25 k", "731" */
const char *fmt_count(char *buf, size_t size, double x);

/* Zeroed room for count elements (at least one); NULL when it cannot be had. */
void *fmt_calloc(int64_t count, size_t elem);

/* KRYL_ERR_OUT_OF_MEMORY naming what could not be allocated. */
kryl_status fmt_out_of_memory(const char *what, int64_t count, size_t elem);

/* p = zeroed array of count elements, or return the error. */
#define FMT_ALLOC(p, count, what)                                                                  \
    (((p) = fmt_calloc((count), sizeof *(p))) != NULL                                              \
         ? KRYL_SUCCESS                                                                            \
         : fmt_out_of_memory((what), (count), sizeof *(p)))

/* ---- reuse of x (fmt_reuse.c) ---- */

/* Bytes of x loaded by one SpMV over the view's rows in order, divided by
 * 8 * nnz (clamped to at most 1), estimated from the entries' distances to
 * the diagonal against the rows whose traffic (stream_per_access bytes of
 * matrix and y per entry, and x) fits the cache, on p->threads host
 * threads (the estimate does not depend on them). */
kryl_status fmt_estimate_alpha(const fmt_view *v, const kryl_device_model *dev,
                               double stream_per_access, const kryl_fmt_params *p, double *alpha);

/* Its parts: the reach, T0 / 2 rows, beyond which an entry is far (INT64_MAX
 * for an empty matrix); the far entries of the view, on `threads` host
 * threads; alpha from their count. */
int64_t fmt_reach(int64_t n, int64_t nnz, const kryl_device_model *dev, double stream_per_access);
int64_t fmt_count_far(const fmt_view *v, int64_t near, int threads);
double fmt_alpha_of_far(int64_t n, int64_t nnz, int64_t ncols, int64_t far,
                        const kryl_device_model *dev, double stream_per_access);

#endif
