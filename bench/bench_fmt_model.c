/* CPU benchmark: the host time of the format model (`--format auto`) on
 * stencils, where pruning leaves CSR and DIA, and on random and power-law
 * matrices, where the sorted formats (JDS, pJDS, SELL) are weighed too:
 *   host:    kryl_matrix_choose_format on an omp context (the host's cache
 *            model, every count on the host);
 *   counted: kryl_fmt_choose_counted with an H100's model (3 TB/s, 50 MB
 *            L2, 32-byte sectors) and the far entries, diagonals and blocks
 *            given by a counter, as the cuda backend counts them on the
 *            device (here counted once beforehand and cached): what is
 *            left is the model's own host work.
 * Per matrix: the best wall and CPU seconds of `reps` choices, the choice
 * and the model's sentence.
 *
 * usage: bench_fmt_model [threads (2)] [reps (3)] [scale (1.0)]
 * scale multiplies the rows of every matrix (0.1 for a quick run). */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "bench_cpu_problem.h"
#include "core/error.h"
#include "core/objects.h"
#include "formats/fmt_internal.h"

static double seconds_of(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The counts of one matrix, each taken on the host at its first request. */
#define MAX_FAR 8
typedef struct cached_counts {
    const kryl_csr *A;
    int threads, nfar;
    int64_t window[MAX_FAR], near[MAX_FAR], far[MAX_FAR], ndiag, nblocks[5];
} cached_counts;

static kryl_status cached_far(void *arg, int64_t window, int64_t near, int64_t *far)
{
    cached_counts *c = arg;
    for (int k = 0; k < c->nfar; k++)
        if (c->window[k] == window && c->near[k] == near) return *far = c->far[k], KRYL_SUCCESS;
    if (c->nfar == MAX_FAR) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "bench: cache full");
    /* far entries of the rows sorted within windows of `window` (fmt_sorted_order) */
    const int64_t n = c->A->nrows;
    int32_t *perm = malloc((size_t)(n > 0 ? n : 1) * sizeof *perm);
    int32_t *inv = malloc((size_t)(n > 0 ? n : 1) * sizeof *inv);
    if (perm == NULL || inv == NULL) abort();
    BENCH_TRY(fmt_sorted_order(c->A, NULL, window, c->threads, perm));
    fmt_invert(perm, n, c->threads, inv);
    const fmt_view v = {c->A, n, perm, inv};
    c->window[c->nfar] = window;
    c->near[c->nfar] = near;
    *far = c->far[c->nfar++] = fmt_count_far(&v, near, c->threads);
    free(perm);
    free(inv);
    return KRYL_SUCCESS;
}

static kryl_status cached_diagonals(void *arg, int64_t *ndiag)
{
    cached_counts *c = arg;
    if (c->ndiag < 0) {
        /* the distinct j - i, marked at j - i + n - 1 */
        const kryl_csr *A = c->A;
        unsigned char *mark = calloc((size_t)(2 * A->nrows + 1), 1);
        if (mark == NULL) abort();
        c->ndiag = 0;
        for (int64_t i = 0; i < A->nrows; i++)
            for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; q++)
                if (!mark[A->col_idx[q] - i + A->nrows - 1]++) c->ndiag++;
        free(mark);
    }
    *ndiag = c->ndiag;
    return KRYL_SUCCESS;
}

static kryl_status cached_blocks(void *arg, int64_t b, int64_t *nblocks)
{
    cached_counts *c = arg;
    if (c->nblocks[b] < 0) {
        /* BCSR's stored slots are its blocks times b^2 */
        kryl_fmt_params p;
        kryl_fmt_params_init(&p);
        p.threads = c->threads;
        kryl_fmt_cost cost;
        BENCH_TRY(
            kryl_fmt_cost_of(c->A, b == 4 ? KRYL_FORMAT_BCSR4 : KRYL_FORMAT_BCSR2, &p, &cost));
        c->nblocks[b] = cost.stored / (b * b);
    }
    *nblocks = c->nblocks[b];
    return KRYL_SUCCESS;
}

int main(int argc, char **argv)
{
    const int threads = argc > 1 ? (int)bench_parse_count(argv[1], "threads") : 2;
    const int reps = argc > 2 ? (int)bench_parse_count(argv[2], "reps") : 3;
    const double scale = argc > 3 ? atof(argv[3]) : 1.0;
    const struct {
        kryl_generator_kind kind;
        long n; /* per direction for the stencils, rows for the random kinds */
        int dims;
    } cases[] = {{KRYL_GEN_POISSON3D27, 100, 3},
                 {KRYL_GEN_POISSON3D7, 160, 3},
                 {KRYL_GEN_RANDOM_SPD, 1000000, 1},
                 {KRYL_GEN_POWERLAW, 1000000, 1},
                 {KRYL_GEN_RGG, 1000000, 1}};
    printf("format model on %d threads, best of %d (seconds)\n", threads, reps);
    printf("| matrix | n | rows | nnz | counts | wall | cpu | choice |\n"
           "|---|---|---|---|---|---|---|---|\n");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const long n = (long)fmax(1.0, round((double)cases[c].n * pow(scale, 1.0 / cases[c].dims)));
        bench_problem p = bench_problem_create(cases[c].kind, n, threads, false, NULL, NULL);
        const kryl_csr *A = &p.A->host->csr;
        cached_counts counts = {A, threads, 0, {0}, {0}, {0}, -1, {-1, -1, -1, -1, -1}};
        const kryl_fmt_counter counter = {cached_far, cached_diagonals, cached_blocks, &counts};
        const kryl_device_model h100 = {3.0e12, 50 << 20, 32};
        kryl_fmt_params params;
        kryl_fmt_params_init(&params);
        params.threads = threads;
        for (int counted = 0; counted < 2; counted++) {
            double wall = INFINITY, cpu = INFINITY;
            kryl_format choice = KRYL_FORMAT_CSR;
            char why[320] = "";
            /* the counted runs after one that fills the cache */
            for (int r = -counted; r < reps; r++) {
                const double w0 = seconds_of(CLOCK_MONOTONIC);
                const double c0 = seconds_of(CLOCK_PROCESS_CPUTIME_ID);
                if (counted)
                    BENCH_TRY(kryl_fmt_choose_counted(A, &params, &h100, &counter, &choice, why,
                                                      sizeof why));
                else
                    BENCH_TRY(kryl_matrix_choose_format(p.A, &choice, why, sizeof why));
                if (r < 0) continue;
                wall = fmin(wall, seconds_of(CLOCK_MONOTONIC) - w0);
                cpu = fmin(cpu, seconds_of(CLOCK_PROCESS_CPUTIME_ID) - c0);
            }
            printf("| %s | %ld | %lld | %lld | %s | %.4f | %.4f | %s |\n",
                   kryl_generator_name(cases[c].kind), n, (long long)p.nrows, (long long)p.nnz,
                   counted ? "counted" : "host", wall, cpu, why);
        }
        bench_problem_destroy(&p);
    }
    return 0;
}
