/* Out of device memory on a real GPU, at every stage of a solve: for each
 * case the solve is run once without a cap to learn what it holds at its
 * peak, then again under caps (kryl_context_set_gpu_memory) from nothing
 * to that peak, so that the matrix's upload, the format conversion, the
 * preconditioner's setup and the solver's workspace each fail in turn.
 * Each failure must be KRYL_ERR_DEVICE_OUT_OF_MEMORY naming the stage, the
 * bytes asked and the cap; the context must hold what it held before
 * (kryl_context_device_memory), a smaller solve must then work, and at the
 * end the device's free memory must be back (within what the CUDA runtime
 * itself may keep: loaded kernels, graphs).  Also: an allocation larger
 * than the device without a cap, and the KRYL_GPU_MEMORY variable.
 * Skipped (77) without a usable device. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "staged_solve.h"
#include "test_support.h"

/* Levels of the cap between what the context holds and a case's peak. */
enum { CAP_LEVELS = 40 };
/* Device memory the CUDA runtime may keep for itself across the test (module
 * code loaded on first launch, graph executables), beyond kryl's own blocks. */
static const int64_t RUNTIME_SLACK = 256LL << 20;

static const char *stage_words[] = {"storage of a", "preconditioner",
                                    "solver's vectors and workspace"};
enum { STAGES = sizeof stage_words / sizeof stage_words[0] };
static int stage_hits[STAGES];

static kryl_device_memory memory_of(kryl_context ctx)
{
    kryl_device_memory m;
    CHECK_OK(kryl_context_device_memory(ctx, &m));
    return m;
}

/* A small solve on ctx, uncapped: it must converge and leave nothing held. */
static void small_solve_works(kryl_context ctx, const char *after)
{
    const staged_case small = {
        "small", KRYL_GEN_POISSON2D5, 30, KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, KRYL_FORMAT_CSR,
        0,       KRYL_MIXED_NONE};
    const int64_t held = memory_of(ctx).in_use;
    char message[1024];
    staged_step step;
    kryl_result result;
    kryl_status st = staged_solve(ctx, &small, &step, &result, message, sizeof message);
    CHECK(st == KRYL_SUCCESS && result.converged, "a small solve after %s: %s", after, message);
    CHECK(memory_of(ctx).in_use == held, "the small solve after %s left %lld bytes", after,
          (long long)(memory_of(ctx).in_use - held));
}

/* Run c uncapped, then under caps rising to its peak. */
static void sweep(kryl_context ctx, const staged_case *c)
{
    char message[1024];
    staged_step step;
    kryl_result result;
    const int64_t start = memory_of(ctx).in_use;
    kryl_status st = staged_solve(ctx, c, &step, &result, message, sizeof message);
    CHECK(st == KRYL_SUCCESS && result.converged, "%s uncapped: %s", c->name, message);
    const int64_t peak = memory_of(ctx).peak;
    CHECK(memory_of(ctx).in_use == start, "%s uncapped left %lld bytes", c->name,
          (long long)(memory_of(ctx).in_use - start));
    int failures = 0, steps[STAGED_DONE + 1] = {0};
    for (int level = 0; level <= CAP_LEVELS + 1; level++) {
        /* up to the peak, then twice it: a choice made by timing (the
         * triangular solves' path) may set up another path's buffers */
        const int64_t cap = level <= CAP_LEVELS ? start + 1 + (peak - start) * level / CAP_LEVELS
                                                : start + 2 * (peak - start);
        CHECK_OK(kryl_context_set_gpu_memory(ctx, cap));
        st = staged_solve(ctx, c, &step, &result, message, sizeof message);
        CHECK_OK(kryl_context_set_gpu_memory(ctx, 0));
        const int64_t left = memory_of(ctx).in_use - start;
        CHECK(left == 0, "%s under a cap of %lld bytes: %lld bytes left held after the %s failed",
              c->name, (long long)cap, (long long)left, staged_step_name(step));
        steps[step]++;
        if (step == STAGED_DONE) {
            CHECK(st == KRYL_SUCCESS, "%s under a cap of %lld: %s", c->name, (long long)cap,
                  kryl_strerror(st));
            break;
        }
        failures++;
        CHECK(st == KRYL_ERR_DEVICE_OUT_OF_MEMORY && strstr(message, "bytes") != NULL &&
                  strstr(message, "memory cap") != NULL,
              "%s under a cap of %lld bytes, the %s: %s: %s", c->name, (long long)cap,
              staged_step_name(step), kryl_strerror(st), message);
        for (int s = 0; s < STAGES; s++)
            if (strstr(message, stage_words[s]) != NULL && stage_hits[s]++ == 0)
                printf("  e.g. %s\n", message);
        small_solve_works(ctx, message);
    }
    CHECK(steps[STAGED_DONE] == 1, "%s never fit under twice its own peak of %lld bytes", c->name,
          (long long)(peak - start));
    printf("  %-28s peak %.1f MB; failed %d times (matrix %d, setup %d, vectors %d, solve %d)\n",
           c->name, 1e-6 * (double)(peak - start), failures, steps[STAGED_MATRIX],
           steps[STAGED_SOLVER], steps[STAGED_VECTORS], steps[STAGED_SOLVE]);
}

