/* Time to solution around the iteration: the setup of each solver the
 * setup work is judged by, phase by phase (kryl_result.setup_phases), and
 * new values on the same pattern (kryl_matrix_update_values, then
 * kryl_solver_update) against the time of 10 iterations and against a
 * fresh setup for the new values, with both solves' iteration counts.
 * Through the public API (include/kryl.h), but for the backend's allocator.
 *
 *   bench_setup [n (160)] [backend (auto)]
 *
 * The 7-point Laplacian on an n^3 grid, b = A*1, x0 = 0, rtol 1e-8; the new
 * values those of the tests (tests/support/spd_new_values.h: symmetric,
 * positive definite). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend.h"
#include "bench_try.h"
#include "kryl.h"
#include "spd_new_values.h"

typedef struct setup_case {
    const char *name;
    kryl_method method;
    kryl_precond_kind precond;
    kryl_format format;
    kryl_order_kind order;
} setup_case;

static const setup_case cases[] = {
    {"cg csr", KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_FORMAT_CSR, KRYL_ORDER_NONE},
    {"cg auto", KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_FORMAT_AUTO, KRYL_ORDER_NONE},
    {"pcg jacobi auto", KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, KRYL_FORMAT_AUTO, KRYL_ORDER_NONE},
    {"pcg ic0", KRYL_METHOD_PCG, KRYL_PRECOND_IC0, KRYL_FORMAT_CSR, KRYL_ORDER_NONE},
    {"pcg ic0 --order color", KRYL_METHOD_PCG, KRYL_PRECOND_IC0, KRYL_FORMAT_CSR, KRYL_ORDER_COLOR},
    {"pcg mcssor", KRYL_METHOD_PCG, KRYL_PRECOND_MCSSOR, KRYL_FORMAT_CSR, KRYL_ORDER_NONE},
};

/* The new values on A's pattern (see the header). */
static double *new_values(kryl_matrix A)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    int64_t n, nnz;
    BENCH_TRY(kryl_matrix_size(A, &n, NULL, &nnz));
    BENCH_TRY(kryl_matrix_csr_view(A, &rp, &ci, &v));
    double *w = malloc((size_t)nnz * sizeof *w);
    if (w == NULL) exit(1);
    spd_new_values(n, rp, ci, v, w);
    return w;
}

static kryl_result solve(kryl_solver s, kryl_vector b, kryl_vector x)
{
    kryl_result r;
    BENCH_TRY(kryl_vector_fill(x, 0.0));
    BENCH_TRY(kryl_solver_solve(s, b, x, &r));
    return r;
}

static double now(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 160;
    kryl_context_options co;
    kryl_context_options_init(&co);
    if (argc > 2) BENCH_TRY(kryl_backend_from_name(argv[2], &co.backend));
    kryl_context ctx = NULL;
    BENCH_TRY(kryl_context_create(&ctx, &co));
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_POISSON3D7, n);
    int64_t rows = 0, nnz = 0;
    BENCH_TRY(kryl_generator_size(&g, &rows, &nnz));
    kryl_matrix A = NULL, B = NULL;
    BENCH_TRY(kryl_matrix_generate(&A, ctx, &g, 0, rows));
    BENCH_TRY(kryl_matrix_size(A, NULL, NULL, &nnz));
    double *w = new_values(A);
    /* B: the new values from the start, for the fresh setups */
    const int64_t *rp;
    const int32_t *ci;
    BENCH_TRY(kryl_matrix_csr_view(A, &rp, &ci, NULL));
    int64_t *cols = malloc((size_t)nnz * sizeof *cols);
    if (cols == NULL) return 1;
    for (int64_t k = 0; k < nnz; k++) cols[k] = ci[k];
    BENCH_TRY(kryl_matrix_create_csr(&B, ctx, rows, rows, 0, rows, rp, cols, w));
    free(cols);
    /* the new values in the backend's memory too, as a CuPy caller holds them
     * (the one step past the public API: the backend's allocator) */
    double *w_backend = NULL;
    BENCH_TRY(ctx->ops->alloc(ctx, (void **)&w_backend, (size_t)nnz * sizeof *w));
    BENCH_TRY(ctx->ops->upload(ctx, w_backend, w, (size_t)nnz * sizeof *w));
    kryl_vector b = NULL, x = NULL;
    BENCH_TRY(kryl_vector_create(&b, A, KRYL_DOUBLE));
    BENCH_TRY(kryl_vector_create(&x, A, KRYL_DOUBLE));
    printf("7-point %lld^3 (%lld rows, %lld nonzeros) on %s\n", (long long)n, (long long)rows,
           (long long)nnz, kryl_context_device_name(ctx));
    printf("%-22s %9s %6s %9s | setup phases (ms)\n", "case", "setup ms", "its", "ms/it");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kryl_solver_options o;
        kryl_solver_options_init(&o);
        o.method = cases[c].method;
        o.precond = cases[c].precond;
        o.format = cases[c].format;
        o.order = cases[c].order;
        kryl_solver s = NULL, f = NULL;
        BENCH_TRY(kryl_vector_fill(x, 1.0));
        BENCH_TRY(kryl_matrix_spmv(A, 1.0, x, 0.0, b)); /* b = A 1 */
        BENCH_TRY(kryl_solver_create(&s, A, &o));
        kryl_result r = solve(s, b, x);
        double per_it = r.iterations > 0 ? r.solve_s / (double)r.iterations : 0.0;
        printf("%-22s %9.1f %6lld %9.3f |", cases[c].name, 1e3 * r.setup_s, (long long)r.iterations,
               1e3 * per_it);
        for (int k = 0; k < KRYL_SETUP_PHASES; k++)
            if (r.setup_phases[k] >= 1e-3 * r.setup_s)
                printf(" %s %.1f", kryl_setup_phase_name((kryl_setup_phase)k),
                       1e3 * r.setup_phases[k]);
        printf("\n");
        /* new values, three times: the first update also maps the format's
         * value slots, later ones (a time step, a Newton step) only move
         * values: from the host, then from the backend's memory */
        double t[3][3];
        for (int u = 0; u < 3; u++) {
            t[u][0] = now();
            BENCH_TRY(u < 2 ? kryl_matrix_update_values(A, w)
                            : kryl_matrix_update_values_device(A, w_backend));
            t[u][1] = now();
            BENCH_TRY(kryl_solver_update(s));
            t[u][2] = now();
        }
        kryl_result ru = solve(s, b, x);
        BENCH_TRY(kryl_solver_create(&f, B, &o));
        kryl_result rf = solve(f, b, x);
        static const char *const update_names[3] = {"first", "next ", "device"};
        for (int u = 0; u < 3; u++)
            printf("%-22s %s update: values %.1f ms + solver %.1f ms = %.2fx 10 iterations\n", "",
                   update_names[u], 1e3 * (t[u][1] - t[u][0]), 1e3 * (t[u][2] - t[u][1]),
                   (t[u][2] - t[u][0]) / (10.0 * per_it));
        printf("%-22s fresh setup %.1f ms; iterations %lld updated, %lld fresh\n", "",
               1e3 * rf.setup_s, (long long)ru.iterations, (long long)rf.iterations);
        kryl_solver_destroy(&s);
        kryl_solver_destroy(&f);
        /* back to the first values for the next case */
        kryl_matrix_destroy(&A);
        BENCH_TRY(kryl_matrix_generate(&A, ctx, &g, 0, rows));
    }
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    kryl_matrix_destroy(&A);
    kryl_matrix_destroy(&B);
    ctx->ops->release(ctx, w_backend);
    kryl_context_destroy(&ctx);
    free(w);
    return 0;
}
