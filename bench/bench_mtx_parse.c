/* Matrix Market parsing speed: writes a coordinate real general file and
 * times kryl_mtx_read on it (best of 3) on one thread and on all of
 * OpenMP's, for values written with 17 significant digits (kryl's own
 * "%.17g" output) and with 14 (the "%.13e" of many files of the
 * SuiteSparse collection); with --scipy, SciPy's scipy.io.mmread (best of
 * 3, on one thread and on its own default threads) on the same files in the
 * same run.  Also times
 * kryl_mtx_write_csr.
 *
 *   bench_mtx_parse [PATH] [--keep] [--mb N | --stencil N] [--scipy]
 *
 * --mb N: a random matrix of about N MB (default 200); --stencil N: the
 * 7-point Laplacian on an N^3 grid.  PATH defaults to
 * /tmp/kryl_bench_mtx_parse.mtx; the files are deleted unless --keep is
 * given (then PATH and PATH.13e stay). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "io/mtx.h"

#define TARGET_MB_S 150.0

static double now(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t next_random(uint64_t *state)
{
    /* splitmix64 */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A random n x n CSR with 5 or 6 entries per row (sorted, possibly
 * repeated columns are fine for a file) and values of varied magnitude. */
static int random_csr(kryl_csr *A, int64_t n)
{
    uint64_t state = 42;
    int64_t nnz = 0;
    A->nrows = A->nrows_global = n;
    A->ncols = n;
    A->row_begin = 0;
    A->row_ptr = malloc((size_t)(n + 1) * sizeof *A->row_ptr);
    A->col_idx = malloc((size_t)(6 * n) * sizeof *A->col_idx);
    A->values = malloc((size_t)(6 * n) * sizeof *A->values);
    if (!A->row_ptr || !A->col_idx || !A->values) return 1;
    static const double scale[7] = {1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 1000.0};
    for (int64_t i = 0; i < n; i++) {
        A->row_ptr[i] = nnz;
        int len = 5 + (int)(next_random(&state) % 2);
        /* a_ij = uniform(-1, 1) * 10^k, k in -3..3 */
        for (int k = 0; k < len; k++, nnz++) {
            A->col_idx[nnz] = (int32_t)(next_random(&state) % (uint64_t)n);
            double u = (double)(next_random(&state) >> 11) * 0x1.0p-53;
            A->values[nnz] = (2.0 * u - 1.0) * scale[next_random(&state) % 7];
        }
    }
    A->row_ptr[n] = nnz;
    return 0;
}

/* The same entries with "%.13e" values, through stdio. */
static int write_13e(const char *path, const kryl_csr *A)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) return 1;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n",
            (long long)A->nrows, (long long)A->ncols, (long long)A->row_ptr[A->nrows]);
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            fprintf(f, "%lld %d %.13e\n", (long long)i + 1, A->col_idx[k] + 1, A->values[k]);
    return fclose(f) != 0;
}

static double file_mb(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0.0;
}

/* The 7-point Laplacian on an n^3 grid, as host CSR. */
static int stencil_csr(kryl_csr *A, int64_t n)
{
    kryl_context ctx = NULL;
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = KRYL_BACKEND_REF;
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_POISSON3D7, n);
    int64_t rows = 0, nnz = 0;
    kryl_matrix M = NULL;
    if (kryl_context_create(&ctx, &co) != KRYL_SUCCESS ||
        kryl_generator_size(&g, &rows, &nnz) != KRYL_SUCCESS ||
        kryl_matrix_generate(&M, ctx, &g, 0, rows) != KRYL_SUCCESS)
        return 1;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    kryl_matrix_csr_view(M, &rp, &ci, &v);
    nnz = rp[rows];
    A->nrows = A->nrows_global = A->ncols = rows;
    A->row_begin = 0;
    A->row_ptr = malloc((size_t)(rows + 1) * sizeof *A->row_ptr);
    A->col_idx = malloc((size_t)nnz * sizeof *A->col_idx);
    A->values = malloc((size_t)nnz * sizeof *A->values);
    if (!A->row_ptr || !A->col_idx || !A->values) return 1;
    memcpy(A->row_ptr, rp, (size_t)(rows + 1) * sizeof *rp);
    memcpy(A->col_idx, ci, (size_t)nnz * sizeof *ci);
    memcpy(A->values, v, (size_t)nnz * sizeof *v);
    kryl_matrix_destroy(&M);
    kryl_context_destroy(&ctx);
    return 0;
}

/* SciPy's mmread of path, best of 3, in MB/s (0 when SciPy is missing), on
 * `threads` threads of fast_matrix_market (0: its default, all cores; set
 * through scipy.io._fast_matrix_market.PARALLELISM, which threadpoolctl sets). */
