/* Solve -lap u = 1 on the unit square with u = 0 on the boundary: the
 * 5-point finite-difference matrix is assembled entry by entry through the
 * kryl assembly API, then solved with Jacobi-preconditioned CG.
 *
 * The continuous solution peaks at the centre with u(1/2, 1/2) = 0.07367
 * (the series solution of the torsion problem on a square); the discrete
 * peak on a 50 x 50 grid is 0.07360, 0.1% below it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kryl.h>

#define M 50 /* interior grid points per direction, h = 1/(M+1) */

/* Stop the program with kryl's message when a call fails. */
static void check(kryl_status status, const char *call)
{
    if (status == KRYL_SUCCESS) return;
    fprintf(stderr, "%s failed: %s: %s\n", call, kryl_strerror(status), kryl_last_error());
    exit(EXIT_FAILURE);
}

/* a_(row, col) += value */
static void add(kryl_assembly assembly, int64_t row, int64_t col, double value)
{
    check(kryl_assembly_add_value(assembly, row, col, value), "kryl_assembly_add_value");
}

int main(void)
{
    const int64_t n = (int64_t)M * M;
    const double h = 1.0 / (M + 1);
    kryl_context ctx;
    check(kryl_context_create(&ctx, NULL), "kryl_context_create");
    printf("backend: %s (%s)\n", kryl_backend_name(kryl_context_backend(ctx)),
           kryl_context_device_name(ctx));

    /* Row (i, j) of h^2 * (-lap u): 4 u_ij - u_(i-1)j - u_(i+1)j - u_i(j-1) - u_i(j+1). */
    kryl_assembly assembly;
    check(kryl_assembly_create(&assembly, ctx, n, n, 0, n), "kryl_assembly_create");
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < M; j++) {
            int64_t row = i * M + j;
            add(assembly, row, row, 4.0);
            if (i > 0) add(assembly, row, row - M, -1.0);
            if (i < M - 1) add(assembly, row, row + M, -1.0);
            if (j > 0) add(assembly, row, row - 1, -1.0);
            if (j < M - 1) add(assembly, row, row + 1, -1.0);
        }
    }
    kryl_matrix A;
    check(kryl_assembly_finish(assembly, &A), "kryl_assembly_finish");
    kryl_assembly_destroy(&assembly);

    /* b = h^2 * f with f = 1; x = 0 as the initial guess. */
    kryl_vector b, x;
    check(kryl_vector_create(&b, A, KRYL_DOUBLE), "kryl_vector_create(b)");
    check(kryl_vector_create(&x, A, KRYL_DOUBLE), "kryl_vector_create(x)");
    check(kryl_vector_fill(b, h * h), "kryl_vector_fill");

    kryl_solver_options options;
    kryl_solver_options_init(&options);
    options.method = KRYL_METHOD_PCG;
    options.precond = KRYL_PRECOND_JACOBI;
    options.rtol = 1e-10;
    kryl_solver solver;
    kryl_result result;
    check(kryl_solver_create(&solver, A, &options), "kryl_solver_create");
    check(kryl_solver_solve(solver, b, x, &result), "kryl_solver_solve");

    /* max_ij u_ij, expected near the continuous peak 0.07367. */
    double *u = malloc((size_t)n * sizeof *u);
    if (u == NULL) return EXIT_FAILURE;
    check(kryl_vector_get(x, u, n), "kryl_vector_get");
    double umax = 0.0;
    for (int64_t k = 0; k < n; k++) umax = fmax(umax, u[k]);
    bool peak_ok = fabs(umax - 0.07367) < 1e-3;

    printf("iterations: %lld\n", (long long)result.iterations);
    printf("true relative residual: %.3e\n", result.relres);
    printf("converged: %s (%s)\n", result.converged ? "yes" : "no",
           kryl_reason_name(result.reason));
    printf("max u: %.6f (expected about 0.0737)\n", umax);

    free(u);
    kryl_solver_destroy(&solver);
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    return result.converged && peak_ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
