/* Blocked CSR with dense b x b blocks, b = 2 or 4 (Buatois et al. 2009,
 * sec. 2.2.3): each x value of a block is loaded once and reused for b
 * rows (register blocking), at the price of the zeros the blocks hold. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/host_threads.h"
#include "formats/fmt_internal.h"

static int cmp_int32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Blocks of the view's block rows of b rows; with brow_ptr/bcol/bval not
 * NULL also fills them (block columns ascending, values row-major).
 * where[J] = index of block column J's block in the current block row. */
static int64_t bcsr_blocks(const fmt_view *v, int64_t b, int64_t *where, int64_t *brow_ptr,
                           int32_t *bcol, double *bval)
{
    const int64_t nbrows = (v->n + b - 1) / b;
    const int shift = b == 4 ? 2 : 1; /* c / b for b = 2 or 4: a shift, not a division */
    int64_t k = 0;
    for (int64_t J = 0; J < nbrows; J++) where[J] = -1;
    for (int64_t I = 0; I < nbrows; I++) {
        const int64_t start = k;
        for (int64_t i = I * b; i < v->n && i < (I + 1) * b; i++) {
            int64_t e0, e1;
            fmt_view_row(v, i, &e0, &e1);
            for (int64_t q = e0; q < e1; q++) {
                const int64_t J = fmt_view_col(v, q) >> shift;
                if (where[J] >= start) continue; /* block already in this block row */
                if (bcol) bcol[k] = (int32_t)J;
                where[J] = k++;
            }
        }
        if (bcol == NULL) continue;
        brow_ptr[I + 1] = k;
        qsort(bcol + start, (size_t)(k - start), sizeof *bcol, cmp_int32);
        for (int64_t q = start; q < k; q++) where[bcol[q]] = q;
        /* bval[block][r][c] = a(I*b + r, J*b + c) */
        for (int64_t i = I * b; i < v->n && i < (I + 1) * b; i++) {
            int64_t e0, e1;
            fmt_view_row(v, i, &e0, &e1);
            for (int64_t q = e0; q < e1; q++) {
                const int64_t c = fmt_view_col(v, q);
                bval[(where[c / b] * b + i % b) * b + c % b] = v->A->values[q];
            }
        }
    }
    return k;
}

static int64_t block_size(kryl_format kind) { return kind == KRYL_FORMAT_BCSR4 ? 4 : 2; }

/* Blocks of block row I when each row's view columns ascend (no column
 * permutation): a merge of its b rows' block columns, counting the distinct. */
static int64_t merged_block_count(const fmt_view *v, int64_t b, int64_t I)
{
    const int shift = b == 4 ? 2 : 1;
    int64_t pos[4], end[4], block[4], rows = 0; /* block[r]: row r's next block column */
    for (int64_t i = I * b; i < v->n && i < (I + 1) * b; i++, rows++) {
        fmt_view_row(v, i, &pos[rows], &end[rows]);
        block[rows] = pos[rows] < end[rows] ? fmt_view_col(v, pos[rows]) >> shift : INT64_MAX;
    }
    int64_t count = 0;
    for (;;) {
        int64_t next = INT64_MAX; /* the smallest block column not yet counted */
        for (int64_t r = 0; r < rows; r++) next = block[r] < next ? block[r] : next;
        if (next == INT64_MAX) return count;
        count++;
        for (int64_t r = 0; r < rows; r++)
            while (block[r] == next)
                block[r] = ++pos[r] < end[r] ? fmt_view_col(v, pos[r]) >> shift : INT64_MAX;
    }
}

/* Blocks of the view: merged per block row on `threads` where the columns
 * ascend, else (and on one thread, where it is faster) bcsr_blocks' marker pass. */
