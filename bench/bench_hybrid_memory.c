/* The out-of-GPU-memory case of the hybrid pipelined CG (docs/HYBRID.md;
 * Tiwari & Vadhiyar, section VI-C): a generated matrix larger than the
 * device's memory, or than a cap emulating a smaller device, solved by
 * Hybrid-PIPECG-3 against pipelined CG on the host's cores alone (the
 * paper's baseline there): time per iteration, setup, the split, the
 * device's and the host's peak memory.  The matrix is generated in place
 * for each run (the host's first, freed before the hybrid's: never two
 * copies at once); on the device context its storage is deferred, so only
 * the device's rows go there.  Through the public API only (include/kryl.h).
 *
 *   bench_hybrid_memory [--gen KIND] [--n N] [--gpu-memory BYTES]
 *                       [--iterations K] [--backend B] [--no-host] [--plan]
 *                       [--past F] [--budget SECONDS] [--host-bandwidth B/S]
 *
 * Without --n: the real case, the matrix of KIND (default the 27-point
 * Poisson matrix) on the smallest grid whose CSR is at least F (default
 * 1.25) times the device's memory (or its cap); the
 * paper's experiment takes the 125-point family (--gen poisson3d125).
 * Before generating it prints the plan: sizes, the device's estimated
 * share, each run's estimated host peak (refused where it exceeds 90% of
 * the host's available memory) and time, the iterations cut so the whole
 * stays within --budget seconds (default 420); --plan stops there.
 * Default 50 iterations of pipelined CG with Jacobi.  A smaller device
 * emulated: --n 200 --gpu-memory 2G; the whole flow on a host alone:
 * --backend omp --gpu-memory 8M (omp standing in for the device).  Lines
 * as the runs end, and machine-readable "RESULT hybrid_memory ..." lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_try.h"
#include "kryl.h"

typedef struct settings {
    const char *gen, *backend;
    int64_t n, gpu_memory, iterations;
    bool host, plan_only;
    double past;           /* the matrix's CSR over the device's memory, without --n */
    double budget_s;       /* the whole run's seconds the iterations are cut to fit */
    double host_bandwidth; /* bytes/s the time estimates assume for the host */
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

/* The process's peak resident memory so far, in bytes. */
static double host_peak(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? 1024.0 * (double)u.ru_maxrss : 0.0;
}

static void report(const char *variant, const outcome *o, double baseline)
{
    printf("  %-28s generate %7.2f s, setup %7.2f s, %9.4f s an iteration (%lld), relres "
           "%.2e, host peak %.3g GB so far",
           variant, o->generate_s, o->setup_s, per_iteration(o), (long long)o->iterations,
           o->relres, gigabytes(host_peak()));
    if (baseline > 0.0) printf(", %.2fx the host alone", baseline / per_iteration(o));
    printf("\n");
    printf("RESULT hybrid_memory \"%s\" %.6f %.6f %lld %.3e\n", variant, o->setup_s,
           per_iteration(o), (long long)o->iterations, o->relres);
    fflush(stdout);
}

static double csr_bytes(int64_t rows, int64_t entries)
{
    return 12.0 * (double)entries + 8.0 * (double)rows;
}

/* The device's memory as a context of `device` sees it (its cap where given). */
static kryl_device_memory device_memory(const settings *a, kryl_backend_kind device)
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
    return mem;
}

static double memory_of(const kryl_device_memory *mem)
{
    return (double)(mem->limit > 0 ? mem->limit : mem->total);
}

/* The smallest grid whose matrix's CSR is at least a->past times the
 * device's memory, or its cap. */
static int64_t past_the_device(const settings *a, const kryl_device_memory *mem,
                               kryl_generator_kind kind)
{
    const double target = a->past * memory_of(mem);
    int64_t n = 10, rows = 0, entries = 0;
    for (;; n++) {
        kryl_generator_options g;
        kryl_generator_options_init(&g, kind, n);
        BENCH_TRY(kryl_generator_size(&g, &rows, &entries));
        if (csr_bytes(rows, entries) >= target) return n;
    }
}

/* The host's available memory in bytes (MemAvailable), 0 where unknown. */
static double host_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = 0.0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    if (f != NULL) fclose(f);
    return 1024.0 * kb;
}

/* What the run will take, estimated before anything is generated. */
typedef struct plan {
    double rows, entries, csr;
    double device_share;                 /* the device's estimated share of the rows */
    double host_alone_peak, hybrid_peak; /* host bytes at each run's peak */
    double generate_s, host_it_s, hybrid_it_s, total_s;
} plan;

/* Generation: 27-point 450^3 (2.46e9 entries) took 9.8 s on 16 cores;
 * the estimate lets it scale to 32 cores at most (memory-bound beyond). */
