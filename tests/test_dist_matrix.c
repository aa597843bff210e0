/* Distributed matrices (run under mpirun with 1 to 4 ranks): uneven row
 * ranges (a rank without rows, ranks without a halo), reading on rank 0
 * with both partitioners, assembly with entries of other ranks' rows,
 * the distributed symmetry check and the refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/objects.h"
#include "dist_support.h"

static int rank, size;

/* Rows [rb, re) of the serial sA as a matrix of the distributed context. */
static kryl_matrix rows_of(kryl_context dctx, kryl_matrix sA, int64_t rb, int64_t re)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    int64_t n = 0, nc = 0;
    kryl_matrix_size(sA, &n, &nc, NULL);
    kryl_matrix_csr_view(sA, &rp, &ci, &v);
    int64_t nnz = rp[re] - rp[rb];
    int64_t *ptr = malloc((size_t)(re - rb + 1) * sizeof *ptr);
    int64_t *cols = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *cols);
    for (int64_t i = rb; i <= re; i++) ptr[i - rb] = rp[i] - rp[rb];
    for (int64_t k = 0; k < nnz; k++) cols[k] = ci[rp[rb] + k];
    kryl_matrix dA = NULL;
    CHECK_OK(kryl_matrix_create_csr(&dA, dctx, n, nc, rb, re, ptr, cols, v + rp[rb]));
    free(ptr);
    free(cols);
    return dA;
}

/* Rank 0 owns no rows; the others split the rest unevenly. */
static void uneven_range(int64_t n, int64_t *rb, int64_t *re)
{
    if (size == 1) {
        *rb = 0;
        *re = n;
        return;
    }
    /* rank r >= 1: rows [(r-1)^2 n / (size-1)^2, r^2 n / (size-1)^2) */
    int64_t d = (int64_t)(size - 1) * (size - 1);
    *rb = rank == 0 ? 0 : (int64_t)(rank - 1) * (rank - 1) * n / d;
    *re = rank == 0 ? 0 : (int64_t)rank * rank * n / d;
}

static void check_uneven(kryl_context dctx, kryl_context sctx)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_POISSON2D5, 15);
    kryl_matrix sA = NULL;
    CHECK_OK(kryl_matrix_generate(&sA, sctx, &g, 0, 225));
    int64_t rb, re;
    uneven_range(225, &rb, &re);
    kryl_matrix dA = rows_of(dctx, sA, rb, re);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_PIPECG;
    o.precond = KRYL_PRECOND_JACOBI;
    o.rtol = 1e-10;
    if (dA) test_dist_compare(dA, sA, &o, 1e-7, "uneven rows (rank 0 empty), pipecg");
    o.method = KRYL_METHOD_GMRES;
    o.precond = KRYL_PRECOND_BJACOBI;
    o.format = KRYL_FORMAT_SELL;
    if (dA) test_dist_compare(dA, sA, &o, 1e-7, "uneven rows, gmres+bjacobi sell");
    kryl_matrix_destroy(&dA);
    kryl_matrix_destroy(&sA);
}

/* A block-diagonal matrix whose blocks are the ranks' rows: no halo. */
static void check_block_diagonal(kryl_context dctx, kryl_context sctx)
{
    const int64_t n = 50 * size + 7;
    kryl_assembly a = NULL;
    CHECK_OK(kryl_assembly_create(&a, sctx, n, n, 0, n));
    int64_t begin[5];
    for (int p = 0; p <= size; p++) begin[p] = p * n / size;
    for (int p = 0; p < size; p++)
        for (int64_t i = begin[p]; i < begin[p + 1]; i++) {
            /* a tridiagonal block: 4 on the diagonal, -1 beside it within the block */
            kryl_assembly_add_value(a, i, i, 4.0);
            if (i > begin[p]) kryl_assembly_add_value(a, i, i - 1, -1.0);
            if (i + 1 < begin[p + 1]) kryl_assembly_add_value(a, i, i + 1, -1.0);
        }
    kryl_matrix sA = NULL;
    CHECK_OK(kryl_assembly_finish(a, &sA));
    kryl_assembly_destroy(&a);
    kryl_matrix dA = rows_of(dctx, sA, begin[rank], begin[rank + 1]);
    kryl_dist_info info;
    CHECK_OK(kryl_matrix_dist_info(dA, &info));
    CHECK(info.ghosts == 0 && info.neighbours == 0 && info.bytes_sent == 0,
          "block diagonal: rank %d has %lld ghosts, %d neighbours", rank, (long long)info.ghosts,
          info.neighbours);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_PCG;
    o.rtol = 1e-10;
    test_dist_compare(dA, sA, &o, 1e-8, "block diagonal, pcg");
    kryl_matrix_destroy(&dA);
    kryl_matrix_destroy(&sA);
}

