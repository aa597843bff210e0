/* Jagged diagonals (Saad; Cevahir et al. 2009, sec. 3.1): rows sorted by
 * decreasing length, entry d of every row that has one forms jagged
 * diagonal d, and each diagonal starts at a multiple of 32 entries so a
 * warp's loads stay aligned.  row_len serves the row-per-thread kernel. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "formats/fmt_internal.h"

void kryl_fmt_jds_pad(int64_t *ptr, int64_t width)
{
    ptr[0] = 0;
    for (int64_t d = 0; d < width; d++) ptr[d + 1] = ptr[d] + fmt_round_up(ptr[d + 1], FMT_WARP);
}

/* diag_ptr[d+1] = diag_ptr[d] + (rows longer than d, rounded up to 32),
 * from the rows' lengths (ndiag = the longest row). */
static kryl_status jds_diag_ptr(const fmt_lengths *lengths, int64_t **diag_ptr)
{
    const int64_t width = lengths->longest;
    int64_t *ptr = NULL;
    KRYL_TRY(FMT_ALLOC(ptr, width + 1, "jds diagonal pointers"));
    /* ptr[len] = rows of length len, then suffix sums: ptr[d + 1] = rows longer than d */
    memcpy(ptr, lengths->count, (size_t)(width + 1) * sizeof *ptr);
    ptr[0] = 0;
    for (int64_t d = width - 1; d >= 1; d--) ptr[d] += ptr[d + 1];
    kryl_fmt_jds_pad(ptr, width);
    *diag_ptr = ptr;
    return KRYL_SUCCESS;
}

/* The lengths of A's rows, whatever their order. */
static kryl_status jds_lengths(const kryl_csr *A, int threads, fmt_lengths *lengths)
{
    return fmt_lengths_of(A, fmt_longest_row(A, threads), threads, lengths);
}

void fmt_jds_size(int64_t n, int64_t nnz, int64_t ndiag, int64_t stored, const kryl_fmt_params *p,
                  fmt_size *size)
{
    size->stored = stored;
    size->index_bytes = 4 * size->stored + 8 * (ndiag + 1) + 4 * n;
    /* the row-per-thread kernel reads the nonzeros, row_len and diag_ptr */
    size->read_bytes = 12 * nnz + 4 * n + 8 * (ndiag + 1);
    char shape[128];
    snprintf(shape, sizeof shape,
             "the longest row has %" PRId64 " entries, so %" PRId64
             " jagged diagonals each padded to a multiple of %d",
             ndiag, ndiag, FMT_WARP);
    fmt_judge_padding(size, KRYL_FORMAT_JDS, nnz, p->max_padding, shape, "", "padding",
                      "sell or csr");
}

kryl_status fmt_jds_measure_lengths(const fmt_lengths *lengths, int64_t n, int64_t nnz,
                                    const kryl_fmt_params *p, fmt_size *size)
{
    int64_t *ptr;
    KRYL_TRY(jds_diag_ptr(lengths, &ptr));
    const int64_t stored = ptr[lengths->longest];
    free(ptr);
    fmt_jds_size(n, nnz, lengths->longest, stored, p, size);
    return KRYL_SUCCESS;
}

static kryl_status jds_measure(const fmt_view *v, kryl_format kind, const kryl_fmt_params *p,
                               fmt_size *size)
{
    fmt_lengths lengths;
    KRYL_TRY(jds_lengths(v->A, p->threads, &lengths));
    kryl_status st = fmt_jds_measure_lengths(&lengths, v->n, kryl_csr_nnz(v->A), p, size);
    fmt_lengths_free(&lengths);
    return st;
}

static kryl_status jds_fill(kryl_csr *C, bool C_owned, kryl_format kind, const kryl_fmt_params *p,
                            kryl_fmt *out)
{
    kryl_fmt_jds *f = &out->u.jds;
    fmt_lengths lengths;
    KRYL_TRY(jds_lengths(C, p->threads, &lengths));
    f->ndiag = lengths.longest;
    kryl_status st = jds_diag_ptr(&lengths, &f->diag_ptr);
    fmt_lengths_free(&lengths);
    KRYL_TRY(st);
    KRYL_TRY(FMT_ALLOC(f->col, out->stored, "jds columns")); /* padding: column 0, value 0 */
    KRYL_TRY(FMT_ALLOC(f->val, out->stored, "jds values"));
    KRYL_TRY(FMT_ALLOC(f->row_len, C->nrows, "jds row lengths"));
    for (int64_t i = 0; i < C->nrows; i++) {
        const int64_t b = C->row_ptr[i], len = C->row_ptr[i + 1] - b;
        f->row_len[i] = (int32_t)len;
        /* entry d of row i at [diag_ptr[d] + i] */
        for (int64_t d = 0; d < len; d++) {
            f->col[f->diag_ptr[d] + i] = C->col_idx[b + d];
            f->val[f->diag_ptr[d] + i] = C->values[b + d];
        }
    }
    return KRYL_SUCCESS;
}

static void jds_release(kryl_fmt *f)
{
    free(f->u.jds.diag_ptr);
    free(f->u.jds.col);
    free(f->u.jds.val);
    free(f->u.jds.row_len);
}

const fmt_ops fmt_jds_ops = {jds_measure, jds_fill, jds_release};
