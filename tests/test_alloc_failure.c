/* Every backend allocation of a solve may fail, and each failure must leave
 * kryl as it was: the omp backend's operation table is wrapped so that the
 * k-th allocation (alloc, a matrix's storage, a triangular factor) fails as
 * a full device does, for k = 0, 1, 2, ... until the whole solve fits.
 * Each failure must come back as KRYL_ERR_DEVICE_OUT_OF_MEMORY with the
 * allocation's bytes and the stage that asked (the matrix's storage, the
 * format conversion, the preconditioner, the solver's workspace) in the
 * message; every block allocated before it must have been released, no
 * object may be left on the context (and, under AddressSanitizer, nothing
 * leaked); and the next, larger attempt must work.  The same stages run on
 * a real GPU under a memory cap in test_cuda_oom. */
#define _POSIX_C_SOURCE 200809L

#include "test_krylov_support.h"
#include "test_mtx_util.h"

#include "backends/backend.h"
#include "staged_solve.h"

/* The wrapped table and what it has seen. */
static kryl_backend_ops wrapped;
static const kryl_backend_ops *inner;
static int64_t calls;   /* allocations asked for so far */
static int64_t fail_at; /* the one to refuse; -1: none */
enum { MAX_BLOCKS = 4096 };
static void *blocks[MAX_BLOCKS]; /* live blocks of alloc */
static int live;

/* Whether this allocation is the one to refuse (then the error is recorded). */
static bool refuse(size_t bytes, const char *what)
{
    if (calls++ != fail_at) return false;
    KRYL_ERROR(KRYL_ERR_DEVICE_OUT_OF_MEMORY, "test: allocation %lld (%zu bytes of %s) refused",
               (long long)fail_at, bytes, what);
    return true;
}

static kryl_status counted_alloc(kryl_context ctx, void **ptr, size_t bytes)
{
    *ptr = NULL;
    if (refuse(bytes, "alloc")) return KRYL_ERR_DEVICE_OUT_OF_MEMORY;
    KRYL_TRY(inner->alloc(ctx, ptr, bytes));
    if (*ptr != NULL && live < MAX_BLOCKS) blocks[live++] = *ptr;
    return KRYL_SUCCESS;
}

static void counted_release(kryl_context ctx, void *ptr)
{
    for (int k = 0; k < live; k++)
        if (blocks[k] == ptr) {
            blocks[k] = blocks[--live];
            break;
        }
    inner->release(ctx, ptr);
}

static kryl_status counted_matrix_setup(kryl_context ctx, kryl_matrix A)
{
    if (refuse((size_t)A->fmt.stored * 12, "a matrix's storage"))
        return KRYL_ERR_DEVICE_OUT_OF_MEMORY;
    return inner->matrix_setup(ctx, A);
}

static kryl_status counted_trsv_setup(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                      bool lower, bool unit_diagonal, const int32_t *level_rows,
                                      const int64_t *level_ptr, int64_t nlevels, void **handle)
{
    *handle = NULL;
    if (refuse((size_t)kryl_csr_nnz(T) * 12, "a triangular factor"))
        return KRYL_ERR_DEVICE_OUT_OF_MEMORY;
    return inner->trsv_setup(ctx, T, precision, lower, unit_diagonal, level_rows, level_ptr,
                             nlevels, handle);
}

/* A device of `device_free` bytes, all of it free, as the wrapped table
 * reports it (cuda reports its cap or the device's free memory). */
static int64_t device_free;

static void capped_memory_info(kryl_context ctx, kryl_device_memory *info)
{
    (void)ctx;
    info->limit = info->total = info->available = device_free;
}

/* Stages an injected failure was named by, over all cases. */
static const char *stage_words[] = {"storage of a", "row permutation of the", "preconditioner",
                                    "solver's vectors and workspace"};
enum { STAGES = sizeof stage_words / sizeof stage_words[0] };
static int stage_hits[STAGES];