/* Read `path` on rank 0 with each partitioner and solve with PCG. */
static void check_read(kryl_context dctx, kryl_context sctx, const char *path, double tol)
{
    kryl_matrix sA = NULL;
    CHECK_OK(kryl_matrix_read_mtx(&sA, sctx, path));
    const kryl_partition_kind parts[] = {KRYL_PARTITION_CONTIGUOUS, KRYL_PARTITION_METIS};
    for (int k = 0; k < 2 && sA; k++) {
        CHECK_OK(kryl_context_set_partition(dctx, parts[k]));
        kryl_matrix dA = NULL;
        kryl_status st = kryl_matrix_read_mtx(&dA, dctx, path);
        if (st == KRYL_ERR_UNSUPPORTED) continue; /* a build without METIS */
        CHECK(st == KRYL_SUCCESS, "read %s (%s): %s", path, kryl_partition_name(parts[k]),
              kryl_last_error());
        if (dA == NULL) continue;
        int64_t ns, nd, zs, zd;
        kryl_matrix_size(sA, &ns, NULL, &zs);
        kryl_matrix_size(dA, &nd, NULL, &zd);
        CHECK(ns == nd && zs == zd, "read %s: %lld rows %lld entries, serial %lld %lld", path,
              (long long)nd, (long long)zd, (long long)ns, (long long)zs);
        char label[256];
        kryl_solver_options o;
        kryl_solver_options_init(&o);
        o.method = KRYL_METHOD_PCG;
        o.rtol = 1e-11;
        snprintf(label, sizeof label, "read %s, partition %s, pcg", path,
                 kryl_partition_name(parts[k]));
        test_dist_compare(dA, sA, &o, tol, label);
        kryl_matrix_destroy(&dA);
    }
    CHECK_OK(kryl_context_set_partition(dctx, KRYL_PARTITION_CONTIGUOUS));
    kryl_matrix_destroy(&sA);
}

/* A generated matrix written by rank 0 to a temporary file. */
static void check_read_generated(kryl_context dctx, kryl_context sctx)
{
    char path[64] = "";
    if (rank == 0) {
        snprintf(path, sizeof path, "/tmp/kryl-dist-XXXXXX");
        int fd = mkstemp(path);
        if (fd >= 0) close(fd);
        kryl_generator_options g;
        kryl_generator_options_init(&g, KRYL_GEN_POISSON3D7, 6);
        kryl_matrix A = NULL;
        CHECK_OK(kryl_matrix_generate(&A, sctx, &g, 0, 216));
        CHECK_OK(kryl_matrix_write_mtx(A, path));
        kryl_matrix_destroy(&A);
    }
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    check_read(dctx, sctx, path, 1e-8);
    kryl_matrix dA = NULL;
    kryl_status st = kryl_matrix_read_mtx(&dA, dctx, "/nonexistent/kryl.mtx");
    CHECK(st == KRYL_ERR_IO, "reading a missing file gave %s on rank %d", kryl_strerror(st), rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) remove(path);
}

