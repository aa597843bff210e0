/*
 * Storage formats on the host: conversion from CSR, footprint, refusal of
 * formats that would cost too much, and the bandwidth model that predicts
 * SpMV time.  Backends upload a kryl_fmt's arrays as they are; no backend
 * converts back to CSR to multiply.
 *
 * Ordering: formats that sort rows (JDS, pJDS, SELL) produce a row
 * permutation.  It is composed with any ordering the caller asks for
 * (`order`, later from RCM/AMD/coloring) into one permutation `perm`, and
 * the matrix is stored as P A P^T: rows AND columns renumbered, so x and y
 * live in the same permuted basis and a Krylov iteration never permutes
 * (Kreutzer et al. 2012, sec. 2.1).  perm[i] = original index at position i.
 */
#ifndef KRYL_FORMATS_FORMAT_H
#define KRYL_FORMATS_FORMAT_H

#include "core/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tunables of the formats (defaults from kryl_fmt_params_init). */
typedef struct kryl_fmt_params {
    int32_t slice_height;  /* SELL/pJDS slice height C: 32 (a warp) */
    int64_t sort_window;   /* SELL sigma: rows sorted within windows of this many; 0 = 32*C.
                              pJDS always sorts globally (sigma = n). */
    double max_padding;    /* refuse ELL/ELLR/JDS/SELL/pJDS/DIA whose stored entries exceed
                              max_padding * max(nnz, 1024) (default 3.0; the floor keeps the
                              warp alignment of tiny matrices from refusing them) */
    double max_block_fill; /* refuse BCSR whose stored entries exceed max_block_fill *
                              max(nnz, 1024) (default 1.5: dense blocks must be mostly full) */
    int64_t max_diagonals; /* refuse DIA with more diagonals (default 64) */
    int threads;           /* host threads that measure and fill (default 1); what is built
                              does not depend on it */
} kryl_fmt_params;

void kryl_fmt_params_init(kryl_fmt_params *params);

/* ELLPACK and ELLPACK-R: entry j of row i at [j*stride + i] (column-major),
 * stride = nrows rounded up to 32; padding has col = i (a valid index, so
 * no branch; 0 for the alignment rows i >= nrows) and value 0.  ELLPACK-R
 * also keeps row_len (stride entries, 0 past nrows). */
typedef struct kryl_fmt_ell {
    int64_t width; /* longest row */
    int64_t stride;
    int32_t *col;
    double *val;
    int32_t *row_len; /* ELLR only (NULL for ELL) */
} kryl_fmt_ell;

/* Jagged diagonals (Saad; Cevahir et al. 2009): rows sorted by decreasing
 * length; jagged diagonal d holds entry d of every row that has one, at
 * [diag_ptr[d] + i].  Each diagonal's start is padded to a multiple of 32
 * entries so every warp's loads are aligned (Cevahir's padded diagonals);
 * padding has col 0 and value 0.  row_len serves the row-per-thread
 * "CSR-like" kernel, which walks row i through the diagonals. */
typedef struct kryl_fmt_jds {
    int64_t ndiag;
    int64_t *diag_ptr; /* ndiag + 1 */
    int32_t *col;
    double *val;
    int32_t *row_len;
} kryl_fmt_jds;

/* SELL-C-sigma (Kreutzer et al. 2014), of which pJDS is sigma = n: rows
 * sorted by length within windows of sigma, cut into slices of C rows,
 * each slice padded to its longest row and stored column-major: entry j of
 * row r of slice s at [slice_ptr[s] + j*C + r].  The last slice is padded
 * to C rows.  Padding has col = the row's own index (or 0) and value 0. */
typedef struct kryl_fmt_sell {
    int32_t C;
    int64_t sigma;
    int64_t nslices;
    int64_t *slice_ptr;   /* nslices + 1 */
    int32_t *slice_width; /* nslices */
    int32_t *col;
    double *val;
    int32_t *row_len; /* per (permuted) row, nslices*C entries (0 past nrows); lets
                         kernels skip padding */
} kryl_fmt_sell;

/* Blocked CSR with dense b x b blocks (b = 2 or 4; Buatois et al. 2009):
 * block rows of b rows; block k of block row I covers columns
 * [b*bcol[k], b*bcol[k]+b); its values row-major at bval[k*b*b].  The last
 * block row/column is padded with zeros when n is not a multiple of b. */
