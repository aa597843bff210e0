/* CPU benchmark: the omp backend's SpMV y = A*x in every storage format
 * on the 3-D 7-point Poisson matrix (100^3), the 27-point one (60^3), a
 * power-law matrix of 1M rows, and a 7-point stencil of dense 4x4 blocks
 * (40^3 nodes, 4 unknowns each: the case BCSR is for).  Per format: the
 * best time of one SpMV, the bandwidth on the format's own bytes
 * (kryl_fmt_cost_of: every array it stores, with float values where the
 * omp storage keeps floats, plus x and y once each) and the speed relative
 * to omp CSR.  Formats that kryl_fmt_build refuses are listed with why.
 *
 * usage: bench_formats_cpu [threads (2)] [double|single] [scale (1.0)]
 *                          [max_padding (3.0)]
 * scale multiplies the rows of every matrix (0.1 for a quick run);
 * max_padding relaxes the refusal of padded formats (kryl_fmt_params). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/omp/omp_backend.h"
#include "kryl.h"

#define TRY(call)                                                                                  \
    do {                                                                                           \
        kryl_status try_st_ = (call);                                                              \
        if (try_st_ != KRYL_SUCCESS) {                                                             \
            fprintf(stderr, "bench_formats_cpu: %s failed: %s: %s\n", #call,                       \
                    kryl_strerror(try_st_), kryl_last_error());                                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Rounds of timing: each round times one batch of every format in turn
 * (so a burst of load on the machine hits them all alike); each batch runs
 * for about BATCH_SECONDS.  A format's time is its best batch. */
#define ROUNDS        20
#define BATCH_SECONDS 0.05
#define NFORMATS      (KRYL_FORMAT_DIA - KRYL_FORMAT_CSR + 1)

/* One format of the matrix under test. */
typedef struct candidate {
    kryl_matrix B; /* NULL: refused */
    kryl_vector x, y;
    kryl_fmt_cost cost;
    char why[96];   /* the refusal, shortened */
    double setup;   /* seconds of kryl_matrix_convert */
    int reps;       /* SpMVs per batch */
    double seconds; /* best time of one SpMV */
} candidate;

/* Build `format` of A and size its batches (or keep why it is refused). */
static void prepare(candidate *c, kryl_matrix A, kryl_format format, kryl_precision precision,
                    const kryl_fmt_params *params)
{
    memset(c, 0, sizeof *c);
    c->seconds = INFINITY;
    TRY(kryl_fmt_cost_of(&A->host->csr, format, params, &c->cost));
    const double t0 = kryl_wtime();
    kryl_status st = kryl_matrix_convert(&c->B, A, precision, format, params, KRYL_ORDER_NONE);
    c->setup = kryl_wtime() - t0;
    if (st != KRYL_SUCCESS) {
        snprintf(c->why, sizeof c->why, "%s", kryl_last_error());
        return;
    }
    TRY(kryl_vector_create(&c->x, c->B, precision));
    TRY(kryl_vector_create(&c->y, c->B, precision));
    TRY(kryl_vector_fill(c->x, 1.0));
    /* warm up, and size a batch from the first few */
    const double t1 = kryl_wtime();
    int warm = 0;
    do {
        TRY(kryl_matrix_spmv(c->B, 1.0, c->x, 0.0, c->y));
        warm++;
    } while (warm < 3 || kryl_wtime() - t1 < 0.05);
    c->reps = (int)fmax(1.0, BATCH_SECONDS * warm / (kryl_wtime() - t1));
}

/* One timed batch of c: y = A*x, reps times. */
static void time_batch(candidate *c)
{
    const double start = kryl_wtime();
    for (int r = 0; r < c->reps; r++) TRY(kryl_matrix_spmv(c->B, 1.0, c->x, 0.0, c->y));
    c->seconds = fmin(c->seconds, (kryl_wtime() - start) / c->reps);
}

/* The table of every format for A (destroyed here). */
static void bench_matrix(kryl_matrix A, const char *what, kryl_precision precision,
                         const kryl_fmt_params *params)
{
    int64_t rows, nnz;
    TRY(kryl_matrix_size(A, &rows, NULL, &nnz));
    printf("\n%s: %lld rows, %lld nonzeros (%.1f per row)\n", what, (long long)rows, (long long)nnz,
           (double)nnz / (double)rows);
    candidate c[NFORMATS];
    for (int f = 0; f < NFORMATS; f++)
        prepare(&c[f], A, (kryl_format)(KRYL_FORMAT_CSR + f), precision, params);
    for (int round = 0; round < ROUNDS; round++)
        for (int f = 0; f < NFORMATS; f++)
            if (c[f].B != NULL) time_batch(&c[f]);
    printf("  %-6s %9s %8s %6s %10s %8s %8s %9s\n", "format", "spmv ms", "setup ms", "values",
           "bytes MB", "GB/s", "GFlop/s", "x csr");
    const double vec = (double)rows * (precision == KRYL_SINGLE ? 4.0 : 8.0);
    for (int f = 0; f < NFORMATS; f++) {
        if (c[f].B == NULL) {
            printf("  %-6s refused: %s...\n", kryl_format_name(KRYL_FORMAT_CSR + f), c[f].why);
            continue;
        }
        const kryl_omp_matrix *M = c[f].B->storage;
        const bool floats = M->values_single != NULL;
        /* the format's arrays, x read once, y written once */
        const double bytes =
            (double)(floats ? c[f].cost.bytes_single : c[f].cost.bytes) + 2.0 * vec;
        const double s = c[f].seconds;
        printf("  %-6s %9.3f %8.1f %6s %10.1f %8.2f %8.2f %9.3f\n",
               kryl_format_name(KRYL_FORMAT_CSR + f), 1e3 * s, 1e3 * c[f].setup,
               floats ? "f32" : "f64", bytes / 1e6, bytes / s / 1e9, 2.0 * (double)nnz / s / 1e9,
               c[0].seconds / s);
        kryl_vector_destroy(&c[f].x);
        kryl_vector_destroy(&c[f].y);
        kryl_matrix_destroy(&c[f].B);
    }
    kryl_matrix_destroy(&A);
}