/* y = B x gathered on rank 0 (x_i = 1 + i mod 5, the file's order). */
static void global_product(kryl_matrix B, int64_t n, double *y)
{
    double *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++) x[i] = 1.0 + (double)(i % 5);
    kryl_vector vx = NULL, vy = NULL;
    CHECK_OK(kryl_vector_create(&vx, B, B->precision));
    CHECK_OK(kryl_vector_create(&vy, B, B->precision));
    CHECK_OK(kryl_vector_set_global(vx, B, x));
    CHECK_OK(kryl_matrix_spmv(B, 1.0, vx, 0.0, vy));
    CHECK_OK(kryl_vector_get_global(vy, B, y));
    kryl_vector_destroy(&vx);
    kryl_vector_destroy(&vy);
    free(x);
}

/* Conversions of conversions (formats and orderings that permute rows)
 * keep the product. */
static void check_convert_chain(kryl_context dctx)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_CONVDIFF2D, 17);
    kryl_matrix A = NULL, B = NULL, C = NULL;
    CHECK_OK(kryl_matrix_generate(&A, dctx, &g, 0, 289));
    CHECK_OK(kryl_matrix_convert(&B, A, KRYL_DOUBLE, KRYL_FORMAT_SELL, NULL, KRYL_ORDER_RCM));
    CHECK_OK(kryl_matrix_convert(&C, B, KRYL_DOUBLE, KRYL_FORMAT_JDS, NULL, KRYL_ORDER_NONE));
    double *ya = calloc(289, sizeof *ya), *yb = calloc(289, sizeof *yb),
           *yc = calloc(289, sizeof *yc);
    if (A && B && C) {
        global_product(A, 289, ya);
        global_product(B, 289, yb);
        global_product(C, 289, yc);
        if (rank == 0) {
            CHECK(test_rel_diff(yb, ya, 289) < 1e-14, "sell+rcm product differs by %g",
                  test_rel_diff(yb, ya, 289));
            CHECK(test_rel_diff(yc, ya, 289) < 1e-14, "jds of sell product differs by %g",
                  test_rel_diff(yc, ya, 289));
        }
    }
    free(ya);
    free(yb);
    free(yc);
    kryl_matrix_destroy(&C);
    kryl_matrix_destroy(&B);
    kryl_matrix_destroy(&A);
}

/* A matrix built whole on rank 0, distributed with each partitioner. */
static void check_distribute(kryl_context dctx, kryl_context sctx)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_ANISOTROPIC2D, 13);
    kryl_matrix sA = NULL;
    CHECK_OK(kryl_matrix_generate(&sA, sctx, &g, 0, 169));
    const kryl_partition_kind parts[] = {KRYL_PARTITION_CONTIGUOUS, KRYL_PARTITION_METIS};
    for (int k = 0; k < 2; k++) {
        kryl_matrix dA = test_dist_distribute(dctx, rank == 0 ? sA : NULL, parts[k]);
        if (dA == NULL) continue;
        char label[128];
        snprintf(label, sizeof label, "distributed from rank 0, partition %s, pipecg",
                 kryl_partition_name(parts[k]));
        kryl_solver_options o;
        kryl_solver_options_init(&o);
        o.method = KRYL_METHOD_PIPECG;
        o.precond = KRYL_PRECOND_JACOBI;
        o.rtol = 1e-11;
        if (dA) test_dist_compare(dA, sA, &o, 1e-7, label);
        kryl_matrix_destroy(&dA);
    }
    CHECK_OK(kryl_context_set_partition(dctx, KRYL_PARTITION_CONTIGUOUS));
    kryl_matrix_destroy(&sA);
}

