/* Diagonal storage (Li & Saad, sec. 3): one array of n values per
 * occupied diagonal, no column indices; x is read along each diagonal.
 * Suits banded matrices such as stencils on a natural grid order. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/host_threads.h"
#include "formats/fmt_dia_find.h"
#include "formats/fmt_internal.h"

/* Occupied diagonals of the view, ascending, into offset when not NULL:
 * mark[off + n - 1] flags offset off = j - i (mark has 2n - 1 bytes).  Rows
 * run on `threads`; a flag is read before it is set (relaxed atomics), so
 * the few lines of a banded matrix's flags stay shared between cores. */
static int64_t dia_offsets(const fmt_view *v, int threads, unsigned char *mark, int64_t *offset)
{
    const int64_t n = v->n;
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        int64_t b, e;
        fmt_view_row(v, i, &b, &e);
        for (int64_t q = b; q < e; q++) {
            unsigned char *flag = &mark[fmt_view_col(v, q) - i + n - 1];
            if (!__atomic_load_n(flag, __ATOMIC_RELAXED))
                __atomic_store_n(flag, 1, __ATOMIC_RELAXED);
        }
    }
    int64_t ndiag = 0;
    if (offset == NULL) {
        KRYL_HOST_PARALLEL_REDUCE(threads, +, ndiag)
        for (int64_t k = 0; k < 2 * n - 1; k++) ndiag += mark[k];
        return ndiag;
    }
    for (int64_t k = 0; k < 2 * n - 1; k++)
        if (mark[k]) offset[ndiag++] = k - (n - 1);
    return ndiag;
}

void fmt_dia_size(int64_t n, int64_t nnz, int64_t ndiag, const kryl_fmt_params *p, fmt_size *size)
{
    const int64_t stride = fmt_round_up(n, FMT_WARP);
    size->stored = fmt_mul_sat(ndiag, stride);
    size->index_bytes = 8 * ndiag; /* offsets */
    size->read_bytes = fmt_mul_sat(8 * ndiag, n) + size->index_bytes;
    char shape[96], product[64], stored[32], count[32];
    snprintf(shape, sizeof shape, "the matrix has %" PRId64 " occupied diagonals, so DIA", ndiag);
    snprintf(product, sizeof product, "%" PRId64 " x %" PRId64 " = ", ndiag, stride);
    if (ndiag <= p->max_diagonals) {
        fmt_judge_padding(size, KRYL_FORMAT_DIA, nnz, p->max_padding, shape, product, "padding",
                          "csr or sell");
        return;
    }
    size->suitable = false;
    snprintf(size->why, sizeof size->why,
             "dia: the matrix has %" PRId64 " occupied diagonals (limit %" PRId64
             "), so DIA would store %s%s slots for %s nonzeros; use csr or sell",
             ndiag, p->max_diagonals, product,
             fmt_count(stored, sizeof stored, (double)size->stored),
             fmt_count(count, sizeof count, (double)nnz));
    snprintf(size->brief, sizeof size->brief, "%" PRId64 " diagonals > %" PRId64, ndiag,
             p->max_diagonals);
}

static kryl_status dia_measure(const fmt_view *v, kryl_format kind, const kryl_fmt_params *p,
                               fmt_size *size)
{
    unsigned char *mark = NULL;
    KRYL_TRY(FMT_ALLOC(mark, v->n > 0 ? 2 * v->n - 1 : 0, "dia diagonal markers"));
    const int64_t ndiag = dia_offsets(v, p->threads, mark, NULL);
    free(mark);
    fmt_dia_size(v->n, kryl_csr_nnz(v->A), ndiag, p, size);
    return KRYL_SUCCESS;
}

static kryl_status dia_fill(kryl_csr *C, bool C_owned, kryl_format kind, const kryl_fmt_params *p,
                            kryl_fmt *out)
{
    kryl_fmt_dia *f = &out->u.dia;
    const int64_t n = C->nrows;
    const fmt_view cv = {C, n, NULL, NULL};
    unsigned char *mark = NULL;
    f->stride = fmt_round_up(n, FMT_WARP);
    f->ndiag = f->stride > 0 ? out->stored / f->stride : 0;
    KRYL_TRY(FMT_ALLOC(f->offset, f->ndiag, "dia offsets"));
    KRYL_TRY(FMT_ALLOC(f->val, out->stored, "dia values")); /* 0 outside the matrix */
    KRYL_TRY(FMT_ALLOC(mark, n > 0 ? 2 * n - 1 : 0, "dia diagonal markers"));
    dia_offsets(&cv, p->threads, mark, f->offset);
    free(mark);
    /* val[d*stride + i] = a(i, i + offset[d]) */
    KRYL_HOST_PARALLEL_FOR(p->threads)
    for (int64_t i = 0; i < n; i++)
        for (int64_t q = C->row_ptr[i]; q < C->row_ptr[i + 1]; q++)
            f->val[fmt_dia_find(f->offset, f->ndiag, C->col_idx[q] - i) * f->stride + i] =
                C->values[q];
    return KRYL_SUCCESS;
}

static void dia_release(kryl_fmt *f)
{
    free(f->u.dia.offset);
    free(f->u.dia.val);
}

const fmt_ops fmt_dia_ops = {dia_measure, dia_fill, dia_release};
