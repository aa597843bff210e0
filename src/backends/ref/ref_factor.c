/* The numeric IC(0) and ILU(0) of the host backends on a kept pattern
 * (ref_factor.h): ref factors row after row, as kryl_factor_ic0 and
 * kryl_factor_ilu0 do, and stops at the first failing row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ref/ref_factor.h"
#include "backends/ref/ref_trsv.h"
#include "core/error.h"
#include "core/host_threads.h"

/* l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj along row i, then
 * l_ii = sqrt(a_ii (1 + shift) - sum_{k<i} l_ik^2) (Saad 2003, 10.3.4) */
static int ic0_row(const kryl_factor_pattern *P, double shift, double *c, int64_t i)
{
    const int64_t start = P->ptr[i], dpos = P->diag[i];
    if (!(c[dpos] > 0.0)) return KRYL_PIVOT_DIAGONAL;
    double d = c[dpos] * (1.0 + shift);
    for (int64_t e = start; e < dpos; e++) {
        const int64_t j = P->col[e], jd = P->diag[j];
        double s = c[e];
        /* the columns of row j met in row i so far (both sorted) */
        int64_t k = start;
        for (int64_t f = P->ptr[j]; f < jd; f++) {
            while (k < e && P->col[k] < P->col[f]) k++;
            if (k < e && P->col[k] == P->col[f]) s -= c[f] * c[k];
        }
        c[e] = s / c[jd];
        d -= c[e] * c[e];
    }
    if (!(d > 0.0)) {
        c[dpos] = d;
        return KRYL_PIVOT_BREAKDOWN;
    }
    c[dpos] = sqrt(d);
    return -1;
}

/* IKJ: for each k < i in row i, l_ik = c_ik / u_kk and c_ij -= l_ik u_kj
 * for the j > k of row k in row i's pattern (Saad 2003, algorithm 10.4) */
static int ilu0_row(const kryl_factor_pattern *P, double *c, int64_t i)
{
    const int64_t end = P->ptr[i + 1], dpos = P->diag[i];
    for (int64_t e = P->ptr[i]; e < dpos; e++) {
        const int64_t k = P->col[e], kd = P->diag[k];
        const double lik = c[e] / c[kd];
        c[e] = lik;
        int64_t q = e + 1;
        for (int64_t f = kd + 1; f < P->ptr[k + 1]; f++) {
            while (q < end && P->col[q] < P->col[f]) q++;
            if (q < end && P->col[q] == P->col[f]) c[q] -= lik * c[f];
        }
    }
    return c[dpos] == 0.0 || !isfinite(c[dpos]) ? KRYL_PIVOT_BREAKDOWN : -1;
}

int kryl_ref_factor_row(const kryl_factor_pattern *P, const double *a, double shift, double *c,
                        int64_t i)
{
    /* c_i* = the row's values of A */
    for (int64_t e = P->ptr[i]; e < P->ptr[i + 1]; e++) c[e] = a[P->source[e]];
    return P->kind == KRYL_FACTOR_IC0 ? ic0_row(P, shift, c, i) : ilu0_row(P, c, i);
}

kryl_status kryl_ref_factor_values(const kryl_factor_pattern *P, kryl_matrix A, const double **a)
{
    const kryl_csr *h = A->host ? &A->host->csr : NULL;
    if (h == NULL || kryl_csr_nnz(h) != P->a_nnz)
        return KRYL_ERROR(KRYL_ERR_INTERNAL,
                          "factor_numeric: the matrix has %lld host entries, the pattern was "
                          "built for %lld",
                          (long long)(h ? kryl_csr_nnz(h) : -1), (long long)P->a_nnz);
    *a = h->values;
    return KRYL_SUCCESS;
}

