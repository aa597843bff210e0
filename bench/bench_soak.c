/* A long run in one context: back-to-back setups and solves, each from a
 * new matrix to nothing, cycling through methods, preconditioners, storage
 * formats and precisions, with the host's resident memory (/proc/self/statm)
 * and the device memory the context holds printed at intervals, and their
 * drift at the end: what grows with the number of solves is a leak.
 * Through the public API only (include/kryl.h).
 *
 *   bench_soak [solves (1000)] [backend (auto)] [n (48)]
 *
 * 2-D problems of n to n+2 points a side (the sizes vary too): the 5-point
 * Laplacian for the symmetric methods, upwind convection-diffusion for the
 * others; b = 1, x0 = 0, rtol 1e-8.  Exit status 1 when a call fails or the
 * context does not hold what it held before the first solve. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kryl.h"

typedef struct soak_case {
    const char *name;
    kryl_generator_kind kind;
    kryl_method method;
    kryl_precond_kind precond;
    kryl_format format;
    kryl_mixed_scheme mixed;
} soak_case;

static const soak_case cases[] = {
    {"cg csr", KRYL_GEN_POISSON2D5, KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_FORMAT_CSR,
     KRYL_MIXED_NONE},
    {"pcg jacobi ell", KRYL_GEN_POISSON2D5, KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, KRYL_FORMAT_ELL,
     KRYL_MIXED_NONE},
    {"pcg ic0 sell", KRYL_GEN_POISSON2D5, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, KRYL_FORMAT_SELL,
     KRYL_MIXED_NONE},
    {"pipecg lspoly csr", KRYL_GEN_POISSON2D5, KRYL_METHOD_PIPECG, KRYL_PRECOND_LSPOLY,
     KRYL_FORMAT_CSR, KRYL_MIXED_NONE},
    {"cg amg csr", KRYL_GEN_POISSON2D5, KRYL_METHOD_CG, KRYL_PRECOND_AMG, KRYL_FORMAT_CSR,
     KRYL_MIXED_NONE},
    {"pcg mcssor ellr", KRYL_GEN_POISSON2D5, KRYL_METHOD_PCG, KRYL_PRECOND_MCSSOR, KRYL_FORMAT_ELLR,
     KRYL_MIXED_NONE},
    {"cg jacobi mixed-ir dia", KRYL_GEN_POISSON2D5, KRYL_METHOD_CG, KRYL_PRECOND_JACOBI,
     KRYL_FORMAT_DIA, KRYL_MIXED_IR},
    {"gmres ilu0 jds", KRYL_GEN_CONVDIFF2D, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, KRYL_FORMAT_JDS,
     KRYL_MIXED_NONE},
    {"bicgstab ilu0 pjds", KRYL_GEN_CONVDIFF2D, KRYL_METHOD_BICGSTAB, KRYL_PRECOND_ILU0,
     KRYL_FORMAT_PJDS, KRYL_MIXED_NONE},
    {"gmres bjacobi inner-outer auto", KRYL_GEN_CONVDIFF2D, KRYL_METHOD_GMRES, KRYL_PRECOND_BJACOBI,
     KRYL_FORMAT_AUTO, KRYL_MIXED_INNER_OUTER},
    {"auto", KRYL_GEN_CONVDIFF2D, KRYL_METHOD_AUTO, KRYL_PRECOND_NONE, KRYL_FORMAT_CSR,
     KRYL_MIXED_NONE},
};
enum { CASES = sizeof cases / sizeof cases[0] };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Resident set size of this process in bytes (0 if unknown). */
static long long resident_bytes(void)
{
    long long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL) return 0;
    if (fscanf(f, "%lld %lld", &pages, &resident) != 2) resident = 0;
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

static kryl_device_memory device_memory(kryl_context ctx)
{
    kryl_device_memory m;
    if (kryl_context_device_memory(ctx, &m) != KRYL_SUCCESS) memset(&m, 0, sizeof m);
    return m;
}

/* One solve of case c at size n, from nothing back to nothing. */
static kryl_status soak_one(kryl_context ctx, const soak_case *c, int64_t n, bool *converged)
{
    kryl_matrix A = NULL;
    kryl_solver solver = NULL;
    kryl_vector b = NULL, x = NULL;
    kryl_generator_options g;
    kryl_generator_options_init(&g, c->kind, n);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = c->method;
    o.precond = c->precond;
    o.format = c->format;
    o.mixed = c->mixed;
    if (c->mixed != KRYL_MIXED_NONE) o.precision = KRYL_MIXED;
    kryl_result r;
    kryl_status st = kryl_matrix_generate(&A, ctx, &g, 0, n * n);
    if (st == KRYL_SUCCESS) st = kryl_solver_create(&solver, A, &o);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&b, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&x, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_fill(b, 1.0);
    if (st == KRYL_SUCCESS) st = kryl_solver_solve(solver, b, x, &r);
    *converged = st == KRYL_SUCCESS && r.converged;
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&b);
    kryl_solver_destroy(&solver);
    kryl_matrix_destroy(&A);
    return st;
}