/* Refuse each allocation of case c in turn until the whole solve fits. */
static void sweep(kryl_context ctx, const staged_case *c)
{
    const int objects = ctx->live_objects;
    char message[1024];
    staged_step step = STAGED_DONE;
    kryl_result result;
    int64_t k = 0;
    for (;; k++) {
        calls = 0;
        fail_at = k;
        kryl_status st = staged_solve(ctx, c, &step, &result, message, sizeof message);
        fail_at = -1;
        CHECK(live == 0 && ctx->live_objects == objects,
              "%s, allocation %lld refused: %d blocks and %d objects left", c->name, (long long)k,
              live, ctx->live_objects - objects);
        live = 0;
        if (step == STAGED_DONE) {
            CHECK(st == KRYL_SUCCESS && result.converged,
                  "%s: the solve with no allocation refused: %s", c->name, kryl_strerror(st));
            break;
        }
        CHECK(st == KRYL_ERR_DEVICE_OUT_OF_MEMORY && strstr(message, "refused") != NULL,
              "%s, allocation %lld refused in the %s: %s: %s", c->name, (long long)k,
              staged_step_name(step), kryl_strerror(st), message);
        CHECK(strstr(message, "bytes") != NULL, "%s: the message names no bytes: %s", c->name,
              message);
        /* what the solver's setup was doing is named in front */
        bool named = step != STAGED_SOLVER;
        for (int s = 0; s < STAGES; s++)
            if (strstr(message, stage_words[s]) != NULL) {
                if (stage_hits[s]++ == 0) printf("  e.g. %s\n", message);
                named = true;
            }
        CHECK(named, "%s: the setup's failure names no stage: %s", c->name, message);
        if (k > 10000) {
            CHECK(false, "%s: more than 10000 allocations", c->name);
            break;
        }
    }
    printf("  %-34s %4lld allocations, each refused in turn\n", c->name, (long long)k);
}

/* A matrix read from a file for a solve the device cannot hold is refused
 * once read, with the file and the numbers, before any backend allocation
 * (the upload); one that fits is read and solved. */
static void test_read_checked_before_upload(kryl_context ctx)
{
    scratch_init();
    char path[512];
    scratch_path(path, sizeof path, "poisson.mtx");
    kryl_matrix G = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    CHECK_OK(kryl_matrix_write_mtx(G, path));
    kryl_matrix_destroy(&G);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, 1e-8, 500);
    wrapped.memory_info = capped_memory_info;
    device_free = 100000; /* the matrix alone takes 12 * 7840 + 8 * 1601 bytes */
    calls = 0;
    kryl_matrix A = NULL;
    CHECK_STATUS(kryl_matrix_read_mtx_for_solve(&A, ctx, path, &o), KRYL_ERR_DEVICE_OUT_OF_MEMORY);
    const char *m = kryl_last_error();
    CHECK(A == NULL && calls == 0 && live == 0, "refused after %lld allocations", (long long)calls);
    CHECK(strstr(m, "poisson.mtx (1600 rows, 7840 entries") != NULL &&
              strstr(m, "the preconditioner") != NULL && strstr(m, "of device memory") != NULL &&
              strstr(m, "more than the 100 kB it may allocate") != NULL,
          "the refusal names the file and the numbers: %s", m);
    printf("  e.g. %s\n", m);
    device_free = 1 << 30;
    CHECK_OK(kryl_matrix_read_mtx_for_solve(&A, ctx, path, &o));
    double *b = kt_rhs(A, 1);
    kt_solve r = kt_run(A, &o, b, NULL, NULL);
    kt_check_converged(&r, "gmres + ilu0 on the matrix read once it fits");
    free(b);
    kryl_matrix_destroy(&A);
    wrapped.memory_info = inner->memory_info;
    scratch_cleanup();
}

/* The device memory calls on a context without a device: accepted, the
 * cap only recorded (the hybrid split's stand-in device honors it). */