/* Without a cap, a block larger than the device fails as cudaMalloc does. */
static void test_device_full(kryl_context ctx)
{
    const kryl_device_memory m = memory_of(ctx);
    CHECK(m.total > 0 && m.available > 0 && m.available <= m.total && m.limit == 0,
          "device memory: total %lld, available %lld, limit %lld", (long long)m.total,
          (long long)m.available, (long long)m.limit);
    void *ptr = (void *)1;
    kryl_status st = ctx->ops->alloc(ctx, &ptr, (size_t)m.total + ((size_t)1 << 30));
    CHECK(st == KRYL_ERR_DEVICE_OUT_OF_MEMORY && ptr == NULL, "more than the device: %s: %s",
          kryl_strerror(st), kryl_last_error());
    CHECK(strstr(kryl_last_error(), "free of") != NULL, "message: %s", kryl_last_error());
    CHECK(memory_of(ctx).in_use == m.in_use, "a failed allocation is counted");
    small_solve_works(ctx, "an allocation larger than the device");
}

/* KRYL_GPU_MEMORY caps a new context; one that is not a size is refused. */
static void test_environment(void)
{
    kryl_context_options o;
    kryl_context_options_init(&o);
    o.backend = KRYL_BACKEND_CUDA;
    kryl_context ctx = NULL;
    setenv("KRYL_GPU_MEMORY", "64M", 1);
    CHECK_OK(kryl_context_create(&ctx, &o));
    if (ctx != NULL) {
        CHECK(memory_of(ctx).limit == 64LL << 20, "KRYL_GPU_MEMORY=64M: limit %lld",
              (long long)memory_of(ctx).limit);
        kryl_context_destroy(&ctx);
    }
    setenv("KRYL_GPU_MEMORY", "lots", 1);
    CHECK_STATUS(kryl_context_create(&ctx, &o), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "KRYL_GPU_MEMORY") != NULL, "message: %s", kryl_last_error());
    CHECK(ctx == NULL, "a refused context is returned");
    unsetenv("KRYL_GPU_MEMORY");
}

int main(void)
{
    if (!kryl_backend_available(KRYL_BACKEND_CUDA)) {
        printf("test_cuda_oom: no usable CUDA device, skipped\n");
        return TEST_SKIP_CODE;
    }
    unsetenv("KRYL_GPU_MEMORY");
    kryl_context_options o;
    kryl_context_options_init(&o);
    o.backend = KRYL_BACKEND_CUDA;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &o));
    if (ctx == NULL) return test_summary("test_cuda_oom");
    printf("test_cuda_oom on %s\n", kryl_context_device_name(ctx));
    /* the kernels and the runtime's own memory are loaded before the baseline */
    small_solve_works(ctx, "creating the context");
    const int64_t free_before = memory_of(ctx).available;

    /* in rising order of their peaks (the context's peak only grows) */
    const staged_case cases[] = {
        {"pcg + ic0, ell", KRYL_GEN_POISSON2D5, 200, KRYL_METHOD_PCG, KRYL_PRECOND_IC0,
         KRYL_FORMAT_ELL, 0, KRYL_MIXED_NONE},
        {"cg + amg, csr", KRYL_GEN_POISSON3D7, 40, KRYL_METHOD_CG, KRYL_PRECOND_AMG,
         KRYL_FORMAT_CSR, 0, KRYL_MIXED_NONE},
        {"gmres(30) + ilu0, sell", KRYL_GEN_CONVDIFF2D, 300, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0,
         KRYL_FORMAT_SELL, 30, KRYL_MIXED_NONE},
        {"cg + jacobi, mixed ir, dia", KRYL_GEN_POISSON3D7, 60, KRYL_METHOD_CG, KRYL_PRECOND_JACOBI,
         KRYL_FORMAT_DIA, 0, KRYL_MIXED_IR},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) sweep(ctx, &cases[c]);
    for (int s = 0; s < STAGES; s++)
        CHECK(stage_hits[s] > 0, "no failure was named '%s'", stage_words[s]);
    test_device_full(ctx);

    const int64_t free_after = memory_of(ctx).available;
    printf("  device free before %.1f MB, after %.1f MB\n", 1e-6 * (double)free_before,
           1e-6 * (double)free_after);
    CHECK(free_after >= free_before - RUNTIME_SLACK,
          "the device has %.1f MB less free than before the sweeps",
          1e-6 * (double)(free_before - free_after));
    CHECK_OK(kryl_context_destroy(&ctx));
    test_environment();
    return test_summary("test_cuda_oom");
}
