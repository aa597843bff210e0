/* Distributed multicolor SSOR (run under mpirun with 1 to 4 ranks): the
 * distributed coloring is proper, deterministic and agreed on (2-D 5-point,
 * 3-D 27-point, random SPD, a nonsymmetric pattern, a real matrix); one
 * apply equals a serial multicolor SSOR (forward and backward
 * Gauss-Seidel-omega in the same colors) computed on rank 0, also through
 * formats that permute rows, in single precision and in every overlap
 * mode; PCG and GMRES with it converge (PCG in fewer iterations than with
 * Jacobi on 3-D Poisson) with both partitioners and uneven rows (a rank
 * without rows); a zero diagonal is refused on every rank; one rank keeps
 * the single-process preconditioner. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/objects.h"
#include "dist/dist_internal.h"
#include "dist_support.h"
#include "precond/precond.h"

static int rank, size;

/* all (rank 0) = this rank's count entries of `type` after those of lower ranks. */
static void gather(const void *mine, int count, MPI_Datatype type, void *all)
{
    int *counts = malloc((size_t)size * sizeof *counts),
        *displs = malloc((size_t)size * sizeof *displs);
    MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int p = 0; rank == 0 && p < size; p++)
        displs[p] = p == 0 ? 0 : displs[p - 1] + counts[p - 1];
    MPI_Gatherv(mine, count, type, all, counts, displs, type, 0, MPI_COMM_WORLD);
    free(counts);
    free(displs);
}

/* G (rank 0) = the rows of dA, in dA's global numbering. */
static void gather_rows(kryl_matrix dA, kryl_csr *G)
{
    const kryl_csr *a = &dA->host->csr;
    int64_t nnz = kryl_csr_nnz(a), total = 0;
    MPI_Reduce(&nnz, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    int *len = malloc((size_t)(a->nrows + 1) * sizeof *len);
    /* len[i] = entries of owned row i */
    for (int64_t i = 0; i < a->nrows; i++) len[i] = (int)(a->row_ptr[i + 1] - a->row_ptr[i]);
    memset(G, 0, sizeof *G);
    int *all = NULL;
    if (rank == 0) {
        kryl_csr_alloc(G, a->nrows_global, a->ncols, total);
        all = malloc((size_t)(a->nrows_global + 1) * sizeof *all);
    }
    gather(len, (int)a->nrows, MPI_INT, all);
    gather(a->col_idx, (int)nnz, MPI_INT32_T, G->col_idx);
    gather(a->values, (int)nnz, MPI_DOUBLE, G->values);
    for (int64_t i = 0; rank == 0 && i < G->nrows; i++) G->row_ptr[i + 1] = G->row_ptr[i] + all[i];
    free(len);
    free(all);
}

/* The distributed coloring of dA (on one rank: its whole range). */
static kryl_status color_of(kryl_matrix dA, kryl_dist_coloring *c)
{
    const kryl_csr *a = &dA->host->csr;
    int64_t whole[2] = {0, a->nrows};
    const int64_t *begin = dA->dist ? dA->dist->rows->begin : whole;
    return kryl_dist_color(dA->ctx->dist, a, begin, c);
}

/* The coloring of dA is proper over all couplings, deterministic and has
 * one number of colors on every rank; *out keeps it (NULL: freed). */
static void check_coloring(kryl_matrix dA, const char *label, kryl_dist_coloring *out)
{
    kryl_dist_coloring c = {0}, again = {0};
    CHECK_OK(color_of(dA, &c));
    CHECK_OK(color_of(dA, &again));
    int64_t n = dA->host->csr.nrows;
    bool same = c.color && again.color && c.ncolors == again.ncolors &&
                memcmp(c.color, again.color, (size_t)n * sizeof *c.color) == 0;
    CHECK(same, "%s: two colorings on rank %d differ", label, rank);
    int32_t lo = 0, hi = 0;
    MPI_Allreduce(&c.ncolors, &lo, 1, MPI_INT32_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&c.ncolors, &hi, 1, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "%s: ranks disagree on the colors (%d to %d)", label, lo, hi);
    kryl_csr G;
    gather_rows(dA, &G);
    int32_t *color = rank == 0 ? malloc((size_t)(G.nrows + 1) * sizeof *color) : NULL;
    gather(c.color, (int)n, MPI_INT32_T, color);
    if (rank == 0) {
        int64_t bad = 0, outside = 0;
        int32_t used = 0;
        for (int64_t i = 0; i < G.nrows; i++) {
            outside += color[i] < 0 || color[i] >= c.ncolors;
            used = color[i] + 1 > used ? color[i] + 1 : used;
            for (int64_t k = G.row_ptr[i]; k < G.row_ptr[i + 1]; k++)
                bad += G.col_idx[k] != i && color[G.col_idx[k]] == color[i];
        }
        CHECK(bad == 0 && outside == 0 && used == c.ncolors,
              "%s: %lld couplings inside a color, %lld colors outside [0, %d), %d used", label,
              (long long)bad, (long long)outside, c.ncolors, used);
        printf("%s on %d ranks: %d colors after %d round(s)\n", label, size, c.ncolors, c.rounds);
    }
    kryl_csr_free(&G);
    free(color);
    kryl_dist_coloring_free(&again);
    if (out)
        *out = c;
    else
        kryl_dist_coloring_free(&c);
}

/* r_i = 1 + (7 i mod 11) / 11 - (i mod 3) / 4 for global row i. */
static double rhs(int64_t i) { return 1.0 + (double)(7 * i % 11) / 11.0 - (double)(i % 3) / 4.0; }

/* z = `sweeps` symmetric Gauss-Seidel-omega sweeps on G z = r from z = 0,
 * colors 0..C-1 forward then C-1..0 backward, rows of a color in any order:
 * z_i = (1 - omega) z_i + omega (r_i - sum_{j != i} g_ij z_j) / g_ii. */
static void reference(const kryl_csr *G, const int32_t *color, int32_t ncolors, int sweeps,
                      double omega, const double *r, double *z)
{
    for (int64_t i = 0; i < G->nrows; i++) z[i] = 0.0;
    for (int s = 0; s < sweeps; s++)
        for (int64_t step = 0; step < 2 * (int64_t)ncolors; step++) {
            int32_t c = (int32_t)(step < ncolors ? step : 2 * ncolors - 1 - step);
            for (int64_t i = 0; i < G->nrows; i++) {
                if (color[i] != c) continue;
                double sum = r[i], d = 0.0;
                for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1]; k++) {
                    if (G->col_idx[k] == i)
                        d = G->values[k];
                    else
                        sum -= G->values[k] * z[G->col_idx[k]];
                }
                z[i] = (1.0 - omega) * z[i] + omega * sum / d;
            }
        }
}

