/* The format model's counts on the cuda backend (csr_reach, csr_diagonals,
 * csr_blocks)
 * against the plain host counts of tests/test_formats_util.h: the far
 * entries of the natural order, of SELL's windows and of the global sort,
 * at reaches from 0 to past every entry, the occupied diagonals and the
 * 2x2 and 4x4 blocks, on
 * random matrices of awkward shapes (one row, empty rows, a dense row),
 * generated and real ones; then the
 * format a cuda context picks (the counts from the device) against the
 * host's choice under the same device model.  Skipped (77) without a usable
 * CUDA device. */
#include <stdint.h>
#include <stdio.h>

#include "backends/backend.h"
#include "test_formats_util.h"
#include "test_support.h"

#ifdef KRYL_HAVE_CUDA

static kryl_context gpu_ctx;
static int counts_compared;

/* The device's counts of A (a copy of csr on the cuda context) against the host's. */
static void check_counts(const kryl_csr *csr, const char *what)
{
    const kryl_backend_ops *ops = gpu_ctx->ops;
    const bool has = ops->csr_reach && ops->csr_diagonals && ops->csr_blocks;
    CHECK(has, "cuda lacks the counts");
    if (!has) return;
    /* cuda's copy of csr (the matrix takes the copy's arrays) */
    kryl_matrix A = NULL;
    kryl_csr copy;
    CHECK_OK(kryl_csr_alloc(&copy, csr->nrows, csr->ncols, kryl_csr_nnz(csr)));
    memcpy(copy.row_ptr, csr->row_ptr, (size_t)(csr->nrows + 1) * sizeof *copy.row_ptr);
    memcpy(copy.col_idx, csr->col_idx, (size_t)kryl_csr_nnz(csr) * sizeof *copy.col_idx);
    memcpy(copy.values, csr->values, (size_t)kryl_csr_nnz(csr) * sizeof *copy.values);
    CHECK_OK(kryl_matrix_from_csr(&A, gpu_ctx, &copy));
    const int64_t n = csr->nrows;
    const int64_t windows[] = {0, 1, 3, 1024, n, n + 5};
    const int64_t nears[] = {0, 1, 2, 31, 1000, INT64_MAX};
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++)
        for (size_t r = 0; r < sizeof nears / sizeof nears[0]; r++) {
            int64_t far = -1;
            CHECK_OK(ops->csr_reach(gpu_ctx, A, windows[w], nears[r], &far));
            const int64_t expect = tf_far_entries(csr, windows[w], nears[r]);
            CHECK(far == expect, "%s: window %lld, near %lld: %lld far entries on cuda, %lld", what,
                  (long long)windows[w], (long long)nears[r], (long long)far, (long long)expect);
            counts_compared++;
        }
    for (int64_t b = 2; b <= 4; b += 2) {
        int64_t nblocks = -1;
        CHECK_OK(ops->csr_blocks(gpu_ctx, A, b, &nblocks));
        CHECK(nblocks == tf_blocks(csr, b), "%s: %lld blocks of %lld on cuda, %lld", what,
              (long long)nblocks, (long long)b, (long long)tf_blocks(csr, b));
    }
    int64_t ndiag = -1;
    CHECK_OK(ops->csr_diagonals(gpu_ctx, A, &ndiag));
    CHECK(ndiag == tf_diagonals(csr), "%s: %lld diagonals on cuda, %lld", what, (long long)ndiag,
          (long long)tf_diagonals(csr));
    /* the choice with the device's counts is the host's under the same model */
    kryl_device_model dev;
    CHECK_OK(kryl_context_device_model(gpu_ctx, &dev));
    kryl_fmt_params p;
    kryl_fmt_params_init(&p);
    kryl_format on_device, on_host;
    CHECK_OK(kryl_matrix_choose_format(A, &on_device, NULL, 0));
    CHECK_OK(kryl_fmt_choose(csr, &p, &dev, &on_host, NULL, 0));
    CHECK(on_device == on_host, "%s: cuda picks %s, the host's counts %s", what,
          kryl_format_name(on_device), kryl_format_name(on_host));
    kryl_matrix_destroy(&A);
}

static void test_shapes(void)
{
    for (int shape = 0; shape < TEST_SHAPE_COUNT; shape++)
        for (int64_t n = 1; n <= 3000; n = 7 * n + 3) {
            kryl_csr A;
            test_random_csr(&A, (test_shape)shape, n, n, 100 + (uint64_t)(shape * 31 + n));
            check_counts(&A, "random shape");
            kryl_csr_free(&A);
        }
}

static void test_generated(void)
{
    const struct {
        kryl_generator_kind kind;
        int64_t n;
    } gens[] = {{KRYL_GEN_POISSON2D5, 300},   {KRYL_GEN_POISSON3D27, 40},
                {KRYL_GEN_POISSON3D7, 64},    {KRYL_GEN_POWERLAW, 200000},
                {KRYL_GEN_RANDOM_SPD, 50000}, {KRYL_GEN_FEM_P2_2D, 60}};
    for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
        kryl_csr A;
        if (!tf_generate(&A, gens[g].kind, gens[g].n)) continue;
        check_counts(&A, kryl_generator_name(gens[g].kind));
        gen_csr_free(&A);
    }
}

static void test_real(void)
{
    const char *files[] = {"494_bus.mtx", "cage4.mtx", "dw8192.mtx", "rajat11.mtx", "zenios.mtx"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        kryl_csr A;
        if (!tf_read(&A, files[f])) continue;
        check_counts(&A, files[f]);
        kryl_csr_free(&A);
    }
}

int main(void)
{
    if (!test_cuda_device("test_cuda_fmt_counts")) return TEST_SKIP_CODE;
    gpu_ctx = test_context(KRYL_BACKEND_CUDA);
    test_shapes();
    test_generated();
    test_real();
    printf("%d counts compared\n", counts_compared);
    kryl_context_destroy(&gpu_ctx);
    return test_summary("test_cuda_fmt_counts");
}

#else

int main(void)
{
    printf("test_cuda_fmt_counts: built without CUDA, skipped\n");
    return TEST_SKIP_CODE;
}

#endif