static const double GENERATE_ENTRIES_PER_CORE_S = 2.46e9 / (9.8 * 16.0);

static plan make_plan(const settings *a, const kryl_device_memory *mem, int64_t rows,
                      int64_t entries)
{
    plan p;
    memset(&p, 0, sizeof p);
    const double n = (double)rows, nnz = (double)entries;
    p.rows = n;
    p.entries = nnz;
    p.csr = csr_bytes(rows, entries);
    /* the device: the caller's b and x and the driver's eight vectors and
     * Jacobi's diagonal of every row (88 bytes a row), a 32nd kept spare;
     * the split's part 12 bytes an entry and 96 a row */
    const double free_bytes = mem->limit > 0 ? (double)mem->limit : (double)mem->available;
    const double budget = (1.0 - 1.0 / 32.0) /* the library's split */ * (free_bytes - 88.0 * n);
    const double per_row = 12.0 * nnz / fmax(n, 1.0) + 96.0;
    p.device_share = fmin(1.0, fmax(0.0, budget / per_row / fmax(n, 1.0)));
    /* the host alone: A, omp's float values and column offsets while it
     * builds them (6 bytes an entry), 24 vectors of every row (the caller's,
     * the driver's, pipelined CG's, Jacobi's); the hybrid: A, the larger of
     * the device's part while it is built (its host copy goes once it is on
     * the device) and the host's part with omp's copies, 16 vectors */
    const double host_rows = (1.0 - p.device_share) * n, host_nnz = (1.0 - p.device_share) * nnz;
    p.host_alone_peak = p.csr + 6.0 * nnz + 8.0 * 24.0 * n;
    p.hybrid_peak =
        p.csr +
        fmax(12.0 * (nnz - host_nnz) + 24.0 * (n - host_rows), 18.0 * host_nnz + 16.0 * host_rows) +
        8.0 * 16.0 * n;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    p.generate_s = nnz / (GENERATE_ENTRIES_PER_CORE_S * (double)(cores < 32 ? cores : 32));
    /* a step of pipelined CG moves A once and about 24 vectors */
    p.host_it_s = (p.csr + 8.0 * 24.0 * n) / a->host_bandwidth;
    p.hybrid_it_s = (1.0 - p.device_share) * p.host_it_s;
    /* each run: generation, about twice as long for its setup (the symmetry
     * check's search of every a_ji, omp's copies, b = A 1, the split's parts
     * and their upload), its iterations */
    p.total_s = 3.0 * p.generate_s * (a->host ? 2.0 : 1.0);
    return p;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_hybrid_memory [--gen KIND] [--n N] [--gpu-memory BYTES] "
                    "[--iterations K] [--backend B] [--no-host] [--plan] [--past F] "
                    "[--budget SECONDS] [--host-bandwidth BYTES_PER_S]\n");
    exit(2);
}

/* Options into a; exits on a bad one. */
static void parse(int argc, char **argv, settings *a)
{
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--no-host") == 0) {
            a->host = false;
            continue;
        }
        if (strcmp(argv[i], "--plan") == 0) {
            a->plan_only = true;
            continue;
        }
        if (value == NULL) usage();
        if (strcmp(argv[i], "--gen") == 0)
            a->gen = value;
        else if (strcmp(argv[i], "--backend") == 0)
            a->backend = value;
        else if (strcmp(argv[i], "--n") == 0)
            a->n = atoll(value);
        else if (strcmp(argv[i], "--iterations") == 0)
            a->iterations = atoll(value);
        else if (strcmp(argv[i], "--past") == 0)
            a->past = atof(value);
        else if (strcmp(argv[i], "--budget") == 0)
            a->budget_s = atof(value);
        else if (strcmp(argv[i], "--host-bandwidth") == 0)
            a->host_bandwidth = atof(value);
        else if (strcmp(argv[i], "--gpu-memory") == 0)
            BENCH_TRY(kryl_parse_bytes(value, &a->gpu_memory));
        else
            usage();
        i++;
    }
    if (a->n < 0 || a->iterations < 1 || !(a->past >= 1.0) || !(a->budget_s > 0.0) ||
        !(a->host_bandwidth > 0.0))
        usage();
}

/* Print the plan; cut the iterations to the time budget; refuse a run
 * whose host peak would not fit the host's available memory. */