/* One apply of mcssor built on B (dA, or a conversion of it) against the
 * reference in dA's coloring col; the relative difference on rank 0. */
static double apply_difference(kryl_matrix dA, kryl_matrix B, const kryl_dist_coloring *col,
                               int sweeps, double omega)
{
    const kryl_csr *a = &dA->host->csr;
    int64_t n = a->nrows, N = a->nrows_global;
    double *r = malloc((size_t)(n + 1) * sizeof *r), *z = malloc((size_t)(n + 1) * sizeof *z);
    for (int64_t i = 0; i < n; i++) r[i] = rhs(a->row_begin + i);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.sweeps = sweeps;
    o.omega = omega;
    kryl_precond *pc = NULL;
    kryl_vector vr = NULL, vz = NULL;
    CHECK_OK(kryl_precond_create(&pc, KRYL_PRECOND_MCSSOR, &o, B, NULL));
    CHECK_OK(kryl_vector_create(&vr, B, B->precision));
    CHECK_OK(kryl_vector_create(&vz, B, B->precision));
    CHECK_OK(kryl_vector_set(vr, r, n));
    if (pc) CHECK_OK(pc->apply(pc, vr, vz));
    CHECK_OK(kryl_vector_get(vz, z, n));
    kryl_vector_destroy(&vr);
    kryl_vector_destroy(&vz);
    kryl_precond_destroy(&pc);
    kryl_csr G;
    gather_rows(dA, &G);
    int32_t *color = rank == 0 ? malloc((size_t)(N + 1) * sizeof *color) : NULL;
    double *zd = rank == 0 ? malloc((size_t)(N + 1) * sizeof *zd) : NULL;
    double *rg = rank == 0 ? malloc((size_t)(N + 1) * sizeof *rg) : NULL;
    double *zr = rank == 0 ? malloc((size_t)(N + 1) * sizeof *zr) : NULL;
    gather(col->color, (int)n, MPI_INT32_T, color);
    gather(z, (int)n, MPI_DOUBLE, zd);
    double diff = 0.0;
    if (rank == 0) {
        for (int64_t i = 0; i < N; i++) rg[i] = rhs(i);
        reference(&G, color, col->ncolors, sweeps, omega, rg, zr);
        diff = test_rel_diff(zd, zr, N);
    }
    kryl_csr_free(&G);
    free(color);
    free(zd);
    free(rg);
    free(zr);
    free(r);
    free(z);
    return diff;
}

