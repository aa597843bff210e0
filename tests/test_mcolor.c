/* Multicolor SSOR(k) and multicolor ILU(0): the backend apply matches a
 * dense reference built here from the coloring (M of the SSOR formula, or
 * the ILU(0) of the color-permuted matrix, couplings inside one color left
 * out) on awkward small matrices, in csr and in sell with an rcm ordering,
 * on every backend; solves converge by the true residual in fewer
 * iterations than without a preconditioner; two sweeps beat one; a zero
 * diagonal is refused naming its row. */
#include "precond/mcolor.h"
#include "test_krylov_support.h"

/* ---- dense reference ---- */

/* x = M^{-1} b for a dense n x n M (row-major, overwritten) by Gaussian
 * elimination with partial pivoting. */
static void dense_solve(int64_t n, double *M, const double *b, double *x)
{
    for (int64_t i = 0; i < n; i++) x[i] = b[i];
    for (int64_t k = 0; k < n; k++) {
        int64_t p = k;
        for (int64_t i = k + 1; i < n; i++)
            if (fabs(M[i * n + k]) > fabs(M[p * n + k])) p = i;
        for (int64_t j = 0; j < n; j++) {
            double t = M[k * n + j];
            M[k * n + j] = M[p * n + j];
            M[p * n + j] = t;
        }
        double t = x[k];
        x[k] = x[p];
        x[p] = t;
        for (int64_t i = k + 1; i < n; i++) {
            double f = M[i * n + k] / M[k * n + k];
            for (int64_t j = k; j < n; j++) M[i * n + j] -= f * M[k * n + j];
            x[i] -= f * x[k];
        }
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        double s = x[i];
        for (int64_t j = i + 1; j < n; j++) s -= M[i * n + j] * x[j];
        x[i] = s / M[i * n + i];
    }
}

/* M of the preconditioner, dense in A's numbering: SSOR(omega) of A
 * without same-color couplings, L/U by color, or the ILU(0) of the
 * color-permuted matrix (same filtering) multiplied out and permuted back. */
static double *dense_m(int64_t n, const double *A, const kryl_coloring *c, kryl_precond_kind kind,
                       double w)
{
    double *B = calloc((size_t)(n * n), sizeof *B), *M = calloc((size_t)(n * n), sizeof *M);
    /* B = P A P^T with the couplings inside one color dropped */
    for (int64_t p = 0; p < n; p++)
        for (int64_t q = 0; q < n; q++) {
            int32_t i = c->perm[p], j = c->perm[q];
            if (i == j || c->color[i] != c->color[j]) B[p * n + q] = A[i * n + j];
        }
    if (kind == KRYL_PRECOND_MCSSOR) {
        /* M = (D + w L) D^{-1} (D + w U) / (w (2 - w)) */
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = 0; q < n; q++) {
                double s = 0.0;
                for (int64_t k = 0; k <= (p < q ? p : q); k++) {
                    double l = k == p ? B[p * n + p] : w * B[p * n + k];
                    double u = k == q ? B[q * n + q] : w * B[k * n + q];
                    s += l * u / B[k * n + k];
                }
                M[p * n + q] = s / (w * (2.0 - w));
            }
    } else {
        /* ILU(0) in place on the pattern of B (IKJ), then M = L U */
        for (int64_t i = 1; i < n; i++)
            for (int64_t k = 0; k < i; k++) {
                if (B[i * n + k] == 0.0) continue;
                B[i * n + k] /= B[k * n + k];
                for (int64_t j = k + 1; j < n; j++)
                    if (B[i * n + j] != 0.0) B[i * n + j] -= B[i * n + k] * B[k * n + j];
            }
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = 0; q < n; q++) {
                double s = 0.0;
                for (int64_t k = 0; k <= (p < q ? p : q); k++)
                    s += (k == p ? 1.0 : B[p * n + k]) * B[k * n + q];
                M[p * n + q] = s;
            }
    }
    /* back to A's numbering: M_A[perm p][perm q] = M[p][q] */
    for (int64_t p = 0; p < n * n; p++) B[p] = M[p];
    for (int64_t p = 0; p < n; p++)
        for (int64_t q = 0; q < n; q++) M[c->perm[p] * n + c->perm[q]] = B[p * n + q];
    free(B);
    return M;
}

