/* Preconditioners on the real matrices of the shared collection
 * (the shared test matrices, README.md beside them), on every usable backend:
 *  - SPD matrices: jacobi, ic0, mic0, lspoly, bjacobi (both partitions)
 *    and mcssor with PCG meet the true residual they report, in fewer
 *    iterations than CG without a preconditioner; ic0 is refused where
 *    its pivots break down, naming the row and suggesting mic0;
 *  - nonsymmetric matrices: ilu0, ilut and bjacobi with GMRES meet the true
 *    residual, in fewer iterations than GMRES alone where that converges;
 *  - matrices with zero diagonal entries: jacobi, ic0 and ilu0 are refused
 *    naming the row (or the missing symmetry) and an alternative;
 *  - the rectangular lp_ship04l: every method refuses it, naming its shape.
 * A missing file skips its case; exit 77 when every file is missing. */
#include "core/objects.h"
#include "order/order.h"
#include "test_krylov_support.h"

#define RTOL  1e-8
#define MAXIT 20000

static int present; /* matrix files found */

/* The matrix `file` on ctx, counted when present; NULL when absent. */
static kryl_matrix read_matrix(kryl_context ctx, const char *file)
{
    kryl_matrix A = kt_read(ctx, file);
    if (A == NULL)
        printf("%s: absent, skipped\n", file);
    else
        present++;
    return A;
}

/* Iterations of method + pc (bjacobi: 8 blocks of `partition`) on A x = b: -1 when
 * the backend lacks the operations or the preconditioner does not exist in
 * this build (mcssor), else checked to converge by the true residual. */
static int64_t solve(kryl_matrix A, const double *b, kryl_method method, kryl_precond_kind pc,
                     kryl_partition_kind partition, const char *file)
{
    char label[192];
    snprintf(label, sizeof label, "%s + %s%s%s on %s (%s)", kryl_method_name(method),
             kryl_precond_name(pc), pc == KRYL_PRECOND_BJACOBI ? " " : "",
             pc == KRYL_PRECOND_BJACOBI ? kryl_partition_name(partition) : "", file,
             kryl_backend_name(kryl_context_backend(A->ctx)));
    kryl_solver_options o;
    kt_options(&o, method, pc, RTOL, MAXIT);
    o.partition = partition;
    o.blocks = 8;
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    if (s.create == KRYL_ERR_INVALID_ARGUMENT &&
        strstr(kryl_last_error(), "unknown preconditioner") != NULL) {
        printf("%s: not in this build, skipped\n", label);
        return -1;
    }
    if (!kt_supported(A->ctx, &s, label)) return -1;
    kt_check_converged(&s, label);
    return s.r.iterations;
}

/* kryl_solver_create of method + pc fails with `expected`, its message
 * holding each of the NULL-terminated words. */
static void check_refused(kryl_matrix A, kryl_method method, kryl_precond_kind pc,
                          kryl_status expected, const char *const *words, const char *file)
{
    kryl_solver_options o;
    kt_options(&o, method, pc, RTOL, 10);
    kryl_solver s = NULL;
    kryl_status st = kryl_solver_create(&s, A, &o);
    const char *msg = kryl_last_error();
    CHECK(st == expected, "%s, %s + %s: %s (%s), expected %s", file, kryl_method_name(method),
          kryl_precond_name(pc), kryl_strerror(st), st == KRYL_SUCCESS ? "created" : msg,
          kryl_strerror(expected));
    for (int k = 0; st == expected && words[k] != NULL; k++)
        CHECK(strstr(msg, words[k]) != NULL, "%s, %s + %s: the refusal does not say '%s': %s", file,
              kryl_method_name(method), kryl_precond_name(pc), words[k], msg);
    if (st == expected) printf("%-12s %-7s refused: %s\n", file, kryl_precond_name(pc), msg);
    kryl_solver_destroy(&s);
}

