/* kryl_vector_set_device / kryl_vector_get_device and kryl_vector_wrap on
 * every available backend, with memory from the backend's own allocator (device memory on
 * cuda, host memory on ref and omp): the round trip equals kryl_vector_set
 * and kryl_vector_get, a solve from a b set this way equals one from the
 * host b, a solve between wrapped vectors reads b and writes x in place,
 * wrong lengths and NULL are refused, and a NaN set this way is refused by
 * the solve. */
#include "backends/backend.h"
#include "test_krylov_support.h"

/* n doubles of backend memory holding `values`. */
static double *backend_copy(kryl_context ctx, const double *values, int64_t n)
{
    const kryl_backend_ops *ops = ctx->ops;
    void *p = NULL;
    CHECK_OK(ops->alloc(ctx, &p, (size_t)n * sizeof(double)));
    if (p != NULL) CHECK_OK(ops->upload(ctx, p, values, (size_t)n * sizeof(double)));
    CHECK_OK(ops->synchronize(ctx));
    return p;
}

static double max_difference(const double *a, const double *b, int64_t n)
{
    double d = 0.0;
    for (int64_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static void check_backend(kryl_context ctx)
{
    const kryl_backend_ops *ops = ctx->ops;
    const char *name = kryl_backend_name(kryl_context_backend(ctx));
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 37);
    int64_t n = kt_rows(A);
    double *values = malloc((size_t)n * sizeof *values), *back = malloc((size_t)n * sizeof *back);
    double *x_host = malloc((size_t)n * sizeof *x_host);
    test_random_values(values, n, 17);
    double *device_b = backend_copy(ctx, values, n);
    double *device_x = backend_copy(ctx, values, n);
    kryl_vector b = NULL, x = NULL;
    CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));

    /* the round trip: device -> v -> host, and v -> device -> host */
    CHECK_OK(kryl_vector_set_device(b, device_b, n));
    CHECK_OK(kryl_vector_get(b, back, n));
    CHECK(max_difference(back, values, n) == 0.0, "%s: set_device then get differ", name);
    CHECK_OK(kryl_vector_fill(x, 0.0));
    CHECK_OK(kryl_vector_get_device(x, device_x, n));
    CHECK_OK(ops->download(ctx, back, device_x, (size_t)n * sizeof(double)));
    CHECK_OK(ops->synchronize(ctx));
    for (int64_t i = 0; i < n; i++)
        CHECK(back[i] == 0.0, "%s: get_device of 0 gave %g", name, back[i]);

    /* a solve from the device b equals one from the host b */
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, 1e-10, 1000);
    kryl_solver s = NULL;
    kryl_result r;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    CHECK_OK(kryl_solver_solve(s, b, x, &r));
    CHECK(r.converged, "%s: the solve from a device b did not converge", name);
    CHECK_OK(kryl_vector_get_device(x, device_x, n));
    CHECK_OK(ops->download(ctx, x_host, device_x, (size_t)n * sizeof(double)));
    CHECK_OK(ops->synchronize(ctx));
    kt_solve host = kt_run(A, &o, values, NULL, back);
    CHECK(host.r.converged, "%s: the host solve did not converge", name);
    /* the same solve up to the order of cuda's reductions */
    CHECK(max_difference(x_host, back, n) <= 1e-12, "%s: x from the device b differs by %g", name,
          max_difference(x_host, back, n));

    /* b and x wrapped: the solve reads and writes the caller's memory */
    kryl_vector bw = NULL, xw = NULL;
    CHECK_OK(kryl_vector_wrap(&bw, A, device_b, n));
    CHECK_OK(kryl_vector_wrap(&xw, A, device_x, n));
    CHECK_OK(kryl_vector_fill(xw, 0.0));
    CHECK_OK(kryl_solver_solve(s, bw, xw, &r));
    CHECK(r.converged, "%s: the solve between wrapped vectors did not converge", name);
    CHECK_OK(ops->download(ctx, x_host, device_x, (size_t)n * sizeof(double)));
    CHECK_OK(ops->synchronize(ctx));
    CHECK(max_difference(x_host, back, n) <= 1e-12, "%s: x written in place differs by %g", name,
          max_difference(x_host, back, n));
    kryl_vector_destroy(&bw); /* the memory stays the caller's */
    kryl_vector_destroy(&xw);
    CHECK_STATUS(kryl_vector_wrap(&bw, A, device_b, n + 1), KRYL_ERR_DIMENSION_MISMATCH);
    CHECK(bw == NULL, "%s: a refused wrap left a vector", name);
    CHECK_STATUS(kryl_vector_wrap(&bw, A, NULL, n), KRYL_ERR_INVALID_ARGUMENT);

    /* refusals: a wrong length, NULL, and a NaN that only the solve sees */
    CHECK_STATUS(kryl_vector_set_device(b, device_b, n - 1), KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(kryl_vector_get_device(b, device_b, n + 1), KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(kryl_vector_set_device(b, NULL, n), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_vector_get_device(NULL, device_b, n), KRYL_ERR_INVALID_ARGUMENT);
    values[n / 2] = NAN;
    CHECK_OK(ops->upload(ctx, device_b, values, (size_t)n * sizeof(double)));
    CHECK_OK(ops->synchronize(ctx));
    CHECK_OK(kryl_vector_set_device(b, device_b, n));
    CHECK_STATUS(kryl_solver_solve(s, b, x, &r), KRYL_ERR_INVALID_VALUE);
    CHECK(strstr(kryl_last_error(), "NaN") != NULL, "%s: the refusal does not say NaN: %s", name,
          kryl_last_error());

    kryl_solver_destroy(&s);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    ops->release(ctx, device_b);
    ops->release(ctx, device_x);
    free(values);
    free(back);
    free(x_host);
    kryl_matrix_destroy(&A);
}

int main(void)
{
    kt_each_backend(check_backend);
    return test_summary("test_vector_device");
}
