/* The cuda backend's triangular solves against the ref backend's
 * substitution, by every solve path (levels, syncfree, host, each forced,
 * and the one setup chooses): random lower/upper, unit/non-unit triangles
 * of awkward sizes, a dense row, a tridiagonal chain (a level per row) and
 * the factors of IC(0) and ILU(0), in double and single; each path solves
 * twice (its flags reset) and once more replayed from a captured graph;
 * then PCG + IC(0) and GMRES + ILU(0) solves on the device, checked by the
 * true residual.  Skipped (77) without a usable device. */
#include <string.h>

#include "backends/backend.h"
#include "factor/factor.h"
#include "order/order.h"
#include "test_krylov_support.h"
#include "trsv_support.h"
#ifdef KRYL_HAVE_CUDA
#include "backends/cuda/cuda_trsv_hooks.h"
#define TEST_PATHS KRYL_CUDA_TRSV_PATHS
#else
#define TEST_PATHS 1
#endif

/* The triangle on ctx by `path` (0: the ops' trsv_setup, which chooses). */
static void *setup_on(kryl_context ctx, const kryl_csr *T, const kryl_levels *lv,
                      kryl_precision precision, bool lower, bool unit, int path)
{
    void *handle = NULL;
#ifdef KRYL_HAVE_CUDA
    if (path != 0) {
        CHECK_OK(kryl_cuda_trsv_setup_path(ctx, T, precision, lower, unit, lv->order, lv->level_ptr,
                                           lv->nlevels, (kryl_cuda_trsv_path_kind)path, &handle));
        if (handle)
            CHECK(strcmp(ctx->ops->trsv_path(ctx, handle),
                         kryl_cuda_trsv_path_name((kryl_cuda_trsv_path_kind)path)) == 0,
                  "forced path %s, reported %s",
                  kryl_cuda_trsv_path_name((kryl_cuda_trsv_path_kind)path),
                  ctx->ops->trsv_path(ctx, handle));
        return handle;
    }
#endif
    CHECK_OK(ctx->ops->trsv_setup(ctx, T, precision, lower, unit, lv->order, lv->level_ptr,
                                  lv->nlevels, &handle));
    return handle;
}

/* x = T^{-1} b on ctx by `path`, b and x given and returned as doubles;
 * with graphs, x2 = T^{-1} (2 b) by a replay of a captured solve (else x2
 * = 2 x), after a second plain solve. */
static void solve_on(kryl_context ctx, const kryl_csr *T, const kryl_levels *lv,
                     kryl_precision precision, bool lower, bool unit, int path, const double *b,
                     double *x, double *x2)
{
    int64_t n = T->nrows;
    void *buf = malloc((size_t)(n > 0 ? n : 1) * kryl_precision_size(precision));
    struct kryl_vector_s bv = test_trsv_vector(ctx, n, precision),
                         xv = test_trsv_vector(ctx, n, precision);
    void *handle = setup_on(ctx, T, lv, precision, lower, unit, path);
    test_trsv_upload(ctx, &bv, b, 1.0, buf);
    /* twice: the second solve finds whatever state the first left */
    for (int k = 0; k < 2 && handle; k++) CHECK_OK(ctx->ops->trsv(ctx, handle, &bv, &xv));
    test_trsv_download(ctx, &xv, buf, x);
    for (int64_t i = 0; i < n; i++) x2[i] = 2.0 * x[i];
    if (handle && ctx->ops->capture_begin) {
        void *graph = NULL;
        test_trsv_upload(ctx, &bv, b, 2.0, buf);
        CHECK_OK(ctx->ops->capture_begin(ctx));
        kryl_status st = ctx->ops->trsv(ctx, handle, &bv, &xv);
        CHECK_OK(ctx->ops->capture_end(ctx, &graph));
        CHECK_OK(st);
        /* replayed twice */
        for (int k = 0; k < 2 && graph; k++) CHECK_OK(ctx->ops->graph_launch(ctx, graph));
        if (graph) test_trsv_download(ctx, &xv, buf, x2);
        if (graph) ctx->ops->graph_release(ctx, graph);
    }
    ctx->ops->trsv_release(ctx, handle);
    ctx->ops->release(ctx, bv.data);
    ctx->ops->release(ctx, xv.data);
    free(buf);
}