/* b = A * ones, the right-hand side the collection's users take. */
static double *rhs_of_ones(kryl_matrix A)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    int64_t n = kt_rows(A);
    kryl_matrix_csr_view(A, &rp, &ci, &v);
    double *b = malloc((size_t)n * sizeof *b);
    for (int64_t i = 0; i < n; i++) {
        /* b_i = sum_j a_ij */
        b[i] = 0.0;
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) b[i] += v[e];
    }
    return b;
}

/* SPD matrices of moderate size: CG alone takes at most ~3600 iterations
 * (bcsstk19 and bcsstk15 need 7500 and 8700, too long under sanitizers);
 * ic0_breaks: IC(0) meets a non-positive pivot there (mic0 shifts);
 * bjacobi_slower: 8 blocks take about as many iterations as CG alone (on
 * bcsstk09 every block needs the shifted IC(0): ~200 against 208). */
static const struct {
    const char *file;
    bool ic0_breaks, bjacobi_slower;
} spd[] = {{"nos4.mtx", false, false},     {"lund_a.mtx", false, false},
           {"bcsstk06.mtx", true, false},  {"494_bus.mtx", false, false},
           {"bcsstk08.mtx", false, false}, {"1138_bus.mtx", false, false},
           {"bcsstk09.mtx", true, true},   {"bcsstk10.mtx", true, false}};

static void test_spd(kryl_context ctx)
{
    const kryl_precond_kind pcs[] = {KRYL_PRECOND_JACOBI,  KRYL_PRECOND_IC0,
                                     KRYL_PRECOND_MIC0,    KRYL_PRECOND_LSPOLY,
                                     KRYL_PRECOND_BJACOBI, KRYL_PRECOND_MCSSOR};
    for (size_t m = 0; m < sizeof spd / sizeof spd[0]; m++) {
        kryl_matrix A = read_matrix(ctx, spd[m].file);
        if (A == NULL) continue;
        double *b = rhs_of_ones(A);
        if (spd[m].ic0_breaks) {
            const char *words[] = {"ic0", "row", "mic0", NULL};
            check_refused(A, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, KRYL_ERR_NOT_POSITIVE_DEFINITE,
                          words, spd[m].file);
        }
        int64_t none =
            solve(A, b, KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_PARTITION_AUTO, spd[m].file);
        printf("%-12s cg %lld;", spd[m].file, (long long)none);
        for (size_t p = 0; p < sizeof pcs / sizeof pcs[0]; p++) {
            if (pcs[p] == KRYL_PRECOND_IC0 && spd[m].ic0_breaks) continue;
            kryl_partition_kind parts[2] = {KRYL_PARTITION_CONTIGUOUS, KRYL_PARTITION_METIS};
            int nparts = pcs[p] != KRYL_PRECOND_BJACOBI ? 1 : kryl_order_have_metis() ? 2 : 1;
            for (int k = 0; k < nparts; k++) {
                int64_t it = solve(A, b, KRYL_METHOD_PCG, pcs[p], parts[k], spd[m].file);
                if (it < 0) continue;
                printf(" %s%s%s %lld", kryl_precond_name(pcs[p]),
                       pcs[p] == KRYL_PRECOND_BJACOBI ? "/" : "",
                       pcs[p] == KRYL_PRECOND_BJACOBI ? kryl_partition_name(parts[k]) : "",
                       (long long)it);
                if (pcs[p] == KRYL_PRECOND_BJACOBI && spd[m].bjacobi_slower) continue;
                CHECK(none < 0 || it < none, "%s: pcg + %s took %lld iterations, cg alone %lld",
                      spd[m].file, kryl_precond_name(pcs[p]), (long long)it, (long long)none);
            }
        }
        printf("\n");
        free(b);
        kryl_matrix_destroy(&A);
    }
}

