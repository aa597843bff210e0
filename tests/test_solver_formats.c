/* A solve in every storage format reaches the true residual, with the
 * iteration count of CSR within one on well-conditioned problems; formats
 * that sort rows run the whole iteration in the permuted basis. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static kryl_matrix generated(kryl_context ctx, kryl_generator_kind kind, int64_t n)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, n);
    int64_t rows, nnz;
    CHECK_OK(kryl_generator_size(&g, &rows, &nnz));
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_generate(&A, ctx, &g, 0, rows));
    return A;
}

/* Solve with b = A*(1, 2, 3, ...)/n in `format`; returns iterations or -1
 * when the format is refused or missing on this backend. */
/* The ordering solve_in asks for (test_orders sets it). */
static kryl_order_kind current_order = KRYL_ORDER_NONE;
static kryl_precond_kind current_precond = KRYL_PRECOND_JACOBI;

static int64_t solve_in(kryl_matrix A, kryl_format format, kryl_precision precision,
                        const char *label, bool check_x)
{
    int64_t n;
    kryl_matrix_size(A, &n, NULL, NULL);
    double *xs = malloc((size_t)n * sizeof *xs), *xh = malloc((size_t)n * sizeof *xh);
    for (int64_t i = 0; i < n; i++) xs[i] = (double)(i + 1) / (double)n;
    kryl_vector b, x, xt;
    CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&xt, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(xt, xs, n));
    CHECK_OK(kryl_matrix_spmv(A, 1.0, xt, 0.0, b)); /* b = A x* */
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_PCG;
    o.format = format;
    o.order = current_order;
    o.precond = current_precond;
    o.precision = precision;
    o.rtol = precision == KRYL_DOUBLE ? 1e-10 : 1e-5;
    o.max_iterations = 4000;
    kryl_solver s;
    kryl_result r;
    int64_t its = -1;
    kryl_status st = kryl_solver_create(&s, A, &o);
    if (st == KRYL_SUCCESS) {
        CHECK_OK(kryl_solver_solve(s, b, x, &r));
        CHECK(r.converged && r.relres <= o.rtol, "%s %s: %s relres %g", label,
              kryl_format_name(format), kryl_reason_name(r.reason), r.relres);
        CHECK(format == KRYL_FORMAT_AUTO ? r.format != KRYL_FORMAT_AUTO : r.format == format,
              "%s: result says format %s", label, kryl_format_name(r.format));
        CHECK_OK(kryl_vector_get(x, xh, n));
        /* x comes back in the caller's order */
        double err = test_rel_diff(xh, xs, n);
        CHECK(!check_x || err < (precision == KRYL_DOUBLE ? 1e-6 : 1e-2), "%s %s: |x - x*| = %g",
              label, kryl_format_name(format), err);
        its = r.iterations;
        kryl_solver_destroy(&s);
    } else {
        CHECK(st == KRYL_ERR_FORMAT_UNSUITABLE || st == KRYL_ERR_UNSUPPORTED, "%s %s: %s (%s)",
              label, kryl_format_name(format), kryl_strerror(st), kryl_last_error());
        CHECK(strlen(kryl_last_error()) > 20, "refusal without a reason: '%s'", kryl_last_error());
    }
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&xt);
    free(xs);
    free(xh);
    return its;
}

/* compare: well conditioned, so iteration counts and x itself must agree */
static void formats_on(kryl_context ctx, kryl_matrix A, const char *label, bool compare)
{
    for (int p = 0; p < 2; p++) {
        kryl_precision precision = p ? KRYL_SINGLE : KRYL_DOUBLE;
        int64_t csr = solve_in(A, KRYL_FORMAT_CSR, precision, label, compare);
        for (int f = KRYL_FORMAT_ELL; f <= KRYL_FORMAT_DIA; f++) {
            int64_t its = solve_in(A, (kryl_format)f, precision, label, compare);
            if (compare && its >= 0 && precision == KRYL_DOUBLE)
                CHECK(llabs(its - csr) <= 1, "%s %s: %lld iterations, csr %lld", label,
                      kryl_format_name(f), (long long)its, (long long)csr);
        }
        int64_t its = solve_in(A, KRYL_FORMAT_AUTO, precision, label, compare);
        CHECK(its >= 0, "%s: auto format failed", label);
    }
    (void)ctx;
}

/* An ordering (composed with the format's own sort into one permutation)
 * leaves Jacobi-PCG's iteration count alone: P A P^T is the same operator. */
static void test_orders(kryl_context ctx)
{
    kryl_matrix A = generated(ctx, KRYL_GEN_POISSON3D7, 11);
    current_order = KRYL_ORDER_NONE;
    int64_t natural = solve_in(A, KRYL_FORMAT_CSR, KRYL_DOUBLE, "order none", true);
    const kryl_order_kind orders[] = {KRYL_ORDER_RCM, KRYL_ORDER_AMD, KRYL_ORDER_COLOR};
    const kryl_format formats[] = {KRYL_FORMAT_CSR, KRYL_FORMAT_SELL, KRYL_FORMAT_DIA};
    for (int k = 0; k < 3; k++) {
        current_order = orders[k];
        for (int f = 0; f < 3; f++) {
            char label[64];
            snprintf(label, sizeof label, "order %s", kryl_order_name(orders[k]));
            int64_t its = solve_in(A, formats[f], KRYL_DOUBLE, label, true);
            CHECK(its < 0 || llabs(its - natural) <= 1, "%s %s: %lld iterations, natural %lld",
                  label, kryl_format_name(formats[f]), (long long)its, (long long)natural);
            if (formats[f] == KRYL_FORMAT_CSR && orders[k] != KRYL_ORDER_AMD)
                CHECK(its >= 0, "%s csr refused: %s", label, kryl_last_error());
        }
    }
    /* IC(0) is factored in the permuted basis (P A P^T) and still converges */
    current_precond = KRYL_PRECOND_IC0;
    for (int k = 0; k < 3; k++) {
        current_order = orders[k];
        int64_t its = solve_in(A, KRYL_FORMAT_SELL, KRYL_DOUBLE, "ic0 permuted", true);
        CHECK(its != 0, "ic0 in %s order: no iteration", kryl_order_name(orders[k]));
    }
    current_precond = KRYL_PRECOND_JACOBI;
    current_order = KRYL_ORDER_NONE;
    kryl_matrix_destroy(&A);
}

int main(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) {
        kryl_context_options co;
        kryl_context_options_init(&co);
        co.backend = kinds[k];
        kryl_context ctx;
        CHECK_OK(kryl_context_create(&ctx, &co));
        kryl_matrix A = generated(ctx, KRYL_GEN_POISSON2D5, 23);
        formats_on(ctx, A, "poisson2d 23", true);
        kryl_matrix_destroy(&A);
        A = generated(ctx, KRYL_GEN_POISSON3D27, 9);
        formats_on(ctx, A, "poisson3d27 9", true);
        kryl_matrix_destroy(&A);
        A = generated(ctx, KRYL_GEN_RANDOM_SPD, 777);
        formats_on(ctx, A, "random-spd 777", true);
        kryl_matrix_destroy(&A);
        const char *path = test_matrix_path("bcsstk06.mtx");
        if (path) {
            CHECK_OK(kryl_matrix_read_mtx(&A, ctx, path));
            formats_on(ctx, A, "bcsstk06", false);
            kryl_matrix_destroy(&A);
        }
        test_orders(ctx);
        kryl_context_destroy(&ctx);
    }
    return test_summary("test_solver_formats");
}