static void test_host_context_memory(kryl_context ctx)
{
    kryl_device_memory info;
    CHECK_OK(kryl_context_set_gpu_memory(ctx, 1 << 20));
    CHECK_STATUS(kryl_context_set_gpu_memory(ctx, -1), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_context_set_gpu_memory(NULL, 0), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_OK(kryl_context_device_memory(ctx, &info));
    CHECK(info.in_use == 0 && info.peak == 0 && info.limit == 1 << 20 &&
              info.available == 1 << 20 && info.total == 0,
          "a host context reports device memory besides its cap");
    CHECK_STATUS(kryl_context_device_memory(ctx, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_OK(kryl_context_set_gpu_memory(ctx, 0));
    CHECK_OK(kryl_context_device_memory(ctx, &info));
    CHECK(info.limit == 0 && info.available == 0, "a cap of 0 is none");
}

int main(void)
{
    kryl_context_options copt;
    kryl_context_options_init(&copt);
    copt.backend = KRYL_BACKEND_OMP;
    if (!kryl_backend_available(KRYL_BACKEND_OMP)) copt.backend = KRYL_BACKEND_REF;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &copt));
    if (ctx == NULL) return test_summary("test_alloc_failure");
    test_host_context_memory(ctx);
    inner = ctx->ops;
    wrapped = *inner;
    wrapped.alloc = counted_alloc;
    wrapped.release = counted_release;
    wrapped.matrix_setup = counted_matrix_setup;
    if (wrapped.trsv_setup) wrapped.trsv_setup = counted_trsv_setup;
    ctx->ops = &wrapped;
    fail_at = -1;

    const staged_case cases[] = {
        {"gmres(10) + ilu0, sell", KRYL_GEN_CONVDIFF2D, 12, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0,
         KRYL_FORMAT_SELL, 10, KRYL_MIXED_NONE},
        {"pcg + ic0, ell", KRYL_GEN_POISSON2D5, 12, KRYL_METHOD_PCG, KRYL_PRECOND_IC0,
         KRYL_FORMAT_ELL, 0, KRYL_MIXED_NONE},
        {"cg + amg, csr", KRYL_GEN_POISSON2D5, 24, KRYL_METHOD_CG, KRYL_PRECOND_AMG,
         KRYL_FORMAT_CSR, 0, KRYL_MIXED_NONE},
        {"bicgstab + jacobi, jds", KRYL_GEN_CONVDIFF2D, 12, KRYL_METHOD_BICGSTAB,
         KRYL_PRECOND_JACOBI, KRYL_FORMAT_JDS, 0, KRYL_MIXED_NONE},
        {"pipecg + lspoly, dia", KRYL_GEN_POISSON2D5, 12, KRYL_METHOD_PIPECG, KRYL_PRECOND_LSPOLY,
         KRYL_FORMAT_DIA, 0, KRYL_MIXED_NONE},
        {"cg + mcssor, mixed inner-outer", KRYL_GEN_POISSON2D5, 12, KRYL_METHOD_CG,
         KRYL_PRECOND_MCSSOR, KRYL_FORMAT_CSR, 0, KRYL_MIXED_INNER_OUTER},
        {"gmres + bjacobi, mixed ir", KRYL_GEN_CONVDIFF2D, 12, KRYL_METHOD_GMRES,
         KRYL_PRECOND_BJACOBI, KRYL_FORMAT_CSR, 0, KRYL_MIXED_IR},
    };
    printf("test_alloc_failure on %s:\n", kryl_backend_name(kryl_context_backend(ctx)));
    test_read_checked_before_upload(ctx);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) sweep(ctx, &cases[c]);
    for (int s = 0; s < STAGES; s++)
        CHECK(stage_hits[s] > 0, "no failure was named '%s'", stage_words[s]);

    ctx->ops = inner;
    CHECK_OK(kryl_context_destroy(&ctx));
    return test_summary("test_alloc_failure");
}
