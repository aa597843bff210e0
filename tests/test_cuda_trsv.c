/* The cuda backend's level-scheduled triangular solves against the ref
 * backend's substitution: random lower/upper, unit/non-unit triangles of
 * awkward sizes and the factors of IC(0) and ILU(0), in double and single;
 * then PCG + IC(0) and GMRES + ILU(0) solves on the device, checked by the
 * true residual.  Skipped (77) without a usable device. */
#include <math.h>

#include "backends/backend.h"
#include "factor/factor.h"
#include "order/order.h"
#include "test_krylov_support.h"

/* A vector of n entries of `precision` in ctx's memory (data NULL on failure). */
static struct kryl_vector_s make_vector(kryl_context ctx, int64_t n, kryl_precision precision)
{
    struct kryl_vector_s v = {ctx, NULL, n, precision, NULL};
    CHECK_OK(
        ctx->ops->alloc(ctx, &v.data, (size_t)(n > 0 ? n : 1) * kryl_precision_size(precision)));
    return v;
}

/* x = T^{-1} b on ctx, b and x given and returned as doubles. */
static void solve_on(kryl_context ctx, const kryl_csr *T, const kryl_levels *lv,
                     kryl_precision precision, bool lower, bool unit, const double *b, double *x)
{
    int64_t n = T->nrows;
    size_t size = kryl_precision_size(precision);
    void *buf = malloc((size_t)(n > 0 ? n : 1) * size);
    struct kryl_vector_s bv = make_vector(ctx, n, precision), xv = make_vector(ctx, n, precision);
    void *handle = NULL;
    CHECK_OK(ctx->ops->trsv_setup(ctx, T, precision, lower, unit, lv->order, lv->level_ptr,
                                  lv->nlevels, &handle));
    /* buf = b in the working precision */
    for (int64_t i = 0; i < n; i++) {
        if (precision == KRYL_DOUBLE)
            ((double *)buf)[i] = b[i];
        else
            ((float *)buf)[i] = (float)b[i];
    }
    CHECK_OK(ctx->ops->upload(ctx, bv.data, buf, (size_t)n * size));
    if (handle) CHECK_OK(ctx->ops->trsv(ctx, handle, &bv, &xv));
    CHECK_OK(ctx->ops->download(ctx, buf, xv.data, (size_t)n * size));
    /* x = buf in double */
    for (int64_t i = 0; i < n; i++)
        x[i] = precision == KRYL_DOUBLE ? ((double *)buf)[i] : (double)((float *)buf)[i];
    ctx->ops->trsv_release(ctx, handle);
    ctx->ops->release(ctx, bv.data);
    ctx->ops->release(ctx, xv.data);
    free(buf);
}

/* The cuda solve of T matches ref's in both precisions. */
static void check_triangle(kryl_context ref, kryl_context gpu, const kryl_csr *T, bool lower,
                           bool unit, const char *what)
{
    int64_t n = T->nrows;
    kryl_levels lv = {0};
    CHECK_OK(kryl_order_levels(T, NULL, lower ? KRYL_LOWER : KRYL_UPPER, &lv));
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    double *xref = malloc((size_t)n * sizeof *xref);
    test_random_values(b, n, 7 + (uint64_t)n);
    const kryl_precision precisions[] = {KRYL_DOUBLE, KRYL_SINGLE};
    for (int p = 0; p < 2; p++) {
        solve_on(ref, T, &lv, precisions[p], lower, unit, b, xref);
        solve_on(gpu, T, &lv, precisions[p], lower, unit, b, x);
        double diff = test_rel_diff(x, xref, n), tol = p == 0 ? 1e-12 : 1e-4;
        CHECK(diff <= tol, "%s (%s %s, n = %lld, %d levels, %s): cuda differs from ref by %.3e",
              what, lower ? "lower" : "upper", unit ? "unit" : "non-unit", (long long)n,
              (int)lv.nlevels, p == 0 ? "double" : "single", diff);
    }
    free(b);
    free(x);
    free(xref);
    kryl_levels_free(&lv);
}

/* The `lower` (or upper) triangle of a random n x n matrix, with a diagonal
 * dominating each row unless unit (then no diagonal is stored). */
