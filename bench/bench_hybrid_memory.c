/* The out-of-GPU-memory case of the hybrid pipelined CG (docs/HYBRID.md;
 * Tiwari & Vadhiyar, section VI-C): a generated matrix larger than the
 * device's memory, or than a cap emulating a smaller device, solved by
 * Hybrid-PIPECG-3 against pipelined CG on the host's cores alone (the
 * paper's baseline there): time per iteration, setup, and the split.  The
 * matrix is generated in place for each run (the host's first, freed before
 * the hybrid's: never two copies at once); on the device context its
 * storage is deferred, so only the device's rows go there.  Through the
 * public API only (include/kryl.h).
 *
 *   bench_hybrid_memory [--gen KIND] [--n N] [--gpu-memory BYTES]
 *                       [--iterations K] [--backend B] [--no-host]
 *
 * Default: the real case, the 27-point Poisson matrix on the smallest grid
 * whose CSR is at least 1.2 times the device's memory (or its cap): on an
 * 80 GB H100 670^3 points (3.0e8 rows, 8.1e9 entries, 97 GB), on a 141 GB
 * H200 about 810^3 (171 GB); the host needs about 2.3 times that (the
 * matrix, the split's copies of its rows, vectors).  50 iterations of
 * pipelined CG with Jacobi.  A smaller device emulated: --n 200
 * --gpu-memory 2G.  One line per run, and a machine-readable
 * "RESULT hybrid_memory ..." line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_try.h"
#include "kryl.h"

typedef struct settings {
    const char *gen, *backend;
    int64_t n, gpu_memory, iterations;
    bool host;
} settings;

/* One run's numbers. */
typedef struct outcome {
    double generate_s, setup_s, solve_s, relres;
    int64_t iterations;
    kryl_hybrid_info info;
    kryl_device_memory mem;
} outcome;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double gigabytes(double bytes) { return bytes / 1e9; }

/* K steps of pipelined CG with Jacobi (hybrid 3 where asked) on the
 * generated matrix, b = A 1, x0 = 0, on a context of `backend`. */
static outcome run(const settings *a, kryl_backend_kind backend, kryl_hybrid hybrid)
{
    outcome out;
    memset(&out, 0, sizeof out);
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = backend;
    kryl_context ctx = NULL;
    BENCH_TRY(kryl_context_create(&ctx, &co));
    if (hybrid != KRYL_HYBRID_NONE) {
        BENCH_TRY(kryl_context_defer_matrix_storage(ctx, true));
        if (a->gpu_memory > 0) BENCH_TRY(kryl_context_set_gpu_memory(ctx, a->gpu_memory));
    }
    kryl_generator_kind kind;
    BENCH_TRY(kryl_generator_from_name(a->gen, &kind));
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, a->n);
    int64_t rows = 0, estimate = 0;
    BENCH_TRY(kryl_generator_size(&g, &rows, &estimate));
    double t0 = now();
    kryl_matrix A = NULL;
    BENCH_TRY(kryl_matrix_generate(&A, ctx, &g, 0, rows));
    out.generate_s = now() - t0;
    kryl_vector ones = NULL, b = NULL, x = NULL;
    BENCH_TRY(kryl_vector_create(&ones, A, KRYL_DOUBLE));
    BENCH_TRY(kryl_vector_create(&b, A, KRYL_DOUBLE));
    BENCH_TRY(kryl_vector_create(&x, A, KRYL_DOUBLE));
    BENCH_TRY(kryl_vector_fill(ones, 1.0));
    /* b = A 1 */
    BENCH_TRY(kryl_matrix_spmv(A, 1.0, ones, 0.0, b));
    kryl_vector_destroy(&ones);
    BENCH_TRY(kryl_vector_fill(x, 0.0));
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_PIPECG;
    o.precond = KRYL_PRECOND_JACOBI;
    o.rtol = 1e-30; /* the K steps run */
    o.max_iterations = a->iterations;
    o.record_history = false;
    o.hybrid = hybrid;
    kryl_solver s = NULL;
    kryl_result r;
    BENCH_TRY(kryl_solver_create(&s, A, &o));
    BENCH_TRY(kryl_solver_solve(s, b, x, &r));
    if (hybrid != KRYL_HYBRID_NONE) BENCH_TRY(kryl_solver_hybrid_info(s, &out.info));
    BENCH_TRY(kryl_context_device_memory(ctx, &out.mem));
    out.setup_s = r.setup_s;
    out.solve_s = r.solve_s;
    out.iterations = r.iterations;
    out.relres = r.relres;
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    return out;
}

static double per_iteration(const outcome *o)
{
    return o->iterations > 0 ? o->solve_s / (double)o->iterations : 0.0;
}

static void report(const char *variant, const outcome *o, double baseline)
{
    printf("  %-28s generate %7.2f s, setup %7.2f s, %9.4f s an iteration (%lld), relres "
           "%.2e",
           variant, o->generate_s, o->setup_s, per_iteration(o), (long long)o->iterations,
           o->relres);
    if (baseline > 0.0) printf(", %.2fx the host alone", baseline / per_iteration(o));
    printf("\n");
    printf("RESULT hybrid_memory \"%s\" %.6f %.6f %lld %.3e\n", variant, o->setup_s,
           per_iteration(o), (long long)o->iterations, o->relres);
}