/* The applies on dA: plain, several sweeps with omega, through a format
 * and ordering that permute rows, in single precision, in every overlap
 * mode (over several ranks; one rank has no distributed apply). */
static void check_applies(kryl_matrix dA, const char *label)
{
    kryl_dist_coloring col;
    check_coloring(dA, label, &col);
    if (dA->dist == NULL) {
        kryl_dist_coloring_free(&col);
        return;
    }
    kryl_context ctx = dA->ctx;
    kryl_matrix sell = NULL, single = NULL;
    CHECK_OK(kryl_matrix_convert(&sell, dA, KRYL_DOUBLE, KRYL_FORMAT_SELL, NULL, KRYL_ORDER_RCM));
    CHECK_OK(kryl_matrix_convert(&single, dA, KRYL_SINGLE, KRYL_FORMAT_CSR, NULL, KRYL_ORDER_NONE));
    struct {
        kryl_matrix B;
        int sweeps;
        double omega, tol;
        const char *what;
    } cases[] = {{dA, 1, 1.0, 1e-12, "csr"},
                 {dA, 3, 1.3, 1e-12, "csr, 3 sweeps, omega 1.3"},
                 {sell, 2, 0.8, 1e-12, "sell+rcm, 2 sweeps, omega 0.8"},
                 {single, 1, 1.0, 1e-5, "single"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        if (cases[k].B == NULL) continue;
        double diff = apply_difference(dA, cases[k].B, &col, cases[k].sweeps, cases[k].omega);
        CHECK(diff <= cases[k].tol, "%s, %s: the apply differs from the reference by %g (> %g)",
              label, cases[k].what, diff, cases[k].tol);
    }
    for (int mode = KRYL_OVERLAP_VECTOR; mode <= KRYL_OVERLAP_TASK; mode++) {
        CHECK_OK(kryl_context_set_overlap(ctx, (kryl_overlap)mode));
        double diff = apply_difference(dA, dA, &col, 2, 1.1);
        CHECK(diff <= 1e-12, "%s, overlap %s: the apply differs from the reference by %g", label,
              kryl_overlap_name((kryl_overlap)mode), diff);
    }
    CHECK_OK(kryl_context_set_overlap(ctx, KRYL_OVERLAP_NAIVE));
    kryl_matrix_destroy(&sell);
    kryl_matrix_destroy(&single);
    kryl_dist_coloring_free(&col);
}

/* A generated matrix on the distributed context (rows [rb, re) each, or
 * each rank's block when rb = re = -1) and whole on the serial one. */
static void generate(kryl_context dctx, kryl_context sctx, kryl_generator_kind kind, int64_t n,
                     int64_t rb, int64_t re, kryl_matrix *dA, kryl_matrix *sA)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, n);
    int64_t rows = 0, estimate;
    kryl_generator_size(&g, &rows, &estimate);
    CHECK_OK(kryl_matrix_generate(dA, dctx, &g, rb < 0 ? 0 : rb, re < 0 ? rows : re));
    if (sA) CHECK_OK(kryl_matrix_generate(sA, sctx, &g, 0, rows));
}

/* Uneven rows of n: with 3 ranks or more rank 0 has none and the others
 * ranges growing quadratically; 2 ranks split 1:4; one rank has all. */
static void uneven_range(int64_t n, int64_t *rb, int64_t *re)
{
    int64_t d = (int64_t)(size - 1) * (size - 1);
    if (size == 1) {
        *rb = 0;
        *re = n;
    } else if (size == 2) {
        *rb = rank == 0 ? 0 : n / 5;
        *re = rank == 0 ? n / 5 : n;
    } else {
        *rb = rank == 0 ? 0 : (int64_t)(rank - 1) * (rank - 1) * n / d;
        *re = rank == 0 ? 0 : (int64_t)rank * rank * n / d;
    }
}

/* Colorings and applies of the generated kinds, block and uneven rows. */
static void check_generated(kryl_context dctx, const char *backend)
{
    const struct {
        kryl_generator_kind kind;
        int64_t n;
    } kinds[] = {{KRYL_GEN_POISSON2D5, 17}, {KRYL_GEN_POISSON3D27, 7}, {KRYL_GEN_RANDOM_SPD, 300}};
    char label[160];
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int uneven = 0; uneven < 2; uneven++) {
            kryl_generator_options g;
            kryl_generator_options_init(&g, kinds[k].kind, kinds[k].n);
            int64_t rows = 0, estimate, rb = -1, re = -1;
            kryl_generator_size(&g, &rows, &estimate);
            if (uneven) uneven_range(rows, &rb, &re);
            kryl_matrix dA = NULL;
            generate(dctx, NULL, kinds[k].kind, kinds[k].n, rb, re, &dA, NULL);
            snprintf(label, sizeof label, "%s %s%s", backend, kryl_generator_name(kinds[k].kind),
                     uneven ? " uneven rows" : "");
            if (dA) check_applies(dA, label);
            kryl_matrix_destroy(&dA);
        }
}

