/* The formats' entry points: parameters, checks of the matrix, the plan
 * (ordering + measured size) every entry point starts from, and dispatch to
 * the format families in fmt_<name>.c. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/host_threads.h"
#include "formats/fmt_internal.h"

void kryl_fmt_params_init(kryl_fmt_params *params)
{
    if (params == NULL) return;
    params->slice_height = FMT_WARP;
    params->sort_window = 0;
    params->max_padding = 3.0;
    params->max_block_fill = 1.5;
    params->max_diagonals = 64;
    params->threads = 1;
}

kryl_status kryl_fmt_params_resolve(const kryl_fmt_params *params, kryl_fmt_params *out)
{
    kryl_fmt_params_init(out);
    if (params == NULL) return KRYL_SUCCESS;
    if (params->slice_height < 1 || params->sort_window < 0 || params->max_diagonals < 1)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "format parameters: slice_height = %" PRId32
                          " (must be >= 1), sort_window = %" PRId64
                          " (>= 0), max_diagonals = %" PRId64 " (>= 1)",
                          params->slice_height, params->sort_window, params->max_diagonals);
    if (!(isfinite(params->max_padding) && params->max_padding >= 1.0 &&
          isfinite(params->max_block_fill) && params->max_block_fill >= 1.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "format parameters: max_padding = %g and max_block_fill = %g must "
                          "be finite and >= 1 (stored slots per nonzero)",
                          params->max_padding, params->max_block_fill);
    *out = *params;
    if (out->threads < 1) out->threads = 1;
    return KRYL_SUCCESS;
}

int64_t kryl_fmt_sort_window(kryl_format kind, const kryl_fmt_params *p, int64_t n)
{
    switch (kind) {
    case KRYL_FORMAT_JDS:
    case KRYL_FORMAT_PJDS: return n;
    case KRYL_FORMAT_SELL:
        return p->sort_window > 0 ? p->sort_window : fmt_mul_sat(32, p->slice_height);
    default: return 0;
    }
}

static const fmt_ops *ops_of(kryl_format kind)
{
    switch (kind) {
    case KRYL_FORMAT_CSR: return &fmt_csr_ops;
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR: return &fmt_ell_ops;
    case KRYL_FORMAT_JDS: return &fmt_jds_ops;
    case KRYL_FORMAT_PJDS:
    case KRYL_FORMAT_SELL: return &fmt_sell_ops;
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4: return &fmt_bcsr_ops;
    case KRYL_FORMAT_DIA: return &fmt_dia_ops;
    default: return NULL;
    }
}

static kryl_status check_matrix(const kryl_csr *A)
{
    if (A->row_begin != 0 || A->nrows != A->nrows_global)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "formats: the matrix owns rows [%" PRId64 ", %" PRId64 ") of %" PRId64
                          "; storage formats need all rows in one process",
                          A->row_begin, A->row_begin + A->nrows, A->nrows_global);
    if (A->nrows != A->ncols)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "formats: the matrix is %" PRId64 " x %" PRId64
                          "; storage formats need a square matrix (stored as P A P^T)",
                          A->nrows, A->ncols);
    if (A->nrows > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "formats: %" PRId64 " rows exceed the 32-bit row permutation", A->nrows);
    return KRYL_SUCCESS;
}

static bool is_identity(const int32_t *perm, int64_t n, int threads)
{
    int64_t moved = 0;
    KRYL_HOST_PARALLEL_REDUCE(threads, +, moved)
    for (int64_t i = 0; i < n; i++) moved += perm[i] != i;
    return moved == 0;
}

kryl_status fmt_plan_order(fmt_plan *plan, const kryl_csr *A, kryl_format kind,
                           const int32_t *order, const kryl_fmt_params *params)
{
    memset(plan, 0, sizeof *plan);
    plan->kind = kind;
    plan->ops = ops_of(kind);
    if (plan->ops == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "formats: format %d (%s) cannot be stored; name a format, or let "
                          "kryl_fmt_choose pick one for auto",
                          (int)kind, kryl_format_name(kind));
    KRYL_TRY(check_matrix(A));
    const int64_t n = A->nrows, window = kryl_fmt_sort_window(kind, params, n);
    if (order) KRYL_TRY(fmt_check_order(order, n));
    kryl_status st = KRYL_SUCCESS;
    if (order || window > 1) {
        KRYL_CHECK_GOTO(st, FMT_ALLOC(plan->perm, n, "the row permutation"), fail);
        KRYL_CHECK_GOTO(st, fmt_sorted_order(A, order, window, params->threads, plan->perm), fail);
        if (is_identity(plan->perm, n, params->threads)) {
            free(plan->perm);
            plan->perm = NULL;
        } else {
            KRYL_CHECK_GOTO(st, FMT_ALLOC(plan->inv, n, "the inverse permutation"), fail);
            fmt_invert(plan->perm, n, params->threads, plan->inv);
        }
    }
    plan->view = (fmt_view){A, n, plan->perm, plan->inv};
    return KRYL_SUCCESS;
fail:
    fmt_plan_free(plan);
    return st;
}

kryl_status fmt_plan_init(fmt_plan *plan, const kryl_csr *A, kryl_format kind, const int32_t *order,
                          const kryl_fmt_params *params)
{
    KRYL_TRY(fmt_plan_order(plan, A, kind, order, params));
    kryl_status st = plan->ops->measure(&plan->view, kind, params, &plan->size);
    if (st != KRYL_SUCCESS) fmt_plan_free(plan);
    return st;
}

void fmt_plan_free(fmt_plan *plan)
{
    free(plan->perm);
    free(plan->inv);
    plan->perm = plan->inv = NULL;
}

/* x (a double), clamped into int64 */
static int64_t to_bytes(double x) { return x < 0x1.0p62 ? (int64_t)x : INT64_MAX; }