/* Every rank adds the 1-D Laplacian rows of the next rank's range. */
static void check_assembly(kryl_context dctx, kryl_context sctx)
{
    const int64_t n = 40;
    int64_t rb = rank * n / size, re = (rank + 1) * n / size;
    int other = (rank + 1) % size;
    int64_t ob = other * n / size, oe = (other + 1) * n / size;
    kryl_assembly a = NULL;
    CHECK_OK(kryl_assembly_create(&a, dctx, n, n, rb, re));
    for (int64_t i = ob; i < oe; i++) {
        /* row i of tridiag(-1, 2, -1), the diagonal in two halves (summed) */
        CHECK_OK(kryl_assembly_add_value(a, i, i, 1.0));
        CHECK_OK(kryl_assembly_add_value(a, i, i, 1.0));
        if (i > 0) CHECK_OK(kryl_assembly_add_value(a, i, i - 1, -1.0));
        if (i + 1 < n) CHECK_OK(kryl_assembly_add_value(a, i, i + 1, -1.0));
    }
    kryl_matrix dA = NULL, sA = NULL;
    CHECK_OK(kryl_assembly_finish(a, &dA));
    kryl_assembly_destroy(&a);
    CHECK_OK(kryl_assembly_create(&a, sctx, n, n, 0, n));
    for (int64_t i = 0; i < n; i++) {
        kryl_assembly_add_value(a, i, i, 2.0);
        if (i > 0) kryl_assembly_add_value(a, i, i - 1, -1.0);
        if (i + 1 < n) kryl_assembly_add_value(a, i, i + 1, -1.0);
    }
    CHECK_OK(kryl_assembly_finish(a, &sA));
    kryl_assembly_destroy(&a);
    int64_t zd = 0;
    if (dA) kryl_matrix_size(dA, NULL, NULL, &zd);
    CHECK(zd == 3 * n - 2, "assembled %lld entries, expected %lld", (long long)zd,
          (long long)(3 * n - 2));
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.rtol = 1e-11;
    if (dA) test_dist_compare(dA, sA, &o, 1e-8, "assembly with entries of other ranks, cg");
    kryl_matrix_destroy(&dA);
    kryl_matrix_destroy(&sA);
}

/* tridiag(-1, 4, -1) of n rows with one entry changed (a_ij += delta, or
 * an entry without partner where (i, j) is not on the three diagonals),
 * assembled whole on sctx (rows [rb, re) on dctx). */
static kryl_matrix perturbed(kryl_context ctx, int64_t n, int64_t rb, int64_t re, int64_t pi,
                             int64_t pj, double delta)
{
    kryl_assembly a = NULL;
    CHECK_OK(kryl_assembly_create(&a, ctx, n, n, rb, re));
    for (int64_t i = rb; i < re; i++) {
        CHECK_OK(kryl_assembly_add_value(a, i, i, 4.0));
        if (i > 0) CHECK_OK(kryl_assembly_add_value(a, i, i - 1, -1.0));
        if (i + 1 < n) CHECK_OK(kryl_assembly_add_value(a, i, i + 1, -1.0));
        if (i == pi) CHECK_OK(kryl_assembly_add_value(a, pi, pj, delta));
    }
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_finish(a, &A));
    kryl_assembly_destroy(&a);
    return A;
}

/* The distributed symmetry check against one process's, the asymmetry
 * inside a rank's rows, across ranks, and an entry without a partner on
 * another rank (only couplings across ranks travel: dist_symmetry.c). */
static void check_asymmetry(kryl_context dctx, kryl_context sctx)
{
    const int64_t n = 24, first_of_1 = size > 1 ? n / size : n / 2; /* rank 1's first row */
    const int64_t cases[][2] = {{1, 0}, {first_of_1, first_of_1 - 1}, {0, n - 1}, {n - 1, 0}};
    const double deltas[] = {-0.25, -0.5, 0.75, 0.0};
    for (int c = 0; c < 4; c++) {
        int64_t rb = rank * n / size, re = (rank + 1) * n / size;
        kryl_matrix dA = perturbed(dctx, n, rb, re, cases[c][0], cases[c][1], deltas[c]);
        kryl_matrix sA = perturbed(sctx, n, 0, n, cases[c][0], cases[c][1], deltas[c]);
        double da = -1.0, sa = -2.0;
        CHECK_OK(kryl_matrix_asymmetry(dA, &da));
        CHECK_OK(kryl_matrix_asymmetry(sA, &sa));
        CHECK(da == sa, "case %d: distributed asymmetry %g, one process %g", c, da, sa);
        CHECK((c == 3) == (da == 0.0), "case %d: asymmetry %g", c, da);
        kryl_matrix_destroy(&dA);
        kryl_matrix_destroy(&sA);
    }
}

