/* kryl_solver_apply_preconditioner: z = M^{-1} r alone, in the caller's
 * row order and in double, on every available backend.  Checked exactly
 * where M is known (none: z = r; Jacobi: z = r ./ diag(A), through formats
 * that sort rows and a single-precision iteration; ILU(0), IC(0), ILU(k)
 * and one-block block Jacobi of a tridiagonal matrix, natural or reversed
 * by RCM: no fill is dropped, so M = A and A z = r), and for every kind by linearity
 * (M^{-1}(r1 + 2 r2) = z1 + 2 z2) on a 2-D Laplacian; refusals of a wrong
 * length and of z aliasing r. */
#include "test_krylov_support.h"

/* The n x n tridiagonal matrix with diagonal 4, sub-diagonal -1 and
 * super-diagonal `upper` (-1: symmetric). */
static kryl_matrix tridiagonal(kryl_context ctx, int64_t n, double upper)
{
    double *dense = calloc((size_t)(n * n), sizeof *dense);
    for (int64_t i = 0; i < n; i++) {
        dense[i * n + i] = 4.0;
        if (i > 0) dense[i * n + i - 1] = -1.0;
        if (i + 1 < n) dense[i * n + i + 1] = upper;
    }
    kryl_matrix A = kt_dense(ctx, n, dense);
    free(dense);
    return A;
}

/* z = M^{-1} r of the solver built with `o` for A, on host arrays; false
 * when the backend refuses the solver (kt_supported). */
static bool apply(kryl_context ctx, kryl_matrix A, const kryl_solver_options *o, const double *rh,
                  double *zh, const char *label)
{
    int64_t n = kt_rows(A);
    kt_solve created = {.o = *o};
    kryl_solver s = NULL;
    created.create = kryl_solver_create(&s, A, o);
    if (!kt_supported(ctx, &created, label)) return false;
    kryl_vector r = NULL, z = NULL;
    CHECK_OK(kryl_vector_create(&r, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&z, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(r, rh, n));
    CHECK_OK(kryl_solver_apply_preconditioner(s, r, z));
    CHECK_OK(kryl_vector_get(z, zh, n));
    kryl_vector_destroy(&r);
    kryl_vector_destroy(&z);
    kryl_solver_destroy(&s);
    return true;
}

/* max_i |a_i - b_i| / max(1, max_i |b_i|) */
static double max_difference(const double *a, const double *b, int64_t n)
{
    double d = 0.0, scale = 1.0;
    for (int64_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        scale = fmax(scale, fabs(b[i]));
    }
    return d / scale;
}

/* y = A x on the host from the CSR view. */
static void host_spmv(kryl_matrix A, const double *x, double *y)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    kryl_matrix_csr_view(A, &rp, &ci, &v);
    for (int64_t i = 0; i < kt_rows(A); i++) {
        y[i] = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) y[i] += v[k] * x[ci[k]];
    }
}

/* D A D for the 2-D Laplacian A on N x N points (rows of 3 to 5 entries)
 * and d_i = 1 + (i mod 7)/7: a diagonal that differs from row to row, so a
 * row order mixed up on the way in or out shows. */
static kryl_matrix scaled_laplacian(kryl_context ctx, int64_t N, double *diagonal)
{
    kryl_matrix L = kt_generate(ctx, KRYL_GEN_POISSON2D5, N);
    int64_t n = kt_rows(L);
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    kryl_matrix_csr_view(L, &rp, &ci, &v);
    int64_t *cols = malloc((size_t)rp[n] * sizeof *cols);
    double *values = malloc((size_t)rp[n] * sizeof *values);
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            cols[k] = ci[k];
            values[k] = (1.0 + (double)(i % 7) / 7.0) * v[k] * (1.0 + (double)(ci[k] % 7) / 7.0);
            if (ci[k] == i) diagonal[i] = values[k];
        }
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_create_csr(&A, ctx, n, n, 0, n, rp, cols, values));
    free(cols);
    free(values);
    kryl_matrix_destroy(&L);
    return A;
}

/* none and Jacobi, exactly, in CSR and in formats that sort rows, in
 * double and in single precision. */
static void check_pointwise(kryl_context ctx)
{
    enum { N = 13 };
    int64_t n = N * N;
    double *r = malloc((size_t)n * sizeof *r), *z = malloc((size_t)n * sizeof *z);
    double *want = malloc((size_t)n * sizeof *want), *diagonal = malloc((size_t)n * sizeof *want);
    kryl_matrix A = scaled_laplacian(ctx, N, diagonal);
    test_random_values(r, n, 7);
    const kryl_format formats[] = {KRYL_FORMAT_CSR, KRYL_FORMAT_SELL, KRYL_FORMAT_JDS};
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++)
        for (int single = 0; single <= 1; single++) {
            kryl_solver_options o;
            kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_NONE, 1e-8, 100);
            o.format = formats[f];
            o.precision = single ? KRYL_SINGLE : KRYL_DOUBLE;
            double tol = single ? 1e-6 : 1e-15;
            char label[96];
            snprintf(label, sizeof label, "%s, %s, %s",
                     kryl_backend_name(kryl_context_backend(ctx)), kryl_format_name(o.format),
                     kryl_precision_name(o.precision));
            if (apply(ctx, A, &o, r, z, label))
                CHECK(max_difference(z, r, n) <= tol, "%s: none: z != r (%g)", label,
                      max_difference(z, r, n));
            o.precond = KRYL_PRECOND_JACOBI;
            for (int64_t i = 0; i < n; i++) want[i] = r[i] / diagonal[i];
            if (apply(ctx, A, &o, r, z, label))
                CHECK(max_difference(z, want, n) <= tol, "%s: jacobi: z != r/diag (%g)", label,
                      max_difference(z, want, n));
        }
    /* a mixed scheme: the inner single-precision solver's Jacobi */
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, 1e-8, 100);
    o.precision = KRYL_MIXED;
    o.mixed = KRYL_MIXED_IR;
    if (apply(ctx, A, &o, r, z, "mixed ir"))
        CHECK(max_difference(z, want, n) <= 1e-6, "mixed ir: jacobi: z != r/diag (%g)",
              max_difference(z, want, n));
    free(r);
    free(z);
    free(want);
    free(diagonal);
    kryl_matrix_destroy(&A);
}