/* z = M_k^{-1} r: k sweeps z += M^{-1} (r - A z) from z = 0. */
static void dense_apply(int64_t n, const double *A, const double *M, int sweeps, const double *r,
                        double *z)
{
    double *res = malloc((size_t)n * sizeof *res), *dz = malloc((size_t)n * sizeof *dz);
    double *Mc = malloc((size_t)(n * n) * sizeof *Mc);
    for (int64_t i = 0; i < n; i++) z[i] = 0.0;
    for (int k = 0; k < sweeps; k++) {
        /* res = r - A z;  z += M^{-1} res */
        for (int64_t i = 0; i < n; i++) {
            res[i] = r[i];
            for (int64_t j = 0; j < n; j++) res[i] -= A[i * n + j] * z[j];
        }
        memcpy(Mc, M, (size_t)(n * n) * sizeof *Mc);
        dense_solve(n, Mc, res, dz);
        for (int64_t i = 0; i < n; i++) z[i] += dz[i];
    }
    free(res);
    free(dz);
    free(Mc);
}

/* ---- apply against the reference ---- */

/* A test matrix: test_random_csr's shape made diagonally dominant (a_ii =
 * 1 + sum |a_ij|), symmetrised (A + A^T)/2 first when sym. */
static double *dense_matrix(test_shape shape, int64_t n, bool sym, uint64_t seed)
{
    kryl_csr C;
    test_random_csr(&C, shape, n, n, seed);
    double *A = calloc((size_t)(n * n), sizeof *A);
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = C.row_ptr[i]; e < C.row_ptr[i + 1]; e++) {
            int64_t j = C.col_idx[e];
            if (sym) {
                A[i * n + j] += 0.5 * C.values[e];
                A[j * n + i] += 0.5 * C.values[e];
            } else {
                A[i * n + j] += C.values[e];
            }
        }
    kryl_csr_free(&C);
    for (int64_t i = 0; i < n; i++) {
        /* a_ii = 1 + sum_{j != i} |a_ij| */
        double s = 1.0;
        for (int64_t j = 0; j < n; j++) s += j == i ? 0.0 : fabs(A[i * n + j]);
        A[i * n + i] = s;
    }
    return A;
}

typedef struct apply_case {
    test_shape shape;
    int64_t n;
    bool sym;
    kryl_method method; /* mcilu0: cg gives IC(0), the same M for these SPD matrices */
    kryl_precond_kind kind;
    int sweeps;
    double omega;
} apply_case;

static const apply_case apply_cases[] = {
    {TEST_SHAPE_SINGLE, 1, true, KRYL_METHOD_CG, KRYL_PRECOND_MCSSOR, 1, 1.0},
    {TEST_SHAPE_SINGLE, 1, false, KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0, 1, 1.0},
    {TEST_SHAPE_RANDOM, 33, true, KRYL_METHOD_CG, KRYL_PRECOND_MCSSOR, 1, 1.0},
    {TEST_SHAPE_RANDOM, 33, false, KRYL_METHOD_GMRES, KRYL_PRECOND_MCSSOR, 3, 1.3},
    {TEST_SHAPE_RANDOM, 33, false, KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0, 1, 1.0},
    {TEST_SHAPE_RANDOM, 33, true, KRYL_METHOD_CG, KRYL_PRECOND_MCILU0, 1, 1.0},
    {TEST_SHAPE_EMPTY_ROWS, 33, false, KRYL_METHOD_GMRES, KRYL_PRECOND_MCSSOR, 2, 0.7},
    {TEST_SHAPE_EMPTY_ROWS, 33, false, KRYL_METHOD_BICGSTAB, KRYL_PRECOND_MCILU0, 1, 1.0},
    {TEST_SHAPE_DENSE_ROW, 40, true, KRYL_METHOD_PCG, KRYL_PRECOND_MCSSOR, 2, 1.0},
    {TEST_SHAPE_DENSE_ROW, 40, false, KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0, 1, 1.0},
    {TEST_SHAPE_DIAGONAL, 17, false, KRYL_METHOD_GMRES, KRYL_PRECOND_MCSSOR, 2, 1.5},
    /* rows of 30..200 entries: many colors, sparsified */
    {TEST_SHAPE_LONG_ROWS, 120, false, KRYL_METHOD_GMRES, KRYL_PRECOND_MCSSOR, 2, 1.0},
    {TEST_SHAPE_LONG_ROWS, 120, true, KRYL_METHOD_CG, KRYL_PRECOND_MCILU0, 1, 1.0},
};

