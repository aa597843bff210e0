/* CSR in the format's order: the matrix's own layout (Li & Saad), always
 * suitable; the baseline every other format is compared with. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "formats/fmt_internal.h"

void fmt_csr_arrays(int64_t n, int64_t nnz, fmt_size *size)
{
    size->stored = nnz;
    size->index_bytes = 8 * (n + 1) + 4 * nnz; /* row_ptr + col */
    size->read_bytes = 12 * nnz + 8 * (n + 1);
}

static kryl_status csr_measure(const fmt_view *v, kryl_format kind, const kryl_fmt_params *p,
                               fmt_size *size)
{
    fmt_csr_arrays(v->n, kryl_csr_nnz(v->A), size);
    size->suitable = true;
    return KRYL_SUCCESS;
}

static kryl_status csr_fill(kryl_csr *C, bool C_owned, kryl_format kind, const kryl_fmt_params *p,
                            kryl_fmt *out)
{
    kryl_fmt_csr *f = &out->u.csr;
    const int64_t n = C->nrows, nnz = kryl_csr_nnz(C);
    if (C_owned) { /* take the permuted copy's arrays */
        f->row_ptr = C->row_ptr;
        f->col = C->col_idx;
        f->val = C->values;
        C->row_ptr = NULL;
        C->col_idx = NULL;
        C->values = NULL;
        return KRYL_SUCCESS;
    }
    KRYL_TRY(FMT_ALLOC(f->row_ptr, n + 1, "csr row pointers"));
    KRYL_TRY(FMT_ALLOC(f->col, nnz, "csr columns"));
    KRYL_TRY(FMT_ALLOC(f->val, nnz, "csr values"));
    memcpy(f->row_ptr, C->row_ptr, (size_t)(n + 1) * sizeof *f->row_ptr);
    memcpy(f->col, C->col_idx, (size_t)nnz * sizeof *f->col);
    memcpy(f->val, C->values, (size_t)nnz * sizeof *f->val);
    return KRYL_SUCCESS;
}

static void csr_release(kryl_fmt *f)
{
    free(f->u.csr.row_ptr);
    free(f->u.csr.col);
    free(f->u.csr.val);
}

const fmt_ops fmt_csr_ops = {csr_measure, csr_fill, csr_release};

void kryl_fmt_borrow_csr(const kryl_csr *A, kryl_fmt *f)
{
    memset(f, 0, sizeof *f);
    f->kind = KRYL_FORMAT_CSR;
    f->nrows = A->nrows;
    f->ncols = A->ncols;
    f->nnz = f->stored = kryl_csr_nnz(A);
    f->u.csr.row_ptr = A->row_ptr;
    f->u.csr.col = A->col_idx;
    f->u.csr.val = A->values;
    f->borrowed = true;
}
