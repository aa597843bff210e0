/* SELL-C-sigma (Kreutzer et al., SIAM J. Sci. Comput. 36, 2014) and pJDS,
 * its sigma = n case (Kreutzer et al. 2012, sec. 2.1, listing 2): rows
 * sorted by decreasing length within windows of sigma, cut into slices of
 * C rows, each slice padded to its longest row and stored column-major. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/host_threads.h"
#include "formats/fmt_internal.h"

/* The longest row of slice s of C rows of the view. */
static int64_t slice_longest(const fmt_view *v, int64_t C, int64_t s)
{
    int64_t width = 0;
    for (int64_t i = s * C; i < v->n && i < (s + 1) * C; i++) {
        const int64_t len = fmt_view_len(v, i);
        width = len > width ? len : width;
    }
    return width;
}

/* Slots of the slices of C rows of the view (rows already in order) and the
 * longest row; fills slice_ptr and slice_width when they are not NULL. */
static int64_t sell_slices(const fmt_view *v, int64_t C, int64_t *slice_ptr, int32_t *slice_width,
                           int64_t *longest)
{
    int64_t stored = 0;
    *longest = 0;
    for (int64_t s = 0; s * C < v->n; s++) {
        const int64_t width = slice_longest(v, C, s);
        if (slice_width) slice_width[s] = (int32_t)width;
        *longest = width > *longest ? width : *longest;
        /* slice_ptr[s + 1] = slice_ptr[s] + C * width */
        stored += fmt_mul_sat(C, width);
        if (slice_ptr) slice_ptr[s + 1] = stored;
    }
    return stored;
}

int64_t fmt_sorted_slots(const int64_t *count, ptrdiff_t step, int64_t keys, int64_t longest,
                         int64_t C)
{
    /* the rows of length longest - k hold positions [at, next); each slice
     * starting among them (at a multiple of C) is as wide as they are long */
    int64_t slots = 0, at = 0;
    for (int64_t k = 0; k < keys; k++) {
        const int64_t next = at + count[k * step], starts = (next + C - 1) / C - (at + C - 1) / C;
        if (starts > 0) slots += fmt_mul_sat(starts, fmt_mul_sat(C, longest - k));
        at = next;
    }
    return slots;
}

void fmt_sell_size(kryl_format kind, int64_t n, int64_t nnz, int64_t stored, int64_t longest,
                   const kryl_fmt_params *p, fmt_size *size)
{
    const int64_t C = p->slice_height, nslices = (n + C - 1) / C;
    size->stored = stored;
    /* col, slice_ptr, slice_width, row_len */
    const int64_t pointers = 8 * (nslices + 1) + 4 * nslices;
    size->index_bytes = fmt_mul_sat(4, size->stored) + pointers + 4 * nslices * C;
    /* the kernel reads every slot of a slice up to the slice's width */
    size->read_bytes = fmt_mul_sat(12, size->stored) + pointers;
    char shape[160], window[48];
    if (kind == KRYL_FORMAT_PJDS)
        snprintf(window, sizeof window, "sorted globally");
    else
        snprintf(window, sizeof window, "sorted within windows of %" PRId64,
                 kryl_fmt_sort_window(kind, p, n));
    snprintf(shape, sizeof shape,
             "slices of %" PRId64 " rows, each padded to its longest row (rows %s,"
             " longest %" PRId64 ")",
             C, window, longest);
    fmt_judge_padding(size, kind, nnz, p->max_padding, shape, "", "padding",
                      kind == KRYL_FORMAT_PJDS ? "csr" : "pjds or csr");
}

static kryl_status sell_measure(const fmt_view *v, kryl_format kind, const kryl_fmt_params *p,
                                fmt_size *size)
{
    /* sell_slices' stored slots, the slices on p->threads; the longest row of any order */
    const int64_t C = p->slice_height, nslices = (v->n + C - 1) / C;
    int64_t stored = 0;
    KRYL_HOST_PARALLEL_REDUCE(p->threads, +, stored)
    for (int64_t s = 0; s < nslices; s++) stored += fmt_mul_sat(C, slice_longest(v, C, s));
    fmt_sell_size(kind, v->n, kryl_csr_nnz(v->A), stored, fmt_longest_row(v->A, p->threads), p,
                  size);
    return KRYL_SUCCESS;
}

static kryl_status sell_fill(kryl_csr *Cm, bool C_owned, kryl_format kind, const kryl_fmt_params *p,
                             kryl_fmt *out)
{
    kryl_fmt_sell *f = &out->u.sell;
    const int64_t n = Cm->nrows, C = p->slice_height;
    const fmt_view cv = {Cm, n, NULL, NULL};
    f->C = (int32_t)C;
    f->sigma = kryl_fmt_sort_window(kind, p, n);
    f->nslices = (n + C - 1) / C;
    KRYL_TRY(FMT_ALLOC(f->slice_ptr, f->nslices + 1, "sell slice pointers"));
    KRYL_TRY(FMT_ALLOC(f->slice_width, f->nslices, "sell slice widths"));
    KRYL_TRY(FMT_ALLOC(f->row_len, f->nslices * C, "sell row lengths"));
    KRYL_TRY(FMT_ALLOC(f->col, out->stored, "sell columns"));
    KRYL_TRY(FMT_ALLOC(f->val, out->stored, "sell values"));
    int64_t longest;
    sell_slices(&cv, C, f->slice_ptr, f->slice_width, &longest);
    for (int64_t s = 0; s < f->nslices; s++) {
        for (int64_t r = 0; r < C; r++) {
            const int64_t i = s * C + r;
            const int64_t b = i < n ? Cm->row_ptr[i] : 0, len = i < n ? Cm->row_ptr[i + 1] - b : 0;
            if (i < n) f->row_len[i] = (int32_t)len;
            /* entry j of row r of slice s at [slice_ptr[s] + j*C + r]; padding: own row, 0 */
            for (int64_t j = 0; j < f->slice_width[s]; j++) {
                const int64_t at = f->slice_ptr[s] + j * C + r;
                f->col[at] = j < len ? Cm->col_idx[b + j] : fmt_pad_col(i, n);
                f->val[at] = j < len ? Cm->values[b + j] : 0.0;
            }
        }
    }
    return KRYL_SUCCESS;
}

static void sell_release(kryl_fmt *f)
{
    free(f->u.sell.slice_ptr);
    free(f->u.sell.slice_width);
    free(f->u.sell.row_len);
    free(f->u.sell.col);
    free(f->u.sell.val);
}

const fmt_ops fmt_sell_ops = {sell_measure, sell_fill, sell_release};