static void random_triangle(kryl_csr *T, int64_t n, bool lower, bool unit, uint64_t seed)
{
    kryl_csr A = {0};
    test_random_csr(&A, TEST_SHAPE_RANDOM, n, n, seed);
    CHECK_OK(kryl_csr_alloc(T, n, n, kryl_csr_nnz(&A) + n));
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) {
        /* the diagonal comes first in an upper row, last in a lower one */
        int64_t diag = lower ? -1 : nnz;
        if (!unit && !lower) nnz++;
        double sum = 0.0;
        for (int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++) {
            int64_t j = A.col_idx[k];
            if (j == i || (lower ? j > i : j < i)) continue;
            T->col_idx[nnz] = (int32_t)j;
            T->values[nnz++] = A.values[k];
            sum += fabs(A.values[k]);
        }
        if (!unit && lower) diag = nnz++;
        /* t_ii = 1 + sum_{j != i} |t_ij| */
        if (!unit) {
            T->col_idx[diag] = (int32_t)i;
            T->values[diag] = 1.0 + sum;
        }
        T->row_ptr[i + 1] = nnz;
    }
    kryl_csr_free(&A);
}

static void test_random(kryl_context ref, kryl_context gpu)
{
    const int64_t sizes[] = {1, 31, 33, 257, 4099};
    for (int s = 0; s < 5; s++)
        for (int shape = 0; shape < 4; shape++) {
            bool lower = shape < 2, unit = shape % 2 == 1;
            kryl_csr T = {0};
            random_triangle(&T, sizes[s], lower, unit, 100 + (uint64_t)(s * 4 + shape));
            check_triangle(ref, gpu, &T, lower, unit, "random triangle");
            kryl_csr_free(&T);
        }
}

/* Both factors of IC(0) and ILU(0) of generated matrices. */
static void test_factors(kryl_context ref, kryl_context gpu)
{
    kryl_matrix P = kt_generate(ref, KRYL_GEN_POISSON2D5, 40);
    kryl_matrix C = kt_generate(ref, KRYL_GEN_CONVDIFF2D, 40);
    kryl_factor F = {0};
    if (P) {
        CHECK_OK(kryl_factor_ic0(&P->host->csr, &F));
        check_triangle(ref, gpu, &F.L, true, F.unit_lower, "ic0 L of poisson2d");
        check_triangle(ref, gpu, &F.U, false, false, "ic0 U of poisson2d");
        kryl_factor_free(&F);
        CHECK_OK(kryl_factor_ilu0(&P->host->csr, &F));
        check_triangle(ref, gpu, &F.L, true, F.unit_lower, "ilu0 L of poisson2d");
        check_triangle(ref, gpu, &F.U, false, false, "ilu0 U of poisson2d");
        kryl_factor_free(&F);
    }
    if (C) {
        CHECK_OK(kryl_factor_ilu0(&C->host->csr, &F));
        check_triangle(ref, gpu, &F.L, true, F.unit_lower, "ilu0 L of convdiff2d");
        check_triangle(ref, gpu, &F.U, false, false, "ilu0 U of convdiff2d");
        kryl_factor_free(&F);
    }
    kryl_matrix_destroy(&P);
    kryl_matrix_destroy(&C);
}

/* A preconditioned solve on the device converges by the true residual. */
static void check_solve(kryl_context gpu, kryl_generator_kind gen, kryl_method method,
                        kryl_precond_kind pc, const char *label)
{
    kryl_matrix A = kt_generate(gpu, gen, 40);
    if (A == NULL) return;
    double *b = kt_rhs(A, 3);
    kryl_solver_options o;
    kt_options(&o, method, pc, 1e-8, 2000);
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    CHECK(s.create == KRYL_SUCCESS, "%s: create failed: %s", label, kryl_last_error());
    if (s.create == KRYL_SUCCESS) kt_check_converged(&s, label);
    free(b);
    kryl_matrix_destroy(&A);
}

int main(void)
{
    if (!test_cuda_device("test_cuda_trsv")) return TEST_SKIP_CODE;
    kryl_context ref = test_context(KRYL_BACKEND_REF);
    kryl_context gpu = test_context(KRYL_BACKEND_CUDA);
    test_random(ref, gpu);
    test_factors(ref, gpu);
    check_solve(gpu, KRYL_GEN_POISSON2D5, KRYL_METHOD_PCG, KRYL_PRECOND_IC0,
                "pcg + ic0 on poisson2d (cuda)");
    check_solve(gpu, KRYL_GEN_CONVDIFF2D, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0,
                "gmres + ilu0 on convdiff2d (cuda)");
    kryl_context_destroy(&ref);
    kryl_context_destroy(&gpu);
    return test_summary("test_cuda_trsv");
}