static kryl_status count_blocks(const fmt_view *v, int64_t b, int threads, int64_t *nblocks)
{
    const int64_t nbrows = (v->n + b - 1) / b;
    int64_t blocks = 0;
    if (v->inv == NULL && threads > 1) {
        KRYL_HOST_PARALLEL_REDUCE(threads, +, blocks)
        for (int64_t I = 0; I < nbrows; I++) blocks += merged_block_count(v, b, I);
        *nblocks = blocks;
        return KRYL_SUCCESS;
    }
    int64_t *where = NULL;
    KRYL_TRY(FMT_ALLOC(where, nbrows, "bcsr block markers"));
    *nblocks = bcsr_blocks(v, b, where, NULL, NULL, NULL);
    free(where);
    return KRYL_SUCCESS;
}

void fmt_bcsr_arrays(int64_t b, int64_t n, int64_t nblocks, fmt_size *size)
{
    size->stored = nblocks * b * b;
    size->index_bytes = 4 * nblocks + 8 * ((n + b - 1) / b + 1); /* bcol, brow_ptr */
    size->read_bytes = 8 * size->stored + size->index_bytes;
}

void fmt_bcsr_size(kryl_format kind, int64_t n, int64_t nnz, int64_t nblocks,
                   const kryl_fmt_params *p, const char *alternatives, fmt_size *size)
{
    const int64_t b = block_size(kind);
    fmt_bcsr_arrays(b, n, nblocks, size);
    char shape[64], product[64];
    snprintf(shape, sizeof shape, "%" PRId64 " dense %" PRId64 "x%" PRId64 " blocks", nblocks, b,
             b);
    snprintf(product, sizeof product, "%" PRId64 " x %" PRId64 " = ", nblocks, b * b);
    fmt_judge_padding(size, kind, nnz, p->max_block_fill, shape, product, "block fill",
                      alternatives);
}

static kryl_status bcsr_measure(const fmt_view *v, kryl_format kind, const kryl_fmt_params *p,
                                fmt_size *size)
{
    const int64_t b = block_size(kind), nnz = kryl_csr_nnz(v->A);
    int64_t nblocks, nblocks2;
    KRYL_TRY(count_blocks(v, b, p->threads, &nblocks));
    /* a refused bcsr4 suggests bcsr2 only where 2x2 blocks would be accepted */
    const char *alternatives = "csr or sell";
    if (kind == KRYL_FORMAT_BCSR4 && !fmt_padding_within(16 * nblocks, nnz, p->max_block_fill)) {
        KRYL_TRY(count_blocks(v, 2, p->threads, &nblocks2));
        if (fmt_padding_within(4 * nblocks2, nnz, p->max_block_fill)) alternatives = "bcsr2 or csr";
    }
    fmt_bcsr_size(kind, v->n, nnz, nblocks, p, alternatives, size);
    return KRYL_SUCCESS;
}

static kryl_status bcsr_fill(kryl_csr *C, bool C_owned, kryl_format kind, const kryl_fmt_params *p,
                             kryl_fmt *out)
{
    kryl_fmt_bcsr *f = &out->u.bcsr;
    const int64_t b = block_size(kind), nblocks = out->stored / (b * b);
    const fmt_view cv = {C, C->nrows, NULL, NULL};
    f->b = (int32_t)b;
    f->nbrows = f->nbcols = (C->nrows + b - 1) / b;
    int64_t *where = NULL;
    KRYL_TRY(FMT_ALLOC(f->brow_ptr, f->nbrows + 1, "bcsr block row pointers"));
    KRYL_TRY(FMT_ALLOC(f->bcol, nblocks, "bcsr block columns"));
    KRYL_TRY(FMT_ALLOC(f->bval, out->stored, "bcsr block values")); /* zero fill */
    KRYL_TRY(FMT_ALLOC(where, f->nbcols, "bcsr block markers"));
    bcsr_blocks(&cv, b, where, f->brow_ptr, f->bcol, f->bval);
    free(where);
    return KRYL_SUCCESS;
}

static void bcsr_release(kryl_fmt *f)
{
    free(f->u.bcsr.brow_ptr);
    free(f->u.bcsr.bcol);
    free(f->u.bcsr.bval);
}

const fmt_ops fmt_bcsr_ops = {bcsr_measure, bcsr_fill, bcsr_release};