/* Nonsymmetric matrices whose ILU(0) exists, with the preconditioners
 * that converge on them with their defaults: ILUT(1e-3, 20) does not
 * converge on sherman2 and olm1000 within 20000 GMRES(40) iterations and
 * takes ~2000 on sherman3, too long under sanitizers; on rdb2048 it
 * stagnates near 1e-8 (on cuda, whose timed triangular-solve path changes
 * the rounding, one run ended at 1.6e-8 after 20000 iterations), as 8-block
 * bjacobi does (relres 2e-2 with METIS blocks, 2e-8 contiguous); bjacobi
 * is Jacobi on the 9 rows of cage4. */
static const struct {
    const char *file;
    bool ilut, bjacobi;
} nonsym[] = {
    {"pores_1.mtx", true, true},  {"cage4.mtx", true, false},    {"sherman1.mtx", true, true},
    {"sherman4.mtx", true, true}, {"sherman5.mtx", true, true},  {"sherman2.mtx", false, true},
    {"olm1000.mtx", false, true}, {"rdb2048.mtx", false, false}, {"sherman3.mtx", false, true}};

static void test_nonsymmetric(kryl_context ctx)
{
    const kryl_precond_kind pcs[] = {KRYL_PRECOND_ILU0, KRYL_PRECOND_ILUT, KRYL_PRECOND_BJACOBI};
    for (size_t m = 0; m < sizeof nonsym / sizeof nonsym[0]; m++) {
        kryl_matrix A = read_matrix(ctx, nonsym[m].file);
        if (A == NULL) continue;
        double *b = rhs_of_ones(A);
        /* GMRES alone, not required to converge: the baseline where it does
         * within 2000 iterations */
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_NONE, RTOL, 2000);
        kt_solve plain = kt_run(A, &o, b, NULL, NULL);
        int64_t none = plain.create == KRYL_SUCCESS && plain.r.converged ? plain.r.iterations : -1;
        printf("%-12s gmres %lld%s;", nonsym[m].file, (long long)plain.r.iterations,
               none < 0 ? " (not converged)" : "");
        for (size_t p = 0; p < sizeof pcs / sizeof pcs[0]; p++) {
            if ((pcs[p] == KRYL_PRECOND_ILUT && !nonsym[m].ilut) ||
                (pcs[p] == KRYL_PRECOND_BJACOBI && !nonsym[m].bjacobi))
                continue;
            kryl_partition_kind parts[2] = {KRYL_PARTITION_CONTIGUOUS, KRYL_PARTITION_METIS};
            int nparts = pcs[p] != KRYL_PRECOND_BJACOBI ? 1 : kryl_order_have_metis() ? 2 : 1;
            for (int k = 0; k < nparts; k++) {
                int64_t it = solve(A, b, KRYL_METHOD_GMRES, pcs[p], parts[k], nonsym[m].file);
                if (it < 0) continue;
                printf(" %s%s%s %lld", kryl_precond_name(pcs[p]),
                       pcs[p] == KRYL_PRECOND_BJACOBI ? "/" : "",
                       pcs[p] == KRYL_PRECOND_BJACOBI ? kryl_partition_name(parts[k]) : "",
                       (long long)it);
                CHECK(none < 0 || it < none,
                      "%s: gmres + %s took %lld iterations, gmres alone %lld", nonsym[m].file,
                      kryl_precond_name(pcs[p]), (long long)it, (long long)none);
            }
        }
        printf("\n");
        free(b);
        kryl_matrix_destroy(&A);
    }
}

/* The first row whose diagonal entry is zero or absent; -1 if none. */
static int64_t first_zero_diagonal(kryl_matrix A)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    kryl_matrix_csr_view(A, &rp, &ci, &v);
    for (int64_t i = 0; i < kt_rows(A); i++) {
        double d = 0.0;
        for (int64_t e = rp[i]; e < rp[i + 1]; e++)
            if (ci[e] == i) d = v[e];
        if (d == 0.0) return i;
    }
    return -1;
}