static void check_plan(settings *a, const plan *p, const kryl_device_memory *mem)
{
    const double available = host_available();
    printf("  plan: the device's memory %.3g GB (%s), the matrix's CSR %.2fx that; the device "
           "holds about %.0f%% of the rows\n",
           gigabytes(memory_of(mem)), mem->limit > 0 ? "the cap" : "cudaMemGetInfo's total",
           memory_of(mem) > 0.0 ? p->csr / memory_of(mem) : 0.0, 100.0 * p->device_share);
    printf("  plan: host peak about %.3g GB for the host alone, %.3g GB for hybrid 3, of %.3g "
           "GB available\n",
           gigabytes(a->host ? p->host_alone_peak : 0.0), gigabytes(p->hybrid_peak),
           gigabytes(available));
    const double per_iteration_s = (a->host ? p->host_it_s : 0.0) + p->hybrid_it_s;
    const double left = a->budget_s - p->total_s;
    const int64_t fits = left > 0.0 ? (int64_t)(left / per_iteration_s) : 0;
    if (fits < a->iterations) a->iterations = fits > 10 ? fits : 10;
    printf("  plan: generation about %.0f s a run, an iteration about %.3g s alone and %.3g s "
           "hybrid at %.3g GB/s of host bandwidth: %lld iterations, about %.0f s in all "
           "(budget %.0f s); if the host bounds the step, hybrid 3 is about %.2fx the host "
           "alone\n",
           p->generate_s, p->host_it_s, p->hybrid_it_s, gigabytes(a->host_bandwidth),
           (long long)a->iterations, p->total_s + (double)a->iterations * per_iteration_s,
           a->budget_s, 1.0 / fmax(1e-9, 1.0 - p->device_share));
    fflush(stdout);
    const double peak = fmax(a->host ? p->host_alone_peak : 0.0, p->hybrid_peak);
    if (available > 0.0 && peak > 0.9 * available) {
        fprintf(stderr,
                "bench_hybrid_memory: a host peak of about %.3g GB is more than 90%% of the "
                "%.3g GB available: refused (a smaller --past or --n)\n",
                gigabytes(peak), gigabytes(available));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    settings a = {"poisson3d27", "cuda", 0, 0, 50, true, false, 1.25, 420.0, 150e9};
    parse(argc, argv, &a);
    setvbuf(stdout, NULL, _IOLBF, 0);
    kryl_backend_kind device;
    BENCH_TRY(kryl_backend_from_name(a.backend, &device));
    if (!kryl_backend_available(device)) {
        printf("bench_hybrid_memory: backend %s is not usable here\n", a.backend);
        return 0;
    }
    kryl_generator_kind kind;
    BENCH_TRY(kryl_generator_from_name(a.gen, &kind));
    const kryl_device_memory before = device_memory(&a, device);
    const bool real = a.n == 0;
    if (real) a.n = past_the_device(&a, &before, kind);
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, a.n);
    int64_t rows = 0, entries = 0;
    BENCH_TRY(kryl_generator_size(&g, &rows, &entries));
    const double csr = csr_bytes(rows, entries);
    printf("bench_hybrid_memory: %s --n %lld: %lld rows, about %lld entries, %.3g GB of CSR\n",
           a.gen, (long long)a.n, (long long)rows, (long long)entries, gigabytes(csr));
    const plan p = make_plan(&a, &before, rows, entries);
    if (real || a.plan_only) check_plan(&a, &p, &before);
    if (a.plan_only) return 0;
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
    const double device_bytes = memory_of(&d.mem);
    printf("  device %s: %.3g GB (%s); the matrix is %.2fx that; peak held %.3g GB, %s\n",
           a.backend, gigabytes(device_bytes), d.mem.limit > 0 ? "the cap" : "its memory",
           device_bytes > 0.0 ? csr / device_bytes : 0.0, gigabytes((double)d.mem.peak),
           d.mem.total == 0           ? "not tracked (a host backend stands in)"
           : (double)d.mem.peak < csr ? "less than A: A was never whole there"
                                      : "not less than A");
    printf("  split: host %lld rows (%lld + %lld entries), device %lld rows (%lld + %lld "
           "entries); device share of the entries %.3f (the plan: %.3f of the rows)\n",
           (long long)in->host_rows, (long long)in->host_nnz, (long long)in->host_coupling_nnz,
           (long long)in->device_rows, (long long)in->device_nnz,
           (long long)in->device_coupling_nnz,
           (double)(in->device_nnz + in->device_coupling_nnz) / fmax(1.0, (double)entries),
           p.device_share);
    printf("  model: host %.3g, device %.3g nonzeros/s (r_cpu %.3f; %lld device sample rows): "
           "%s\n",
           in->host_nnz_per_s, in->device_nnz_per_s, in->model_host_share,
           (long long)in->device_model_rows, in->reason);
    if (host_per_it > 0.0)
        printf("  hybrid 3 against the host alone: %.4f / %.4f s an iteration = %.2fx (the "
               "paper's out-of-memory figure: 2.5x)\n",
               per_iteration(&d), host_per_it, host_per_it / per_iteration(&d));
    return 0;
}