/* A diagonal matrix whose last entry is beyond single precision: a mixed
 * scheme's range check fails on the rank that owns it, and the creation
 * fails on every rank instead of leaving the others waiting. */
static void check_refusal_on_one_rank(kryl_context dctx)
{
    const int64_t n = 40, begin = n * rank / size, end = n * (rank + 1) / size;
    int64_t ptr[41], cols[40];
    double values[40];
    /* a_ii = 2, a_(n-1)(n-1) = 1e39, over this rank's rows */
    for (int64_t i = begin; i < end; i++) {
        ptr[i - begin] = i - begin;
        cols[i - begin] = i;
        values[i - begin] = i == n - 1 ? 1e39 : 2.0;
    }
    ptr[end - begin] = end - begin;
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_create_csr(&A, dctx, n, n, begin, end, ptr, cols, values));
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.precision = KRYL_MIXED;
    o.mixed = KRYL_MIXED_IR;
    kryl_solver s = NULL;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_INVALID_VALUE);
    CHECK(s == NULL, "a failed create left a solver");
    kryl_matrix_destroy(&A);
}

/* Nonsymmetric A refused by CG on every rank; IC(0) and mcilu0 refused over ranks. */
static void check_refusals(kryl_context dctx)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_CONVDIFF2D, 10);
    kryl_matrix dN = NULL, dA = NULL;
    CHECK_OK(kryl_matrix_generate(&dN, dctx, &g, 0, 100));
    kryl_solver s = NULL;
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    CHECK_STATUS(kryl_solver_create(&s, dN, &o), KRYL_ERR_NOT_SYMMETRIC);
    bool sym = true;
    CHECK_OK(kryl_matrix_is_symmetric(dN, 1e-12, &sym));
    CHECK(!sym, "convdiff2d reported symmetric");
    kryl_generator_options_init(&g, KRYL_GEN_POISSON2D5, 10);
    CHECK_OK(kryl_matrix_generate(&dA, dctx, &g, 0, 100));
    CHECK_OK(kryl_matrix_is_symmetric(dA, 0.0, &sym));
    CHECK(sym, "poisson2d reported nonsymmetric");
    if (size > 1) {
        o.precond = KRYL_PRECOND_IC0;
        CHECK_STATUS(kryl_solver_create(&s, dA, &o), KRYL_ERR_UNSUPPORTED);
        o.precond = KRYL_PRECOND_MCILU0;
        CHECK_STATUS(kryl_solver_create(&s, dA, &o), KRYL_ERR_UNSUPPORTED);
        CHECK_STATUS(kryl_matrix_write_mtx(dA, "/tmp/kryl-never-written.mtx"),
                     KRYL_ERR_UNSUPPORTED);
    }
    int r = -1, p = 0;
    CHECK_OK(kryl_context_rank(dctx, &r, &p));
    CHECK(r == rank && p == size, "kryl_context_rank gave %d of %d", r, p);
    kryl_matrix_destroy(&dN);
    kryl_matrix_destroy(&dA);
}

static void check_backend(kryl_context dctx, kryl_context sctx, const char *backend)
{
    (void)backend;
    check_uneven(dctx, sctx);
    check_block_diagonal(dctx, sctx);
    check_read_generated(dctx, sctx);
    const char *nos4 = test_matrix_path("nos4.mtx");
    if (nos4 != NULL && access(nos4, R_OK) == 0) check_read(dctx, sctx, nos4, 1e-6);
    check_assembly(dctx, sctx);
    check_asymmetry(dctx, sctx);
    check_distribute(dctx, sctx);
    check_convert_chain(dctx);
    check_refusals(dctx);
    check_refusal_on_one_rank(dctx);
}

int main(int argc, char **argv)
{
    return test_dist_run(&argc, &argv, "test_dist_matrix", 4, &rank, &size, check_backend);
}