/* A nonsymmetric pattern (a_ij stored, a_ji mostly not): the coloring
 * must see couplings that only one of their two ranks stores. */
static void check_nonsymmetric_pattern(kryl_context dctx, const char *backend)
{
    const int64_t n = 400;
    int64_t rb = n * rank / size, re = n * (rank + 1) / size;
    kryl_assembly a = NULL;
    CHECK_OK(kryl_assembly_create(&a, dctx, n, n, rb, re));
    uint64_t state = 12345 + (uint64_t)rank;
    for (int64_t i = rb; i < re; i++) {
        CHECK_OK(kryl_assembly_add_value(a, i, i, 8.0));
        for (int k = 0; k < 3; k++) {
            /* a_ij = -1 for three pseudo-random j (a 64-bit LCG) */
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            int64_t j = (int64_t)((state >> 33) % (uint64_t)n);
            if (j != i) CHECK_OK(kryl_assembly_add_value(a, i, j, -1.0));
        }
    }
    kryl_matrix dA = NULL;
    CHECK_OK(kryl_assembly_finish(a, &dA));
    kryl_assembly_destroy(&a);
    char label[160];
    snprintf(label, sizeof label, "%s random nonsymmetric pattern", backend);
    if (dA) check_applies(dA, label);
    kryl_matrix_destroy(&dA);
}

/* Real matrices read on rank 0 with each partitioner (skipped when absent). */
static void check_real(kryl_context dctx, const char *backend)
{
    const char *files[] = {"bcsstk15.mtx", "sherman5.mtx"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        const char *path = test_matrix_path(files[f]);
        if (path == NULL || access(path, R_OK) != 0) {
            if (rank == 0) printf("%s: absent, skipped\n", files[f]);
            continue;
        }
        const kryl_partition_kind parts[] = {KRYL_PARTITION_CONTIGUOUS, KRYL_PARTITION_METIS};
        for (int k = 0; k < 2; k++) {
            CHECK_OK(kryl_context_set_partition(dctx, parts[k]));
            kryl_matrix dA = NULL;
            kryl_status st = kryl_matrix_read_mtx(&dA, dctx, path);
            if (st == KRYL_ERR_UNSUPPORTED) continue; /* a build without METIS */
            CHECK(st == KRYL_SUCCESS, "read %s: %s", path, kryl_last_error());
            char label[256];
            snprintf(label, sizeof label, "%s %s partition %s", backend, files[f],
                     kryl_partition_name(parts[k]));
            if (dA) check_applies(dA, label);
            kryl_matrix_destroy(&dA);
        }
        CHECK_OK(kryl_context_set_partition(dctx, KRYL_PARTITION_CONTIGUOUS));
    }
}

/* PCG and GMRES with mcssor against the single-process solve (one rank:
 * the same preconditioner, so the same solution); PCG needs fewer
 * iterations with mcssor than with Jacobi on 3-D Poisson. */
static void check_solves(kryl_context dctx, kryl_context sctx, const char *backend)
{
    kryl_matrix dA = NULL, sA = NULL, dN = NULL, sN = NULL;
    generate(dctx, sctx, KRYL_GEN_POISSON3D7, 12, -1, -1, &dA, &sA);
    generate(dctx, sctx, KRYL_GEN_CONVDIFF2D, 24, -1, -1, &dN, &sN);
    double same = size == 1 ? 1e-13 : 1e-6;
    char label[160];
    int64_t its[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        kryl_solver_options o;
        kryl_solver_options_init(&o);
        o.method = KRYL_METHOD_PCG;
        o.precond = k == 0 ? KRYL_PRECOND_JACOBI : KRYL_PRECOND_MCSSOR;
        o.rtol = 1e-10;
        snprintf(label, sizeof label, "%s pcg+%s poisson3d", backend, kryl_precond_name(o.precond));
        its[k] = test_dist_compare(dA, sA, &o, same, label);
    }
    CHECK(its[1] > 0 && its[1] < its[0], "%s: pcg+mcssor took %lld iterations, pcg+jacobi %lld",
          backend, (long long)its[1], (long long)its[0]);
    if (rank == 0)
        printf("%s poisson3d 12^3 on %d ranks: pcg+jacobi %lld, pcg+mcssor %lld iterations\n",
               backend, size, (long long)its[0], (long long)its[1]);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_PCG;
    o.precond = KRYL_PRECOND_MCSSOR;
    o.sweeps = 2;
    o.omega = 1.2;
    o.rtol = 1e-10;
    snprintf(label, sizeof label, "%s pcg+mcssor(2 sweeps, omega 1.2)", backend);
    test_dist_compare(dA, sA, &o, same, label);
    o.method = KRYL_METHOD_GMRES;
    o.sweeps = 1;
    o.omega = 1.0;
    o.restart = 30;
    snprintf(label, sizeof label, "%s gmres+mcssor convdiff2d", backend);
    test_dist_compare(dN, sN, &o, same, label);
    kryl_matrix_destroy(&dA);
    kryl_matrix_destroy(&sA);
    kryl_matrix_destroy(&dN);
    kryl_matrix_destroy(&sN);
}