/* The cuda solve of T by every path matches ref's in both precisions. */
static void check_triangle(kryl_context ref, kryl_context gpu, const kryl_csr *T, bool lower,
                           bool unit, const char *what)
{
    int64_t n = T->nrows;
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
    kryl_levels lv = {0};
    CHECK_OK(kryl_order_levels(T, NULL, lower ? KRYL_LOWER : KRYL_UPPER, &lv));
    double *b = malloc(bytes), *x = malloc(bytes), *x2 = malloc(bytes);
    double *xref = malloc(bytes), *xref2 = malloc(bytes);
    test_random_values(b, n, 7 + (uint64_t)n);
    const kryl_precision precisions[] = {KRYL_DOUBLE, KRYL_SINGLE};
    for (int p = 0; p < 2; p++) {
        solve_on(ref, T, &lv, precisions[p], lower, unit, 0, b, xref, xref2);
        for (int path = 0; path < TEST_PATHS; path++) {
            solve_on(gpu, T, &lv, precisions[p], lower, unit, path, b, x, x2);
            double diff = test_rel_diff(x, xref, n), tol = p == 0 ? 1e-12 : 1e-4;
            double diff2 = test_rel_diff(x2, xref2, n);
#ifdef KRYL_HAVE_CUDA
            const char *name = kryl_cuda_trsv_path_name((kryl_cuda_trsv_path_kind)path);
#else
            const char *name = "auto";
#endif
            CHECK(diff <= tol && diff2 <= tol,
                  "%s (%s %s, n = %lld, %d levels, %s, path %s): cuda differs from ref by "
                  "%.3e (%.3e replayed from a graph)",
                  what, lower ? "lower" : "upper", unit ? "unit" : "non-unit", (long long)n,
                  (int)lv.nlevels, p == 0 ? "double" : "single", name, diff, diff2);
        }
    }
    free(b);
    free(x);
    free(x2);
    free(xref);
    free(xref2);
    kryl_levels_free(&lv);
}

static void test_random(kryl_context ref, kryl_context gpu)
{
    const int64_t sizes[] = {1, 31, 33, 257, 4099};
    for (int s = 0; s < 5; s++)
        for (int shape = 0; shape < 4; shape++) {
            bool lower = shape < 2, unit = shape % 2 == 1;
            kryl_csr T = {0};
            test_random_triangle(&T, sizes[s], lower, unit, 100 + (uint64_t)(s * 4 + shape));
            check_triangle(ref, gpu, &T, lower, unit, "random triangle");
            kryl_csr_free(&T);
        }
}

static void test_shapes(kryl_context ref, kryl_context gpu)
{
    for (int shape = 0; shape < 4; shape++) {
        bool lower = shape < 2, unit = shape % 2 == 1;
        kryl_csr T = {0};
        test_shaped_triangle(&T, 3000, lower, unit, true);
        check_triangle(ref, gpu, &T, lower, unit, "dense row");
        kryl_csr_free(&T);
        test_shaped_triangle(&T, 1500, lower, unit, false);
        check_triangle(ref, gpu, &T, lower, unit, "tridiagonal chain");
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
    test_shapes(ref, gpu);
    test_factors(ref, gpu);
    check_solve(gpu, KRYL_GEN_POISSON2D5, KRYL_METHOD_PCG, KRYL_PRECOND_IC0,
                "pcg + ic0 on poisson2d (cuda)");
    check_solve(gpu, KRYL_GEN_CONVDIFF2D, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0,
                "gmres + ilu0 on convdiff2d (cuda)");
    kryl_context_destroy(&ref);
    kryl_context_destroy(&gpu);
    return test_summary("test_cuda_trsv");
}