static void print_row(const char *label, int64_t solves, double seconds, long long rss,
                      const kryl_device_memory *m)
{
    printf("%-10s %7lld %9.1f %12.2f %14.3f %14.1f\n", label, (long long)solves, seconds,
           1e-6 * (double)rss, 1e-6 * (double)m->in_use, 1e-6 * (double)m->available);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const int64_t solves = argc > 1 ? atoll(argv[1]) : 1000;
    kryl_backend_kind backend = KRYL_BACKEND_AUTO;
    if (argc > 2 && kryl_backend_from_name(argv[2], &backend) != KRYL_SUCCESS) {
        fprintf(stderr, "bench_soak: %s\n", kryl_last_error());
        return 1;
    }
    const int64_t n = argc > 3 ? atoll(argv[3]) : 48;
    if (solves < 1 || n < 4) {
        fprintf(stderr, "usage: bench_soak [solves >= 1] [backend] [n >= 4]\n");
        return 1;
    }
    kryl_context_options copt;
    kryl_context_options_init(&copt);
    copt.backend = backend;
    kryl_context ctx = NULL;
    if (kryl_context_create(&ctx, &copt) != KRYL_SUCCESS) {
        fprintf(stderr, "bench_soak: %s\n", kryl_last_error());
        return 1;
    }
    printf("bench_soak: %lld solves on %s (%s), %d cases, n = %lld..%lld\n", (long long)solves,
           kryl_backend_name(kryl_context_backend(ctx)), kryl_context_device_name(ctx), CASES,
           (long long)n, (long long)n + 2);
    printf("%-10s %7s %9s %12s %14s %14s\n", "", "solves", "seconds", "host RSS MB",
           "device held MB", "device free MB");
    const kryl_device_memory start = device_memory(ctx);
    const double t0 = now();
    long long rss_warm = 0;
    kryl_device_memory warm = start;
    int64_t failed = 0, unconverged = 0;
    /* the first rounds through the cases and the three sizes load what stays
     * (code, thread pools, the allocator's arenas) */
    const int64_t warm_up = solves < 3 * CASES ? solves : 3 * CASES;
    const int64_t every = solves >= 10 ? solves / 10 : 1;
    for (int64_t k = 0; k < solves; k++) {
        const soak_case *c = &cases[k % CASES];
        bool converged = false;
        if (soak_one(ctx, c, n + (k / CASES) % 3, &converged) != KRYL_SUCCESS) {
            fprintf(stderr, "bench_soak: solve %lld (%s): %s\n", (long long)k, c->name,
                    kryl_last_error());
            failed++;
        } else if (!converged && unconverged++ < CASES) {
            fprintf(stderr, "bench_soak: solve %lld (%s, n = %lld) did not converge\n",
                    (long long)k, c->name, (long long)(n + (k / CASES) % 3));
        }
        kryl_device_memory m = device_memory(ctx);
        if (k + 1 == warm_up) {
            rss_warm = resident_bytes();
            warm = m;
            print_row("warm", k + 1, now() - t0, rss_warm, &m);
        } else if ((k + 1) % every == 0 || k + 1 == solves) {
            print_row("", k + 1, now() - t0, resident_bytes(), &m);
        }
    }
    const long long rss_end = resident_bytes();
    const kryl_device_memory end = device_memory(ctx);
    printf("drift after warm-up (%lld solves): host RSS %+.3f MB, device held %+lld bytes "
           "(%+lld since the first solve), device free %+.3f MB; peak held %.3f MB\n",
           (long long)warm_up, 1e-6 * (double)(rss_end - rss_warm),
           (long long)(end.in_use - warm.in_use), (long long)(end.in_use - start.in_use),
           1e-6 * (double)(end.available - warm.available), 1e-6 * (double)end.peak);
    printf("%lld failed, %lld did not converge, %.2f ms a solve\n", (long long)failed,
           (long long)unconverged, 1e3 * (now() - t0) / (double)solves);
    kryl_context_destroy(&ctx);
    return failed > 0 || end.in_use != start.in_use ? 1 : 0;
}