/* The factorizations of a tridiagonal matrix drop nothing: A z = r. */
static void check_exact_factorizations(kryl_context ctx)
{
    enum { N = 57 };
    double r[N], z[N], az[N];
    test_random_values(r, N, 11);
    const kryl_precond_kind kinds[] = {KRYL_PRECOND_ILU0, KRYL_PRECOND_ILUK, KRYL_PRECOND_IC0,
                                       KRYL_PRECOND_BJACOBI};
    const kryl_order_kind orders[] = {KRYL_ORDER_NONE, KRYL_ORDER_RCM};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (size_t f = 0; f < sizeof orders / sizeof *orders; f++) {
            bool symmetric = kinds[k] == KRYL_PRECOND_IC0;
            kryl_matrix A = tridiagonal(ctx, N, symmetric ? -1.0 : -2.0);
            kryl_solver_options o;
            kt_options(&o, symmetric ? KRYL_METHOD_CG : KRYL_METHOD_GMRES, kinds[k], 1e-8, 100);
            o.order = orders[f];
            o.blocks = 1;
            char label[96];
            snprintf(label, sizeof label, "%s, %s, %s",
                     kryl_backend_name(kryl_context_backend(ctx)), kryl_precond_name(kinds[k]),
                     kryl_order_name(o.order));
            if (apply(ctx, A, &o, r, z, label)) {
                host_spmv(A, z, az);
                CHECK(max_difference(az, r, N) <= 1e-12, "%s: A M^{-1} r != r (%g)", label,
                      max_difference(az, r, N));
            }
            kryl_matrix_destroy(&A);
        }
}

/* Every kind is linear: M^{-1}(r1 + 2 r2) = z1 + 2 z2. */
static void check_linear(kryl_context ctx)
{
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 20);
    int64_t n = kt_rows(A);
    double *r1 = malloc((size_t)n * sizeof *r1), *r2 = malloc((size_t)n * sizeof *r2);
    double *r3 = malloc((size_t)n * sizeof *r3), *z1 = malloc((size_t)n * sizeof *z1);
    double *z2 = malloc((size_t)n * sizeof *z2), *z3 = malloc((size_t)n * sizeof *z3);
    test_random_values(r1, n, 3);
    test_random_values(r2, n, 5);
    for (int64_t i = 0; i < n; i++) r3[i] = r1[i] + 2.0 * r2[i];
    for (int kind = KRYL_PRECOND_NONE; kind <= KRYL_PRECOND_MCILU0; kind++) {
        kryl_solver_options o;
        /* ILUT is not symmetric: CG methods refuse it */
        kt_options(&o, kind == KRYL_PRECOND_ILUT ? KRYL_METHOD_GMRES : KRYL_METHOD_CG,
                   (kryl_precond_kind)kind, 1e-8, 100);
        char label[96];
        snprintf(label, sizeof label, "%s, %s", kryl_backend_name(kryl_context_backend(ctx)),
                 kryl_precond_name(o.precond));
        if (!apply(ctx, A, &o, r1, z1, label) || !apply(ctx, A, &o, r2, z2, label) ||
            !apply(ctx, A, &o, r3, z3, label))
            continue;
        for (int64_t i = 0; i < n; i++) z2[i] = z1[i] + 2.0 * z2[i];
        CHECK(max_difference(z3, z2, n) <= 1e-12, "%s: not linear (%g)", label,
              max_difference(z3, z2, n));
    }
    free(r1);
    free(r2);
    free(r3);
    free(z1);
    free(z2);
    free(z3);
    kryl_matrix_destroy(&A);
}

/* A vector of another length and z = r are refused. */
static void check_refusals(kryl_context ctx)
{
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 6);
    kryl_matrix B = kt_generate(ctx, KRYL_GEN_POISSON2D5, 5);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, 1e-8, 100);
    kryl_solver s = NULL;
    kryl_vector r = NULL, z = NULL, short_z = NULL;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    CHECK_OK(kryl_vector_create(&r, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&z, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&short_z, B, KRYL_DOUBLE));
    CHECK_STATUS(kryl_solver_apply_preconditioner(s, r, short_z), KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(kryl_solver_apply_preconditioner(s, r, r), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_solver_apply_preconditioner(NULL, r, z), KRYL_ERR_INVALID_ARGUMENT);
    kryl_vector_destroy(&short_z);
    kryl_vector_destroy(&z);
    kryl_vector_destroy(&r);
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&B);
    kryl_matrix_destroy(&A);
}

int main(void)
{
    const kryl_backend_kind backends[] = {KRYL_BACKEND_REF, KRYL_BACKEND_OMP, KRYL_BACKEND_CUDA};
    for (size_t b = 0; b < sizeof backends / sizeof *backends; b++) {
        if (!kryl_backend_available(backends[b])) {
            printf("%s: not available, skipped\n", kryl_backend_name(backends[b]));
            continue;
        }
        kryl_context ctx = kt_context(backends[b]);
        check_pointwise(ctx);
        check_exact_factorizations(ctx);
        check_linear(ctx);
        check_refusals(ctx);
        kryl_context_destroy(&ctx);
    }
    return test_summary("test_solver_apply_precond");
}