/* Solves with both partitioners (built whole on rank 0 and distributed),
 * uneven rows (a rank without rows) and every overlap mode. */
static void check_partitions_modes(kryl_context dctx, kryl_context sctx, const char *backend)
{
    kryl_matrix sA = NULL;
    generate(sctx, sctx, KRYL_GEN_POISSON2D5, 20, -1, -1, &sA, NULL);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_PCG;
    o.precond = KRYL_PRECOND_MCSSOR;
    o.rtol = 1e-10;
    char label[160];
    const kryl_partition_kind parts[] = {KRYL_PARTITION_CONTIGUOUS, KRYL_PARTITION_METIS};
    for (int k = 0; k < 2; k++) {
        kryl_matrix dA = test_dist_distribute(dctx, rank == 0 ? sA : NULL, parts[k]);
        if (dA == NULL) continue;
        snprintf(label, sizeof label, "%s poisson2d partition %s", backend,
                 kryl_partition_name(parts[k]));
        if (dA) check_applies(dA, label);
        if (dA) test_dist_compare(dA, sA, &o, 1e-6, label);
        kryl_matrix_destroy(&dA);
    }
    CHECK_OK(kryl_context_set_partition(dctx, KRYL_PARTITION_CONTIGUOUS));
    int64_t rb, re;
    uneven_range(400, &rb, &re);
    kryl_matrix dA = NULL;
    generate(dctx, sctx, KRYL_GEN_POISSON2D5, 20, rb, re, &dA, NULL);
    snprintf(label, sizeof label, "%s poisson2d uneven rows", backend);
    if (dA) test_dist_compare_modes(dctx, dA, sA, &o, 1e-6, label);
    kryl_matrix_destroy(&dA);
    kryl_matrix_destroy(&sA);
}

/* A zero diagonal entry in the last row: refused on every rank, naming it. */
static void check_zero_diagonal(kryl_context dctx)
{
    const int64_t n = 40, begin = n * rank / size, end = n * (rank + 1) / size;
    kryl_assembly a = NULL;
    CHECK_OK(kryl_assembly_create(&a, dctx, n, n, begin, end));
    for (int64_t i = begin; i < end; i++) {
        /* tridiag(-1, 4, -1) with a_(n-1)(n-1) = 0 */
        CHECK_OK(kryl_assembly_add_value(a, i, i, i == n - 1 ? 0.0 : 4.0));
        if (i > 0) CHECK_OK(kryl_assembly_add_value(a, i, i - 1, -1.0));
        if (i + 1 < n) CHECK_OK(kryl_assembly_add_value(a, i, i + 1, -1.0));
    }
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_finish(a, &A));
    kryl_assembly_destroy(&a);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_GMRES;
    o.precond = KRYL_PRECOND_MCSSOR;
    kryl_solver s = NULL;
    if (A) {
        CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_ZERO_DIAGONAL);
        CHECK(strstr(kryl_last_error(), "row 39 ") != NULL,
              "rank %d: the refusal does not name row 39: %s", rank, kryl_last_error());
    }
    kryl_matrix_destroy(&A);
}

static void check_backend(kryl_context dctx, kryl_context sctx, const char *name)
{
    check_generated(dctx, name);
    check_nonsymmetric_pattern(dctx, name);
    check_real(dctx, name);
    check_solves(dctx, sctx, name);
    check_partitions_modes(dctx, sctx, name);
    check_zero_diagonal(dctx);
}

int main(int argc, char **argv)
{
    return test_dist_run(&argc, &argv, "test_dist_mcssor", 4, &rank, &size, check_backend);
}