kryl_status kryl_fmt_cost_of(const kryl_csr *A, kryl_format kind, const kryl_fmt_params *params,
                             kryl_fmt_cost *cost)
{
    KRYL_REQUIRE_ARG(cost);
    memset(cost, 0, sizeof *cost);
    KRYL_REQUIRE_ARG(A);
    cost->kind = kind;
    kryl_fmt_params p;
    KRYL_TRY(kryl_fmt_params_resolve(params, &p));
    fmt_plan plan;
    KRYL_TRY(fmt_plan_init(&plan, A, kind, NULL, &p));
    const fmt_size *s = &plan.size;
    const double n = (double)A->nrows;
    const double other = (double)s->index_bytes + (plan.perm ? 4.0 * n : 0.0);
    cost->suitable = s->suitable;
    memcpy(cost->why, s->why, sizeof cost->why);
    cost->stored = s->stored;
    cost->bytes = to_bytes(8.0 * (double)s->stored + other);
    cost->bytes_single = to_bytes(4.0 * (double)s->stored + other);
    /* arrays read + y written + x read once (the best case, alpha = 1/Nnzr) */
    cost->spmv_bytes = to_bytes((double)s->read_bytes + 8.0 * n + 8.0 * n);
    fmt_plan_free(&plan);
    return KRYL_SUCCESS;
}

kryl_status kryl_fmt_build(const kryl_csr *A, kryl_format kind, const int32_t *order,
                           const kryl_fmt_params *params, kryl_fmt *out)
{
    KRYL_REQUIRE_ARG(out);
    memset(out, 0, sizeof *out);
    KRYL_REQUIRE_ARG(A);
    kryl_fmt_params p;
    KRYL_TRY(kryl_fmt_params_resolve(params, &p));
    fmt_plan plan;
    KRYL_TRY(fmt_plan_init(&plan, A, kind, order, &p));
    if (!plan.size.suitable) {
        fmt_plan_free(&plan);
        return KRYL_ERROR(KRYL_ERR_FORMAT_UNSUITABLE, "%s", plan.size.why);
    }
    kryl_csr C = *A;
    kryl_status st = KRYL_SUCCESS;
    if (plan.perm) KRYL_CHECK_GOTO(st, fmt_permuted_csr(&plan.view, p.threads, &C), done);
    out->kind = kind;
    out->nrows = out->ncols = A->nrows;
    out->nnz = kryl_csr_nnz(A);
    out->stored = plan.size.stored;
    st = plan.ops->fill(&C, plan.perm != NULL, kind, &p, out);
    if (plan.perm) kryl_csr_free(&C);
    out->perm = plan.perm; /* the format owns the permutation now */
    plan.perm = NULL;
done:
    fmt_plan_free(&plan);
    if (st != KRYL_SUCCESS) kryl_fmt_free(out);
    return st;
}