void kryl_ref_factor_pivots(const kryl_host_factor *F, const kryl_csr *A, int64_t failed, int what,
                            int threads, struct kryl_factor_pivots *pivots)
{
    const kryl_factor_pattern *P = F->P;
    double norm = 0.0;
    KRYL_HOST_PARALLEL_REDUCE(threads, max, norm)
    for (int64_t i = 0; i < A->nrows; i++) {
        /* ||A||_inf = max_i sum_j |a_ij| (the same for P A P^T) */
        double row = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) row += fabs(A->values[k]);
        norm = fmax(norm, row);
    }
    pivots->norm_inf = norm;
    pivots->row = failed;
    pivots->what = what;
    pivots->value = failed >= 0 ? F->c[P->diag[failed]] : 0.0;
    pivots->nonpositive_row = -1;
    pivots->nonpositive_value = 0.0;
    if (failed >= 0 || P->kind != KRYL_FACTOR_ILU0) return;
    int64_t first = P->n;
    KRYL_HOST_PARALLEL_REDUCE(threads, min, first)
    for (int64_t i = 0; i < P->n; i++)
        if (!(F->c[P->diag[i]] > 0.0) && i < first) first = i;
    if (first < P->n) {
        pivots->nonpositive_row = first;
        pivots->nonpositive_value = F->c[P->diag[first]];
    }
}

kryl_status kryl_ref_factor_setup(kryl_context ctx, const struct kryl_factor_pattern *P,
                                  void **handle)
{
    (void)ctx;
    *handle = NULL;
    kryl_host_factor *F = calloc(1, sizeof *F);
    const int64_t nnz = P->ptr[P->n];
    if (F) F->c = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *F->c);
    if (F == NULL || F->c == NULL) {
        free(F);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "factor_setup: cannot allocate %lld values",
                          (long long)nnz);
    }
    F->P = P;
    *handle = F;
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_factor_numeric(kryl_context ctx, void *handle, kryl_matrix A, double shift,
                                    struct kryl_factor_pivots *pivots)
{
    (void)ctx;
    kryl_host_factor *F = handle;
    const double *a = NULL;
    KRYL_TRY(kryl_ref_factor_values(F->P, A, &a));
    int64_t failed = -1;
    int what = -1;
    for (int64_t i = 0; i < F->P->n && failed < 0; i++) {
        what = kryl_ref_factor_row(F->P, a, shift, F->c, i);
        if (what >= 0) failed = i;
    }
    kryl_ref_factor_pivots(F, &A->host->csr, failed, what, 1, pivots);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_factor_trsv(kryl_context ctx, void *handle, bool lower,
                                 kryl_precision precision, void **trsv)
{
    kryl_host_factor *F = handle;
    const kryl_factor_pattern *P = F->P;
    const kryl_levels *lv = lower ? &P->levels_L : &P->levels_U;
    kryl_csr T = {0};
    KRYL_TRY(kryl_factor_pattern_triangle(P, F->c, lower, &T));
    /* ILU's L has the unit diagonal implied */
    const bool unit = lower && P->kind == KRYL_FACTOR_ILU0;
    kryl_status st = *trsv ? kryl_ref_trsv_refresh(*trsv, &T)
                           : ctx->ops->trsv_setup(ctx, &T, precision, lower, unit, lv->order,
                                                  lv->level_ptr, lv->nlevels, trsv);
    kryl_csr_free(&T);
    return st;
}

void kryl_ref_factor_release(kryl_context ctx, void *handle)
{
    (void)ctx;
    kryl_host_factor *F = handle;
    if (F == NULL) return;
    free(F->c);
    free(F);
}

double kryl_ref_amax_range(kryl_vector x, int64_t begin, int64_t end)
{
    double m = 0.0;
    for (int64_t i = begin; i < end; i++) {
        const double v = x->precision == KRYL_DOUBLE ? ((const double *)x->data)[i]
                                                     : (double)((const float *)x->data)[i];
        m = isnan(v) ? INFINITY : fmax(m, fabs(v));
    }
    return m;
}

kryl_status kryl_ref_amax(kryl_context ctx, kryl_vector x, kryl_scalar out)
{
    (void)ctx;
    /* out = max |x_i| */
    *out.ptr = kryl_ref_amax_range(x, 0, x->n);
    return KRYL_SUCCESS;
}