typedef struct kryl_fmt_bcsr {
    int32_t b;
    int64_t nbrows, nbcols;
    int64_t *brow_ptr; /* nbrows + 1 */
    int32_t *bcol;
    double *bval;
} kryl_fmt_bcsr;

/* Diagonals: val[d*stride + i] = a(i, i + offset[d]), 0 outside the matrix;
 * stride = nrows rounded up to 32. */
typedef struct kryl_fmt_dia {
    int64_t ndiag;
    int64_t stride;
    int64_t *offset; /* ascending */
    double *val;
} kryl_fmt_dia;

/* CSR in the format's order (always the format's own copy). */
typedef struct kryl_fmt_csr {
    int64_t *row_ptr;
    int32_t *col;
    double *val;
} kryl_fmt_csr;

typedef struct kryl_fmt {
    kryl_format kind;
    int64_t nrows, ncols;
    int64_t nnz;    /* nonzeros of the matrix */
    int64_t stored; /* value slots stored, padding included */
    int32_t *perm;  /* NULL: natural order; else perm[i] = original row/column at i */
    bool borrowed;  /* the arrays belong to another object: kryl_fmt_free leaves them */
    /* built in a backend's memory (kryl_backend_ops.matrix_convert): the
     * host holds the shape (sizes, perm, DIA offsets, JDS diag_ptr, SELL
     * slice_ptr and slice_width) but no row_len, column or value array */
    bool on_backend;
    union {
        kryl_fmt_csr csr;
        kryl_fmt_ell ell; /* ELL and ELLR */
        kryl_fmt_jds jds;
        kryl_fmt_sell sell; /* SELL and pJDS */
        kryl_fmt_bcsr bcsr; /* BCSR2 and BCSR4 */
        kryl_fmt_dia dia;
    } u;
} kryl_fmt;

/* What a format would cost, without building it. */
typedef struct kryl_fmt_cost {
    kryl_format kind;
    bool suitable; /* false: build refuses it, and `why` says why */
    char why[256];
    int64_t stored;       /* value slots, padding included */
    int64_t bytes;        /* all arrays the format stores (double values) */
    int64_t bytes_single; /* the same with float values */
    /* Bytes one SpMV must move with this format: the arrays its kernel reads
     * once, y once, and x once (8 n: the model's best case alpha = 1/Nnzr;
     * kryl_fmt_predict's bytes use the estimated alpha instead). */
    int64_t spmv_bytes;
} kryl_fmt_cost;

/* Footprint and suitability of `kind` for A (AUTO not allowed). */
kryl_status kryl_fmt_cost_of(const kryl_csr *A, kryl_format kind, const kryl_fmt_params *params,
                             kryl_fmt_cost *cost);

/* Build `kind` from A (square, owned rows = all rows).  `order` is an
 * ordering to apply first (NULL = natural); the format's own row sort is
 * composed with it into out->perm.  A format that is not suitable is
 * refused with KRYL_ERR_FORMAT_UNSUITABLE and a message saying why and
 * what it would cost. */
kryl_status kryl_fmt_build(const kryl_csr *A, kryl_format kind, const int32_t *order,
                           const kryl_fmt_params *params, kryl_fmt *out);

void kryl_fmt_free(kryl_fmt *f);

/* ---- formats a backend builds in its own memory (matrix_convert) ---- */

/* The parameters to use: *params checked, or the defaults when NULL. */
kryl_status kryl_fmt_params_resolve(const kryl_fmt_params *params, kryl_fmt_params *out);

/* Rows are sorted by length within windows of this many (0: not sorted). */
int64_t kryl_fmt_sort_window(kryl_format kind, const kryl_fmt_params *p, int64_t n);

/* Whether kryl_fmt_build accepts `kind` (ELL, ELLR, JDS, pJDS, SELL or
 * DIA) of an n x n matrix of nnz entries, measured in the format's order:
 * `measure` is the longest row (ELL, ELLR, SELL, pJDS, JDS) or the number
 * of occupied diagonals (DIA), `stored` the value slots (SELL, pJDS, JDS;
 * ignored for the others, which follow from `measure`).  *stored_out = the
 * slots the format stores; a refusal is KRYL_ERR_FORMAT_UNSUITABLE with
 * kryl_fmt_build's message. */