/* Zero diagonal entries: jacobi names the row and suggests none; ic0 names
 * the missing symmetry (suggesting ilu0) or, on a symmetric matrix, the
 * row and an alternative; ilu0 names the row and suggests ilut or none,
 * except on fidap_ex6, where elimination fills its zero diagonal entries
 * (they are stored) with nonzero pivots, so ILU(0) exists. */
static void test_zero_diagonal(kryl_context ctx)
{
    const char *files[] = {"EVA.mtx",      "zenios.mtx",    "ca-GrQc.mtx",
                           "west0067.mtx", "west0479.mtx",  "mahindas.mtx",
                           "qh1484.mtx",   "fidap_ex6.mtx", "rajat11.mtx"};
    for (size_t m = 0; m < sizeof files / sizeof files[0]; m++) {
        kryl_matrix A = read_matrix(ctx, files[m]);
        if (A == NULL) continue;
        int64_t row = first_zero_diagonal(A);
        CHECK(row >= 0, "%s: expected a zero diagonal entry", files[m]);
        char row_words[32];
        snprintf(row_words, sizeof row_words, "row %lld ", (long long)row);
        const char *jacobi[] = {"jacobi", row_words, "--precond none", NULL};
        check_refused(A, KRYL_METHOD_GMRES, KRYL_PRECOND_JACOBI, KRYL_ERR_ZERO_DIAGONAL, jacobi,
                      files[m]);
        bool symmetric = false;
        CHECK_OK(kryl_matrix_is_symmetric(A, 0.0, &symmetric));
        if (symmetric) {
            const char *ic0[] = {"ic0", "row ", "not positive definite", "ilutp", NULL};
            check_refused(A, KRYL_METHOD_GMRES, KRYL_PRECOND_IC0, KRYL_ERR_NOT_POSITIVE_DEFINITE,
                          ic0, files[m]);
        } else {
            const char *ic0[] = {"ic0", "not symmetric", "ilu0", NULL};
            check_refused(A, KRYL_METHOD_GMRES, KRYL_PRECOND_IC0, KRYL_ERR_NOT_SYMMETRIC, ic0,
                          files[m]);
        }
        if (strcmp(files[m], "fidap_ex6.mtx") == 0) {
            kryl_solver_options o;
            kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, RTOL, 10);
            kryl_solver s = NULL;
            CHECK_OK(kryl_solver_create(&s, A, &o));
            kryl_solver_destroy(&s);
        } else {
            const char *ilu0[] = {"ilu0", "row ", "ilutp", "--method auto", NULL};
            check_refused(A, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, KRYL_ERR_ZERO_DIAGONAL, ilu0,
                          files[m]);
        }
        kryl_matrix_destroy(&A);
    }
}

/* lp_ship04l (402 x 2166): every method refuses it, naming the shape. */
static void test_rectangular(kryl_context ctx)
{
    kryl_matrix A = read_matrix(ctx, "lp_ship04l.mtx");
    if (A == NULL) return;
    const kryl_method methods[] = {KRYL_METHOD_CG, KRYL_METHOD_PCG, KRYL_METHOD_PIPECG,
                                   KRYL_METHOD_GMRES, KRYL_METHOD_BICGSTAB};
    const char *words[] = {"402 x 2166", "square", NULL};
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
        check_refused(A, methods[k], KRYL_PRECOND_NONE, KRYL_ERR_NOT_SQUARE, words,
                      "lp_ship04l.mtx");
    kryl_matrix_destroy(&A);
}

int main(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        printf("-- %s\n", kryl_backend_name(kinds[k]));
        test_spd(ctx);
        test_nonsymmetric(ctx);
        test_zero_diagonal(ctx);
        test_rectangular(ctx);
        kryl_context_destroy(&ctx);
    }
    if (present == 0) {
        printf("test_precond_real: no shared matrix found, skipped\n");
        return TEST_SKIP_CODE;
    }
    return test_summary("test_precond_real");
}
