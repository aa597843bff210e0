/* The cuda backend's Jones-Plassmann coloring (color_rows, color_group:
 * rounds of kernels, the grouping by a stable sort on the device) and its
 * first-fit coloring (color_first_fit: one sync-free sweep) against the
 * serial oracles on awkward patterns, complete graphs of more than 64
 * colors, grids and the real matrices, and a 3-D grid of 2M rows; then
 * PCG + mcssor and GMRES + mcilu0 on the device in the same iterations as
 * on the host (the same colors, so the same M).  Skipped (77) without a
 * usable device. */
#include "color_support.h"
#include "core/objects.h"
#include "test_krylov_support.h"

/* Iterations of method + kind on the 7-point grid of n^3 rows on `backend`,
 * the iteration matrix in `format`. */
static int64_t iterations(kryl_backend_kind backend, kryl_method method, kryl_precond_kind kind,
                          kryl_format format, int64_t n)
{
    kryl_solver_options o;
    kt_options(&o, method, kind, 1e-8, 2000);
    o.format = format;
    return kt_generated_iterations(backend, KRYL_GEN_POISSON3D7, n, &o, 5, kryl_precond_name(kind));
}

int main(void)
{
    if (!test_cuda_device("test_cuda_color")) return TEST_SKIP_CODE;
    kryl_context ctx = test_context(KRYL_BACKEND_CUDA);
    printf("test_cuda_color on %s\n", kryl_context_device_name(ctx));
    test_color_rows_cases(ctx);
    test_first_fit_cases(ctx);
    kryl_matrix big = kt_generate(ctx, KRYL_GEN_POISSON3D7, 128);
    test_check_color_rows(ctx, &big->host->csr, "7-point grid of 128^3 rows");
    test_check_first_fit(ctx, &big->host->csr, "first fit, 7-point grid of 128^3 rows");
    kryl_matrix_destroy(&big);
    kryl_context_destroy(&ctx);
    /* CSR: mcssor reads A's storage; SELL (rows sorted): A's CSR is copied */
    const struct {
        kryl_method method;
        kryl_precond_kind kind;
        kryl_format format;
    } cases[] = {{KRYL_METHOD_PCG, KRYL_PRECOND_MCSSOR, KRYL_FORMAT_CSR},
                 {KRYL_METHOD_PCG, KRYL_PRECOND_MCSSOR, KRYL_FORMAT_SELL},
                 {KRYL_METHOD_GMRES, KRYL_PRECOND_MCSSOR, KRYL_FORMAT_CSR},
                 {KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0, KRYL_FORMAT_CSR},
                 {KRYL_METHOD_PCG, KRYL_PRECOND_MCILU0, KRYL_FORMAT_CSR}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *method = kryl_method_name(cases[c].method),
                   *kind = kryl_precond_name(cases[c].kind),
                   *format = kryl_format_name(cases[c].format);
        int64_t host =
            iterations(KRYL_BACKEND_REF, cases[c].method, cases[c].kind, cases[c].format, 24);
        int64_t dev =
            iterations(KRYL_BACKEND_CUDA, cases[c].method, cases[c].kind, cases[c].format, 24);
        printf("%s + %s (%s) on 24^3: %lld iterations on cuda, %lld on ref\n", method, kind, format,
               (long long)dev, (long long)host);
        CHECK(dev >= host - 1 && dev <= host + 1,
              "%s + %s (%s): %lld iterations on cuda, %lld on ref (the same M)", method, kind,
              format, (long long)dev, (long long)host);
    }
    return test_summary("test_cuda_color");
}