static kryl_matrix generated(kryl_context ctx, kryl_generator_kind kind, int64_t n)
{
    kryl_generator_options gen;
    kryl_generator_options_init(&gen, kind, n);
    int64_t rows, nnz;
    TRY(kryl_generator_size(&gen, &rows, &nnz));
    kryl_matrix A;
    TRY(kryl_matrix_generate(&A, ctx, &gen, 0, rows));
    return A;
}

/* The 7-point stencil on m^3 nodes with a dense B x B block per coupling
 * (B unknowns per node, numbered node by node): block a = 6.5 on the
 * diagonal of the node's own block, 0.25 elsewhere in it, -0.125 in the
 * neighbours' blocks (all exact floats, as the stencils' values are). */
enum { BLOCK = 4 };
static kryl_matrix block_stencil(kryl_context ctx, int64_t m)
{
    const int64_t nodes = m * m * m, n = nodes * BLOCK;
    int64_t *row_ptr = malloc((size_t)(n + 1) * sizeof *row_ptr);
    int64_t *col = malloc((size_t)n * 7 * BLOCK * sizeof *col);
    double *val = malloc((size_t)n * 7 * BLOCK * sizeof *val);
    if (row_ptr == NULL || col == NULL || val == NULL) {
        fprintf(stderr, "bench_formats_cpu: out of memory for the block stencil\n");
        exit(1);
    }
    const int64_t step[3] = {1, m, m * m};
    int64_t k = 0;
    row_ptr[0] = 0;
    for (int64_t v = 0; v < nodes; v++) {
        const int64_t at[3] = {v % m, v / m % m, v / (m * m)};
        int64_t nb[7], count = 0;
        /* neighbour nodes in increasing order: -z, -y, -x, self, +x, +y, +z */
        for (int d = 2; d >= 0; d--)
            if (at[d] > 0) nb[count++] = v - step[d];
        nb[count++] = v;
        for (int d = 0; d < 3; d++)
            if (at[d] < m - 1) nb[count++] = v + step[d];
        for (int r = 0; r < BLOCK; r++) {
            for (int64_t q = 0; q < count; q++)
                for (int c = 0; c < BLOCK; c++) {
                    col[k] = nb[q] * BLOCK + c;
                    val[k++] = nb[q] != v ? -0.125 : r == c ? 6.5 : 0.25;
                }
            row_ptr[v * BLOCK + r + 1] = k;
        }
    }
    kryl_matrix A;
    TRY(kryl_matrix_create_csr(&A, ctx, n, n, 0, n, row_ptr, col, val));
    free(row_ptr);
    free(col);
    free(val);
    return A;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    const long threads = argc > 1 ? strtol(argv[1], &end, 10) : 2;
    if (threads <= 0 || (end != NULL && *end != '\0')) {
        fprintf(stderr, "bench_formats_cpu: thread count '%s' is not a positive integer\n",
                argv[1]);
        return 2;
    }
    kryl_precision precision = KRYL_DOUBLE;
    if (argc > 2) TRY(kryl_precision_from_name(argv[2], &precision));
    const double scale = argc > 3 ? strtod(argv[3], &end) : 1.0;
    if (!(scale > 0.0) || (argc > 3 && *end != '\0')) {
        fprintf(stderr, "bench_formats_cpu: scale '%s' is not a positive number\n", argv[3]);
        return 2;
    }
    kryl_fmt_params params;
    kryl_fmt_params_init(&params);
    if (argc > 4) params.max_padding = strtod(argv[4], &end);
    if (!(params.max_padding >= 1.0) || (argc > 4 && *end != '\0')) {
        fprintf(stderr, "bench_formats_cpu: max_padding '%s' is not a number >= 1\n", argv[4]);
        return 2;
    }
    kryl_context ctx;
    kryl_context_options copt;
    kryl_context_options_init(&copt);
    copt.backend = KRYL_BACKEND_OMP;
    copt.threads = (int)threads;
    TRY(kryl_context_create(&ctx, &copt));
    printf("kryl omp SpMV by storage format: %s, %s, max_padding %g; best of %d batches of "
           "~%.2f s, the formats taking turns\n",
           kryl_context_device_name(ctx), kryl_precision_name(precision), params.max_padding,
           ROUNDS, BATCH_SECONDS);
    printf("bytes = the format's arrays (float values where stored as floats) + x + y;\n"
           "x csr = omp CSR time / format time (CSR's own storage may move fewer bytes: "
           "16-bit column offsets)\n");
    const double edge = cbrt(scale);
    bench_matrix(generated(ctx, KRYL_GEN_POISSON3D7, llround(100 * edge)), "poisson3d 7-point",
                 precision, &params);
    bench_matrix(generated(ctx, KRYL_GEN_POISSON3D27, llround(60 * edge)), "poisson3d 27-point",
                 precision, &params);
    bench_matrix(generated(ctx, KRYL_GEN_POWERLAW, llround(1000000 * scale)), "powerlaw", precision,
                 &params);
    bench_matrix(block_stencil(ctx, llround(40 * edge)), "7-point stencil of 4x4 blocks", precision,
                 &params);
    kryl_context_destroy(&ctx);
    return 0;
}