kryl_status kryl_fmt_accept(kryl_format kind, int64_t n, int64_t nnz, int64_t measure,
                            int64_t stored, const kryl_fmt_params *params, int64_t *stored_out);

/* JDS diagonal offsets in place: ptr[d + 1] holds the rows longer than d
 * (d < width) and becomes diag_ptr[d + 1], each diagonal padded to a warp. */
void kryl_fmt_jds_pad(int64_t *ptr, int64_t width);

/* The natural-order CSR format over A's own arrays (borrowed, not copied). */
void kryl_fmt_borrow_csr(const kryl_csr *A, kryl_fmt *f);

/* Bytes of the format's arrays one SpMV reads (kryl_fmt_cost's spmv_bytes
 * less x and y), from its shape alone: also for one built on a backend. */
int64_t kryl_fmt_read_bytes(const kryl_fmt *f);

/* The format's value array and its length (stored), so a backend can keep
 * a float copy for single precision. */
void kryl_fmt_values(const kryl_fmt *f, double **values, int64_t *count);

/* ---- bandwidth model (Kreutzer et al. 2012, eq. 1) ---- */

/* The device numbers the model needs. */
typedef struct kryl_device_model {
    double bandwidth;    /* bytes/s, measured (device-to-device copy, read+write) */
    int64_t cache_bytes; /* last-level cache (L2 on a GPU) */
    int32_t line_bytes;  /* cache line / sector granularity for x: 32 on NVIDIA */
} kryl_device_model;

typedef struct kryl_fmt_model {
    kryl_format kind;
    double alpha;        /* x bytes actually loaded / (8 * nnz): 1/Nnzr (perfect reuse) .. 1 */
    double code_balance; /* bytes per flop, 2 flops per nonzero */
    double bytes;        /* predicted bytes moved by one SpMV */
    double seconds;      /* predicted time = bytes / bandwidth */
} kryl_fmt_model;

/* Estimate alpha for A's access pattern to x in the format's row order
 * (from the entries' distances to the diagonal against the rows whose
 * traffic fits dev->cache_bytes: fmt_reuse.c), then the
 * code balance and predicted time of one double-precision SpMV.  Formats
 * that kryl_fmt_build would refuse are predicted too. */
kryl_status kryl_fmt_predict(const kryl_csr *A, kryl_format kind, const kryl_fmt_params *params,
                             const kryl_device_model *dev, kryl_fmt_model *model);

/* The format the model predicts fastest among the suitable ones, and a
 * sentence saying why (for the solve summary). */
kryl_status kryl_fmt_choose(const kryl_csr *A, const kryl_fmt_params *params,
                            const kryl_device_model *dev, kryl_format *choice, char *why,
                            size_t why_size);

/* Counts of A that kryl_fmt_choose_counted takes from elsewhere (a backend
 * reading A's CSR where it is stored) instead of passes over A's host
 * arrays; both give what the host's passes find:
 *   far: *far = the entries a_ij with |inv_i - inv_j| > near, inv_r the
 *        position of row r once the rows are stably sorted by decreasing
 *        length within windows of `window` rows (fmt_sorted_order; window
 *        0 or 1: the natural order, inv_r = r);
 *   diagonals: *ndiag = the distinct j - i of A's entries;
 *   blocks: *nblocks = the distinct (i / b, j / b) of A's entries (b = 2, 4). */
typedef struct kryl_fmt_counter {
    kryl_status (*far)(void *arg, int64_t window, int64_t near, int64_t *far);
    kryl_status (*diagonals)(void *arg, int64_t *ndiag);
    kryl_status (*blocks)(void *arg, int64_t b, int64_t *nblocks);
    void *arg;
} kryl_fmt_counter;

/* kryl_fmt_choose with the far entries of each row order, DIA's diagonals
 * and BCSR's blocks counted by `counter` (NULL: on the host; a count the
 * counter fails to give, as out of device memory, is taken on the host) */
kryl_status kryl_fmt_choose_counted(const kryl_csr *A, const kryl_fmt_params *params,
                                    const kryl_device_model *dev, const kryl_fmt_counter *counter,
                                    kryl_format *choice, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