/* The coloring the preconditioner takes for A (the same code, mcolor.c). */
static void reference_coloring(kryl_matrix A, kryl_precond_kind kind, kryl_mcolor *mc)
{
    kryl_precond p = {.kind = kind, .ctx = A->ctx};
    CHECK_OK(kryl_mcolor_create(&p, A, NULL, KRYL_MCOLOR_FEW_COLORS, mc));
}

/* pc->apply on ctx in `format` (ordered by `order`) against dense_apply. */
static void check_apply_case(kryl_context ctx, const apply_case *c, kryl_format format,
                             kryl_order_kind order, const char *name)
{
    int64_t n = c->n;
    double *Ad = dense_matrix(c->shape, n, c->sym, 7 + (uint64_t)n);
    kryl_matrix A = kt_dense(ctx, n, Ad), B = NULL;
    CHECK_OK(kryl_matrix_convert(&B, A, KRYL_DOUBLE, format, NULL, order));
    kryl_mcolor mc;
    reference_coloring(A, c->kind, &mc);
    CHECK(mc.c.ncolors <= mc.ncolors_full, "sparsification gave %d colors, more than %d",
          (int)mc.c.ncolors, (int)mc.ncolors_full);
    double *M = dense_m(n, Ad, &mc.c, c->kind, c->omega);
    double *r = kt_rhs(A, 19), *z = malloc((size_t)n * sizeof *z);
    double *zref = malloc((size_t)n * sizeof *zref);
    dense_apply(n, Ad, M, c->kind == KRYL_PRECOND_MCSSOR ? c->sweeps : 1, r, zref);
    kryl_solver_options o;
    kt_options(&o, c->method, c->kind, 1e-8, 100);
    o.sweeps = c->sweeps;
    o.omega = c->omega;
    kryl_precond *pc = NULL;
    kryl_vector rv = NULL, zv = NULL;
    CHECK_OK(kryl_precond_create(&pc, c->kind, &o, B, NULL));
    CHECK_OK(kryl_vector_create(&rv, B, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&zv, B, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(rv, r, n));
    if (pc) CHECK_OK(pc->apply(pc, rv, zv));
    CHECK_OK(kryl_vector_get(zv, z, n));
    double diff = test_rel_diff(z, zref, n);
    CHECK(diff <= 1e-11,
          "%s(sweeps %d, omega %g) %s %s n=%lld (%s, %s order, %d colors of %d): apply differs "
          "from the dense reference by %.3e",
          kryl_precond_name(c->kind), c->sweeps, c->omega, kryl_method_name(c->method),
          test_shape_name(c->shape), (long long)n, kryl_format_name(format), kryl_order_name(order),
          (int)mc.c.ncolors, (int)mc.ncolors_full, diff);
    (void)name;
    kryl_precond_destroy(&pc);
    kryl_vector_destroy(&rv);
    kryl_vector_destroy(&zv);
    kryl_mcolor_free(&mc);
    kryl_matrix_destroy(&B);
    kryl_matrix_destroy(&A);
    free(Ad);
    free(M);
    free(r);
    free(z);
    free(zref);
}

static void check_apply(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                        const char *name)
{
    (void)ref;
    (void)kind;
    for (size_t k = 0; k < sizeof apply_cases / sizeof apply_cases[0]; k++) {
        check_apply_case(ctx, &apply_cases[k], KRYL_FORMAT_CSR, KRYL_ORDER_NONE, name);
        check_apply_case(ctx, &apply_cases[k], KRYL_FORMAT_SELL, KRYL_ORDER_RCM, name);
    }
}

/* The long rows are colored in many colors, and sparsification cuts them. */
static void test_sparsification(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    double *Ad = dense_matrix(TEST_SHAPE_LONG_ROWS, 120, false, 127);
    kryl_matrix A = kt_dense(ctx, 120, Ad);
    kryl_mcolor mc;
    reference_coloring(A, KRYL_PRECOND_MCSSOR, &mc);
    printf("long rows n = 120: %d colors, %d after %d sparsification round(s), %lld of %lld "
           "edges kept, %lld entries left out of M\n",
           (int)mc.ncolors_full, (int)mc.c.ncolors, mc.rounds, (long long)mc.edges_kept,
           (long long)mc.edges, (long long)mc.dropped);
    CHECK(mc.ncolors_full > KRYL_MCOLOR_FEW_COLORS && mc.c.ncolors < mc.ncolors_full,
          "sparsification did not reduce %d colors (got %d)", (int)mc.ncolors_full,
          (int)mc.c.ncolors);
    kryl_mcolor_free(&mc);
    /* a 5-point grid keeps every coupling, in at most 5 colors (degree + 1) */
    kryl_matrix P = kt_generate(ctx, KRYL_GEN_POISSON2D5, 9);
    reference_coloring(P, KRYL_PRECOND_MCSSOR, &mc);
    CHECK(mc.c.ncolors >= 2 && mc.c.ncolors <= 5 && mc.rounds == 0 && mc.dropped == 0,
          "poisson2d: %d colors, %d rounds, %lld dropped; expected 2..5, nothing dropped",
          (int)mc.c.ncolors, mc.rounds, (long long)mc.dropped);
    kryl_mcolor_free(&mc);
    kryl_matrix_destroy(&P);
    kryl_matrix_destroy(&A);
    free(Ad);
    kryl_context_destroy(&ctx);
}

/* An exactly symmetric matrix with stored zeros whose mirrors are absent
 * (its measured asymmetry is 0): a clique of 20 rows of unequal couplings,
 * which the sparsification thins, beside a chain whose rows store a zero
 * two columns on, one way only, between rows of low degree, which a
 * thinning keeps.  The weighted graph takes no edge of a zero, so its
 * recolorings, told the graph is structurally symmetric, color every row. */
static void test_sparsification_stored_zeros(kryl_backend_kind kind)
{
    kryl_context ctx = kt_context(kind);
    enum { CLIQUE = 20, N = 60 };
    int64_t row_ptr[N + 1] = {0}, col_idx[N * N];
    double values[N * N];
    int64_t nnz = 0, zeros = 0;
    for (int64_t i = 0; i < N; i++) {
        for (int64_t j = 0; j < N; j++) {
            double v = 0.0;
            bool stored = false;
            if (i < CLIQUE && j < CLIQUE && i != j) {
                v = -(0.05 + (double)((i + j) % 10) * 0.1);
                stored = true;
            } else if (i >= CLIQUE && j >= CLIQUE && (j == i + 1 || i == j + 1)) {
                v = -1.0;
                stored = true;
            } else if (i >= CLIQUE && i % 2 == 0 && j == i + 2) {
                stored = true; /* a zero, its mirror absent */
                zeros++;
            }
            if (i == j) {
                v = 1.0;
                stored = true;
            }
            if (!stored) continue;
            col_idx[nnz] = j;
            values[nnz++] = v;
        }
        row_ptr[i + 1] = nnz;
    }
    /* diagonally dominant: a_ii = 1 + sum_{j != i} |a_ij| */
    for (int64_t i = 0; i < N; i++)
        for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
            if (col_idx[e] == i)
                for (int64_t f = row_ptr[i]; f < row_ptr[i + 1]; f++)
                    values[e] += col_idx[f] == i ? 0.0 : fabs(values[f]);
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_create_csr(&A, ctx, N, N, 0, N, row_ptr, col_idx, values));
    double asymmetry = -1.0;
    if (A != NULL) CHECK_OK(kryl_matrix_measure_asymmetry(A, "the test", &asymmetry));
    CHECK(zeros > 0 && asymmetry == 0.0, "%lld stored zeros, asymmetry %g; expected some and 0",
          (long long)zeros, asymmetry);
    kryl_mcolor mc = {0};
    if (A != NULL) reference_coloring(A, KRYL_PRECOND_MCSSOR, &mc);
    CHECK(mc.rounds > 0, "%s: no sparsification round was kept (%d colors)",
          kryl_backend_name(kind), (int)mc.ncolors_full);
    int64_t bad = 0;
    for (int64_t i = 0; i < N && mc.c.color != NULL; i++)
        bad += mc.c.color[i] < 0 || mc.c.color[i] >= mc.c.ncolors;
    CHECK(mc.c.color != NULL && bad == 0, "%s: %lld of %d rows without a color",
          kryl_backend_name(kind), (long long)bad, (int)N);
    kryl_mcolor_free(&mc);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* ---- solves ---- */

/* Iterations of method + kind (sweeps) on A x = b, converged by the true
 * residual; -1 when the backend refuses (kt_supported). */
static int64_t iterations(kryl_matrix A, const double *b, kryl_method method,
                          kryl_precond_kind kind, int sweeps, const char *what)
{
    char label[192];
    snprintf(label, sizeof label, "%s + %s(sweeps %d) on %s (%s)", kryl_method_name(method),
             kryl_precond_name(kind), sweeps, what,
             kryl_backend_name(kryl_context_backend(A->ctx)));
    kryl_solver_options o;
    kt_options(&o, method, kind, 1e-8, 5000);
    o.sweeps = sweeps;
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    if (!kt_supported(A->ctx, &s, label)) return -1;
    kt_check_converged(&s, label);
    return s.r.iterations;
}

/* Converges, in fewer iterations than the method alone. */
static void check_beats_none(kryl_matrix A, kryl_method method, kryl_precond_kind kind, int sweeps,
                             const char *what)
{
    double *b = kt_rhs(A, 5);
    kryl_method plain = method == KRYL_METHOD_PCG ? KRYL_METHOD_CG : method;
    int64_t it = iterations(A, b, method, kind, sweeps, what);
    int64_t none = iterations(A, b, plain, KRYL_PRECOND_NONE, 1, what);
    printf("%-12s %-9s %s(sweeps %d): %lld iterations, none %lld\n", what, kryl_method_name(method),
           kryl_precond_name(kind), sweeps, (long long)it, (long long)none);
    if (it >= 0 && none >= 0)
        CHECK(it < none, "%s %s + %s: %lld iterations, no preconditioner %lld", what,
              kryl_method_name(method), kryl_precond_name(kind), (long long)it, (long long)none);
    free(b);
}

/* Two sweeps per apply converge in fewer iterations than one. */
static void check_sweeps(kryl_matrix A, kryl_method method, const char *what)
{
    double *b = kt_rhs(A, 9);
    int64_t one = iterations(A, b, method, KRYL_PRECOND_MCSSOR, 1, what);
    int64_t two = iterations(A, b, method, KRYL_PRECOND_MCSSOR, 2, what);
    if (one >= 0 && two >= 0)
        CHECK(two < one, "%s %s + mcssor: 2 sweeps %lld iterations, 1 sweep %lld", what,
              kryl_method_name(method), (long long)two, (long long)one);
    free(b);
}

static void test_solves(kryl_backend_kind kind)
{
    kryl_context ctx = kt_context(kind);
    kryl_matrix P2 = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    kryl_matrix P3 = kt_generate(ctx, KRYL_GEN_POISSON3D7, 12);
    kryl_matrix C = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 40);
    kryl_matrix C3 = kt_generate(ctx, KRYL_GEN_CONVDIFF3D, 12);
    check_beats_none(P2, KRYL_METHOD_CG, KRYL_PRECOND_MCSSOR, 1, "poisson2d");
    check_beats_none(P2, KRYL_METHOD_PCG, KRYL_PRECOND_MCSSOR, 3, "poisson2d");
    check_beats_none(P2, KRYL_METHOD_PIPECG, KRYL_PRECOND_MCSSOR, 2, "poisson2d");
    check_beats_none(P2, KRYL_METHOD_CG, KRYL_PRECOND_MCILU0, 1, "poisson2d");
    check_beats_none(P3, KRYL_METHOD_CG, KRYL_PRECOND_MCSSOR, 2, "poisson3d");
    check_beats_none(P3, KRYL_METHOD_PCG, KRYL_PRECOND_MCILU0, 1, "poisson3d");
    check_beats_none(C, KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0, 1, "convdiff2d");
    check_beats_none(C, KRYL_METHOD_BICGSTAB, KRYL_PRECOND_MCILU0, 1, "convdiff2d");
    check_beats_none(C, KRYL_METHOD_GMRES, KRYL_PRECOND_MCSSOR, 2, "convdiff2d");
    check_beats_none(C3, KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0, 1, "convdiff3d");
    check_beats_none(C3, KRYL_METHOD_BICGSTAB, KRYL_PRECOND_MCSSOR, 1, "convdiff3d");
    check_sweeps(P2, KRYL_METHOD_CG, "poisson2d");
    check_sweeps(P3, KRYL_METHOD_CG, "poisson3d");
    check_sweeps(C, KRYL_METHOD_GMRES, "convdiff2d");
    if (kind == KRYL_BACKEND_REF) {
        /* M does not depend on the storage: same iterations in csr, jds and sell */
        double *b = kt_rhs(P2, 3);
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_MCSSOR, 1e-10, 2000);
        o.sweeps = 2;
        kt_check_formats(P2, &o, b, "cg + mcssor(2) poisson2d");
        kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0, 1e-10, 2000);
        kt_check_formats(C, &o, b, "gmres + mcilu0 convdiff2d");
        free(b);
    }
    kryl_matrix_destroy(&P2);
    kryl_matrix_destroy(&P3);
    kryl_matrix_destroy(&C);
    kryl_matrix_destroy(&C3);
    const kt_case real[] = {
        {"bcsstk06.mtx", KRYL_METHOD_CG, KRYL_PRECOND_MCSSOR},
        {"nos4.mtx", KRYL_METHOD_CG, KRYL_PRECOND_MCILU0},
        {"sherman1.mtx", KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0},
        {"sherman1.mtx", KRYL_METHOD_BICGSTAB, KRYL_PRECOND_MCSSOR},
    };
    for (size_t k = 0; k < sizeof real / sizeof real[0]; k++) {
        kryl_matrix A = kt_read(ctx, real[k].file);
        if (A == NULL) continue;
        check_beats_none(A, real[k].method, real[k].pc, 1, real[k].file);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* ---- refusals ---- */

static void test_refusals(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    int64_t n = 9;
    double *Ad = dense_matrix(TEST_SHAPE_RANDOM, n, false, 3);
    Ad[5 * n + 5] = 0.0;
    kryl_matrix A = kt_dense(ctx, n, Ad);
    kt_check_refusal(A, KRYL_METHOD_GMRES, KRYL_PRECOND_MCSSOR, KRYL_ERR_ZERO_DIAGONAL, "row 5",
                     "a_55 = 0");
    kt_check_refusal(A, KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0, KRYL_ERR_ZERO_DIAGONAL, "row 5",
                     "a_55 = 0");
    kryl_matrix_destroy(&A);
    free(Ad);
    A = kt_read(ctx, "west0067.mtx");
    kt_check_refusal(A, KRYL_METHOD_GMRES, KRYL_PRECOND_MCSSOR, KRYL_ERR_ZERO_DIAGONAL,
                     "--method auto", "west0067");
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    test_each_config(true, check_apply);
    test_sparsification();
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) test_sparsification_stored_zeros(kinds[k]);
    for (int k = 0; k < nk; k++) test_solves(kinds[k]);
    test_refusals();
    return test_summary("test_mcolor");
}