static double time_scipy(const char *path, int threads)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import sys, time, scipy, scipy.io\n"
             "if %d > 0:\n"
             "    import scipy.io._fast_matrix_market as fmm; fmm.PARALLELISM = %d\n"
             "best = 1e30\n"
             "for rep in range(3):\n"
             "    t0 = time.perf_counter(); scipy.io.mmread(sys.argv[1]); "
             "best = min(best, time.perf_counter() - t0)\n"
             "print(scipy.__version__, best)\" '%s' 2>/dev/null",
             threads, threads, path);
    FILE *p = popen(cmd, "r");
    char version[64] = "";
    double best = 0.0;
    int got = p ? fscanf(p, "%63s %lf", version, &best) : 0;
    if (p) pclose(p);
    if (got != 2 || best <= 0.0) {
        printf("read  %-28s SciPy not available\n", "scipy.io.mmread");
        return 0.0;
    }
    double rate = file_mb(path) / best;
    char label[96];
    if (threads > 0)
        snprintf(label, sizeof label, "scipy %s mmread, %d thread%s", version, threads,
                 threads == 1 ? "" : "s");
    else
        snprintf(label, sizeof label, "scipy %s mmread", version);
    printf("read  %-40s %8.1f MB in %6.3f s: %7.1f MB/s\n", label, file_mb(path), best, rate);
    return rate;
}

/* Best of 3 reads on `threads` threads (0: OpenMP's default); returns MB/s
 * or 0 on failure. */
static double time_read(const char *path, const char *what, int64_t expect, int threads)
{
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    if (threads > 0) omp_set_num_threads(threads);
    threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    char label[96];
    snprintf(label, sizeof label, "%s, %d thread%s", what, threads, threads == 1 ? "" : "s");
    double best = 1e30, mb = file_mb(path);
    for (int rep = 0; rep < 3; rep++) {
        kryl_coo coo;
        double t0 = now();
        kryl_status st = kryl_mtx_read(path, NULL, &coo);
        double t = now() - t0;
        if (st != KRYL_SUCCESS || coo.count != expect) {
            fprintf(stderr, "read failed: %s (%lld entries)\n", kryl_last_error(),
                    (long long)coo.count);
            return 0.0;
        }
        kryl_coo_free(&coo);
        if (t < best) best = t;
    }
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    double rate = mb / best;
    printf("read  %-40s %8.1f MB in %6.3f s: %7.1f MB/s (target >= %.0f MB/s: %s)\n", label, mb,
           best, rate, TARGET_MB_S, rate >= TARGET_MB_S ? "met" : "NOT met");
    return rate;
}

int main(int argc, char **argv)
{
    const char *path = "/tmp/kryl_bench_mtx_parse.mtx";
    int keep = 0, scipy = 0;
    double target_mb = 200.0;
    int64_t stencil = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--keep") == 0)
            keep = 1;
        else if (strcmp(argv[a], "--scipy") == 0)
            scipy = 1;
        else if (strcmp(argv[a], "--mb") == 0 && a + 1 < argc)
            target_mb = atof(argv[++a]);
        else if (strcmp(argv[a], "--stencil") == 0 && a + 1 < argc)
            stencil = atoll(argv[++a]);
        else
            path = argv[a];
    }
    /* ~34.6 bytes per entry, 5.5 entries per row */
    int64_t n = (int64_t)(target_mb * 1e6 / (34.6 * 5.5));
    if (n < 1) n = 1;
    kryl_csr A;
    if (stencil > 0 ? stencil_csr(&A, stencil) != 0 : random_csr(&A, n) != 0) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    n = A.nrows;
    int64_t nnz = A.row_ptr[n];
    char path13[4096];
    snprintf(path13, sizeof path13, "%s.13e", path);

    double t0 = now();
    if (kryl_mtx_write_csr(path, &A) != KRYL_SUCCESS) {
        fprintf(stderr, "write failed: %s\n", kryl_last_error());
        return 1;
    }
    double tw = now() - t0;
    printf("write %-28s %8.1f MB in %6.3f s: %7.1f MB/s (%lld rows, %lld entries)\n",
           "kryl_mtx_write_csr (%.17g)", file_mb(path), tw, file_mb(path) / tw, (long long)n,
           (long long)nnz);
    if (write_13e(path13, &A) != 0) {
        fprintf(stderr, "cannot write %s\n", path13);
        return 1;
    }
    double r17 = time_read(path, "%.17g values", nnz, 1);
    double s17_one = scipy ? time_scipy(path, 1) : 0.0;
    double r17_all = time_read(path, "%.17g values", nnz, 0);
    double s17 = scipy ? time_scipy(path, 0) : 0.0;
    double r13 = time_read(path13, "%.13e values", nnz, 1);
    double s13_one = scipy ? time_scipy(path13, 1) : 0.0;
    double r13_all = time_read(path13, "%.13e values", nnz, 0);
    double s13 = scipy ? time_scipy(path13, 0) : 0.0;
    if (s17_one > 0.0 && s13_one > 0.0)
        printf("kryl / scipy on one thread: %.2fx (%%.17g), %.2fx (%%.13e)\n", r17 / s17_one,
               r13 / s13_one);
    if (s17 > 0.0 && s13 > 0.0)
        printf("kryl on all threads / scipy: %.2fx (%%.17g), %.2fx (%%.13e)\n", r17_all / s17,
               r13_all / s13);
    if (!keep) {
        remove(path);
        remove(path13);
    }
    kryl_csr_free(&A);
    return r17 > 0.0 && r13 > 0.0 && r17_all > 0.0 && r13_all > 0.0 ? 0 : 1;
}