static double csr_bytes(int64_t rows, int64_t entries)
{
    return 12.0 * (double)entries + 8.0 * (double)rows;
}

/* The smallest grid (in steps of 10 points a direction) whose matrix's CSR
 * is at least 1.2 times the device's memory, or its cap. */
static int64_t past_the_device(const settings *a, kryl_backend_kind device,
                               kryl_generator_kind kind)
{
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = device;
    kryl_context ctx = NULL;
    BENCH_TRY(kryl_context_create(&ctx, &co));
    if (a->gpu_memory > 0) BENCH_TRY(kryl_context_set_gpu_memory(ctx, a->gpu_memory));
    kryl_device_memory mem;
    BENCH_TRY(kryl_context_device_memory(ctx, &mem));
    kryl_context_destroy(&ctx);
    const double target = 1.2 * (double)(mem.limit > 0 ? mem.limit : mem.total);
    int64_t n = 10, rows = 0, entries = 0;
    for (;; n += 10) {
        kryl_generator_options g;
        kryl_generator_options_init(&g, kind, n);
        BENCH_TRY(kryl_generator_size(&g, &rows, &entries));
        if (csr_bytes(rows, entries) >= target) return n;
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_hybrid_memory [--gen KIND] [--n N] [--gpu-memory BYTES] "
                    "[--iterations K] [--backend B] [--no-host]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    settings a = {"poisson3d27", "cuda", 0, 0, 50, true};
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--no-host") == 0) {
            a.host = false;
            continue;
        }
        if (value == NULL) usage();
        if (strcmp(argv[i], "--gen") == 0)
            a.gen = value;
        else if (strcmp(argv[i], "--backend") == 0)
            a.backend = value;
        else if (strcmp(argv[i], "--n") == 0)
            a.n = atoll(value);
        else if (strcmp(argv[i], "--iterations") == 0)
            a.iterations = atoll(value);
        else if (strcmp(argv[i], "--gpu-memory") == 0)
            BENCH_TRY(kryl_parse_bytes(value, &a.gpu_memory));
        else
            usage();
        i++;
    }
    kryl_backend_kind device;
    BENCH_TRY(kryl_backend_from_name(a.backend, &device));
    if (!kryl_backend_available(device)) {
        printf("bench_hybrid_memory: backend %s is not usable here\n", a.backend);
        return 0;
    }
    kryl_generator_kind kind;
    BENCH_TRY(kryl_generator_from_name(a.gen, &kind));
    if (a.n == 0) a.n = past_the_device(&a, device, kind);
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, a.n);
    int64_t rows = 0, entries = 0;
    BENCH_TRY(kryl_generator_size(&g, &rows, &entries));
    const double csr = csr_bytes(rows, entries);
    printf("bench_hybrid_memory: %s --n %lld: %lld rows, about %lld entries, %.3g GB of CSR\n",
           a.gen, (long long)a.n, (long long)rows, (long long)entries, gigabytes(csr));
    double host_per_it = 0.0;
    if (a.host) {
        kryl_backend_kind host =
            kryl_backend_available(KRYL_BACKEND_OMP) ? KRYL_BACKEND_OMP : KRYL_BACKEND_REF;
        outcome h = run(&a, host, KRYL_HYBRID_NONE);
        report("host pipecg (omp)", &h, 0.0);
        host_per_it = per_iteration(&h);
    }
    outcome d = run(&a, device, KRYL_HYBRID_SPLIT);
    report("hybrid 3", &d, host_per_it);
    const kryl_hybrid_info *in = &d.info;
    const double device_memory = d.mem.limit > 0 ? (double)d.mem.limit : (double)d.mem.total;
    printf("  device %s: %.3g GB (%s); the matrix is %.2fx that; peak held %.3g GB\n", a.backend,
           gigabytes(device_memory), d.mem.limit > 0 ? "the cap" : "its memory",
           device_memory > 0.0 ? csr / device_memory : 0.0, gigabytes((double)d.mem.peak));
    printf("  split: host %lld rows (%lld + %lld entries), device %lld rows (%lld + %lld "
           "entries); device share of the entries %.3f\n",
           (long long)in->host_rows, (long long)in->host_nnz, (long long)in->host_coupling_nnz,
           (long long)in->device_rows, (long long)in->device_nnz,
           (long long)in->device_coupling_nnz,
           (double)(in->device_nnz + in->device_coupling_nnz) / fmax(1.0, (double)entries));
    printf("  model: host %.3g, device %.3g nonzeros/s (r_cpu %.3f; %lld device sample rows): "
           "%s\n",
           in->host_nnz_per_s, in->device_nnz_per_s, in->model_host_share,
           (long long)in->device_model_rows, in->reason);
    return 0;
}