kryl_status kryl_fmt_accept(kryl_format kind, int64_t n, int64_t nnz, int64_t measure,
                            int64_t stored, const kryl_fmt_params *params, int64_t *stored_out)
{
    kryl_fmt_params p;
    KRYL_TRY(kryl_fmt_params_resolve(params, &p));
    fmt_size size;
    memset(&size, 0, sizeof size);
    switch (kind) {
    case KRYL_FORMAT_DIA: fmt_dia_size(n, nnz, measure, &p, &size); break;
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR: fmt_ell_size(kind, n, nnz, measure, &p, &size); break;
    case KRYL_FORMAT_SELL:
    case KRYL_FORMAT_PJDS: fmt_sell_size(kind, n, nnz, stored, measure, &p, &size); break;
    case KRYL_FORMAT_JDS: fmt_jds_size(n, nnz, measure, stored, &p, &size); break;
    default:
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "kryl_fmt_accept: format %s is not measured",
                          kryl_format_name(kind));
    }
    *stored_out = size.stored;
    if (!size.suitable) return KRYL_ERROR(KRYL_ERR_FORMAT_UNSUITABLE, "%s", size.why);
    return KRYL_SUCCESS;
}

int64_t kryl_fmt_read_bytes(const kryl_fmt *f)
{
    kryl_fmt_params p;
    kryl_fmt_params_init(&p);
    fmt_size size;
    memset(&size, 0, sizeof size);
    const int64_t n = f->nrows, nnz = f->nnz;
    switch (f->kind) {
    case KRYL_FORMAT_CSR: fmt_csr_arrays(n, nnz, &size); break;
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR: fmt_ell_size(f->kind, n, nnz, f->u.ell.width, &p, &size); break;
    case KRYL_FORMAT_JDS: fmt_jds_size(n, nnz, f->u.jds.ndiag, f->stored, &p, &size); break;
    case KRYL_FORMAT_PJDS:
    case KRYL_FORMAT_SELL:
        p.slice_height = f->u.sell.C;
        fmt_sell_size(f->kind, n, nnz, f->stored, 0, &p, &size);
        break;
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4:
        fmt_bcsr_arrays(f->u.bcsr.b, n, f->stored / ((int64_t)f->u.bcsr.b * f->u.bcsr.b), &size);
        break;
    case KRYL_FORMAT_DIA: fmt_dia_size(n, nnz, f->u.dia.ndiag, &p, &size); break;
    default: break;
    }
    return size.read_bytes;
}

void kryl_fmt_free(kryl_fmt *f)
{
    if (f == NULL) return;
    const fmt_ops *ops = ops_of(f->kind);
    if (ops && !f->borrowed) ops->release(f);
    free(f->perm);
    memset(f, 0, sizeof *f);
}

void kryl_fmt_values(const kryl_fmt *f, double **values, int64_t *count)
{
    double *v = NULL;
    switch (f->kind) {
    case KRYL_FORMAT_CSR: v = f->u.csr.val; break;
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR: v = f->u.ell.val; break;
    case KRYL_FORMAT_JDS: v = f->u.jds.val; break;
    case KRYL_FORMAT_PJDS:
    case KRYL_FORMAT_SELL: v = f->u.sell.val; break;
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4: v = f->u.bcsr.bval; break;
    case KRYL_FORMAT_DIA: v = f->u.dia.val; break;
    default: break;
    }
    if (values) *values = v;
    if (count) *count = v ? f->stored : 0;
}
