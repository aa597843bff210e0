/* ELLPACK and ELLPACK-R (Kreutzer et al. 2012, sec. 2, listing 1): every
 * row padded to the longest, stored column-major so a warp's loads are
 * coalesced; ELLPACK-R adds row_len so the kernel skips the padding. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/host_threads.h"
#include "formats/fmt_internal.h"

void fmt_ell_size(kryl_format kind, int64_t n, int64_t nnz, int64_t width, const kryl_fmt_params *p,
                  fmt_size *size)
{
    const bool r = kind == KRYL_FORMAT_ELLR;
    const int64_t stride = fmt_round_up(n, FMT_WARP);
    size->stored = fmt_mul_sat(width, stride);
    size->index_bytes = fmt_mul_sat(4, size->stored) + (r ? 4 * stride : 0); /* col, row_len */
    /* ELLPACK reads every slot of the n rows; ELLPACK-R the nonzeros and row_len */
    size->read_bytes = r ? 12 * nnz + 4 * n : fmt_mul_sat(12, fmt_mul_sat(width, n));
    char shape[96], product[64];
    snprintf(shape, sizeof shape, "the longest row has %" PRId64 " entries, so %s", width,
             r ? "ELLPACK-R" : "ELLPACK");
    snprintf(product, sizeof product, "%" PRId64 " x %" PRId64 " = ", width, stride);
    fmt_judge_padding(size, kind, nnz, p->max_padding, shape, product, "padding", "sell or csr");
}

static kryl_status ell_measure(const fmt_view *v, kryl_format kind, const kryl_fmt_params *p,
                               fmt_size *size)
{
    int64_t width = 0;
    KRYL_HOST_PARALLEL_REDUCE(p->threads, max, width)
    for (int64_t i = 0; i < v->n; i++) {
        const int64_t len = fmt_view_len(v, i);
        width = len > width ? len : width;
    }
    fmt_ell_size(kind, v->n, kryl_csr_nnz(v->A), width, p, size);
    return KRYL_SUCCESS;
}

static kryl_status ell_fill(kryl_csr *C, bool C_owned, kryl_format kind, const kryl_fmt_params *p,
                            kryl_fmt *out)
{
    kryl_fmt_ell *f = &out->u.ell;
    const int64_t n = C->nrows;
    f->stride = fmt_round_up(n, FMT_WARP);
    f->width = f->stride > 0 ? out->stored / f->stride : 0;
    KRYL_TRY(FMT_ALLOC(f->col, out->stored, "ell columns"));
    KRYL_TRY(FMT_ALLOC(f->val, out->stored, "ell values"));
    if (kind == KRYL_FORMAT_ELLR) KRYL_TRY(FMT_ALLOC(f->row_len, f->stride, "ellr row lengths"));
    /* padding: column = the row itself, value 0 */
    for (int64_t j = 0; j < f->width; j++)
        for (int64_t i = 0; i < f->stride; i++) f->col[j * f->stride + i] = fmt_pad_col(i, n);
    for (int64_t i = 0; i < n; i++) {
        const int64_t b = C->row_ptr[i], len = C->row_ptr[i + 1] - b;
        if (f->row_len) f->row_len[i] = (int32_t)len;
        /* entry j of row i at [j*stride + i] */
        for (int64_t j = 0; j < len; j++) {
            f->col[j * f->stride + i] = C->col_idx[b + j];
            f->val[j * f->stride + i] = C->values[b + j];
        }
    }
    return KRYL_SUCCESS;
}

static void ell_release(kryl_fmt *f)
{
    free(f->u.ell.col);
    free(f->u.ell.val);
    free(f->u.ell.row_len);
}

const fmt_ops fmt_ell_ops = {ell_measure, ell_fill, ell_release};
