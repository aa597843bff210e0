/* Incomplete factorizations against dense references on small matrices,
 * their refusals, and real matrices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "factor/factor.h"
#include "io/mtx.h"
#include "precond/precond.h"
#include "test_gen_support.h"

/* A dense n x n matrix (row-major) as CSR of its nonzeros. */
static void csr_from_dense(kryl_csr *A, const double *D, int64_t n)
{
    int64_t nnz = 0;
    for (int64_t t = 0; t < n * n; t++) nnz += D[t] != 0.0;
    kryl_csr_alloc(A, n, n, nnz);
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < n; j++)
            if (D[i * n + j] != 0.0) {
                A->col_idx[at] = (int32_t)j;
                A->values[at++] = D[i * n + j];
            }
        A->row_ptr[i + 1] = at;
    }
}

static double *dense_of(const kryl_csr *A)
{
    const int64_t n = A->nrows;
    double *D = calloc((size_t)(n * n), sizeof *D);
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            D[i * n + A->col_idx[e]] = A->values[e];
    return D;
}

/* A random sparse nonsymmetric (or symmetric) matrix with a dominant diagonal. */
static double *random_dense(int64_t n, double density, bool symmetric, uint64_t seed)
{
    double *D = calloc((size_t)(n * n), sizeof *D), *r = malloc((size_t)(n * n) * sizeof *r);
    test_random_values(r, n * n, seed);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            if (fabs(r[i * n + j]) < density)
                D[i * n + j] = r[(symmetric && j > i ? j * n + i : i * n + j)];
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            if (symmetric && j > i) D[i * n + j] = D[j * n + i];
    for (int64_t i = 0; i < n; i++) D[i * n + i] = 4.0 + r[i];
    free(r);
    return D;
}

/* Dense IKJ LU of D in place, restricted to the nonzero pattern of P (all when P is NULL). */
static void dense_lu(double *D, const double *P, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < i; k++) {
            if (P != NULL && P[i * n + k] == 0.0) continue;
            D[i * n + k] /= D[k * n + k];
            for (int64_t j = k + 1; j < n; j++)
                if (P == NULL || P[i * n + j] != 0.0) D[i * n + j] -= D[i * n + k] * D[k * n + j];
        }
}

/* Dense IC(0) of D (lower triangle) restricted to its pattern, into L. */
static void dense_ic0(const double *D, double *L, int64_t n)
{
    memset(L, 0, (size_t)(n * n) * sizeof *L);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j <= i; j++) {
            if (D[i * n + j] == 0.0) continue;
            double s = D[i * n + j];
            for (int64_t k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = j < i ? s / L[j * n + j] : sqrt(s);
        }
}

/* max |F.L F.U (combined) - ref| where ref holds L strictly below and U on and above. */
static double lu_diff(const kryl_factor *F, const double *ref, int64_t n)
{
    double *Ld = dense_of(&F->L), *Ud = dense_of(&F->U), diff = 0.0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            const double got = j < i ? Ld[i * n + j] : Ud[i * n + j];
            diff = fmax(diff, fabs(got - ref[i * n + j]));
        }
    free(Ld);
    free(Ud);
    return diff;
}

/* b = A x, solve with F, compare to x. */
static double solve_error(const kryl_csr *A, const kryl_factor *F)
{
    const int64_t n = A->nrows;
    double *x = malloc((size_t)n * sizeof *x), *b = calloc((size_t)n, sizeof *b);
    test_random_values(x, n, 7);
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            b[i] += A->values[e] * x[A->col_idx[e]];
    CHECK_OK(kryl_factor_solve_host(F, b, b));
    const double err = test_rel_diff(b, x, n);
    free(x);
    free(b);
    return err;
}

static void check_ilu_small(int64_t n, uint64_t seed)
{
    double *D = random_dense(n, 0.15, false, seed), *R = malloc((size_t)(n * n) * sizeof *R);
    kryl_csr A;
    csr_from_dense(&A, D, n);
    kryl_factor F;
    /* ILU(0) = dense IKJ on the pattern of A */
    memcpy(R, D, (size_t)(n * n) * sizeof *R);
    dense_lu(R, D, n);
    CHECK_OK(kryl_factor_ilu0(&A, &F));
    CHECK(lu_diff(&F, R, n) < 1e-12, "ilu0 n=%lld: diff %g", (long long)n, lu_diff(&F, R, n));
    CHECK(F.unit_lower && F.fill_in == 0 && F.nnz_L + F.nnz_U == kryl_csr_nnz(&A),
          "ilu0 pattern: nnz %lld + %lld vs %lld, fill %lld", (long long)F.nnz_L,
          (long long)F.nnz_U, (long long)kryl_csr_nnz(&A), (long long)F.fill_in);
    kryl_factor_free(&F);
    /* ILU(n) and ILUT(0, n) = full LU */
    memcpy(R, D, (size_t)(n * n) * sizeof *R);
    dense_lu(R, NULL, n);
    CHECK_OK(kryl_factor_iluk(&A, (int)n, &F));
    CHECK(lu_diff(&F, R, n) < 1e-12, "iluk n=%lld: diff %g", (long long)n, lu_diff(&F, R, n));
    CHECK(solve_error(&A, &F) < 1e-10, "iluk solve");
    int64_t nnz_k1 = 0;
    kryl_factor_free(&F);
    CHECK_OK(kryl_factor_iluk(&A, 1, &F));
    nnz_k1 = F.nnz_L + F.nnz_U;
    CHECK(nnz_k1 >= kryl_csr_nnz(&A), "iluk(1) has at least A's entries");
    kryl_factor_free(&F);
    CHECK_OK(kryl_factor_ilut(&A, 0.0, n, &F));
    CHECK(lu_diff(&F, R, n) < 1e-12, "ilut n=%lld: diff %g", (long long)n, lu_diff(&F, R, n));
    CHECK(solve_error(&A, &F) < 1e-10, "ilut solve");
    const int64_t full = F.nnz_L + F.nnz_U;
    kryl_factor_free(&F);
    CHECK_OK(kryl_factor_ilut(&A, 0.05, 3, &F));
    CHECK(n == 1 || F.nnz_L + F.nnz_U < full, "ilut(0.05, 3): %lld entries, full %lld",
          (long long)(F.nnz_L + F.nnz_U), (long long)full);
    for (int64_t i = 0; i < n; i++)
        CHECK(F.L.row_ptr[i + 1] - F.L.row_ptr[i] <= 3 && F.U.row_ptr[i + 1] - F.U.row_ptr[i] <= 4,
              "ilut row %lld over p", (long long)i);
    kryl_factor_free(&F);
    kryl_csr_free(&A);
    free(D);
    free(R);
}

static void check_ic_small(const double *D, int64_t n, const char *what)
{
    double *R = malloc((size_t)(n * n) * sizeof *R);
    kryl_csr A;
    csr_from_dense(&A, D, n);
    kryl_factor F;
    dense_ic0(D, R, n);
    CHECK_OK(kryl_factor_ic0(&A, &F));
    double *Ld = dense_of(&F.L), *Ud = dense_of(&F.U), diff = 0.0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            diff = fmax(
                diff, fmax(fabs(Ld[i * n + j] - R[i * n + j]), fabs(Ud[j * n + i] - R[i * n + j])));
    CHECK(diff < 1e-12, "ic0 %s: diff %g", what, diff);
    CHECK(!F.unit_lower && F.fill_in == 0 && F.shift == 0.0, "ic0 %s flags", what);
    int64_t tril = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; e++) tril += A.col_idx[e] <= i;
    CHECK(F.nnz_L == tril && F.nnz_U == tril, "ic0 %s pattern: %lld vs tril %lld", what,
          (long long)F.nnz_L, (long long)tril);
    free(Ld);
    free(Ud);
    kryl_factor_free(&F);
    kryl_csr_free(&A);
    free(R);
}

static void check_small(void)
{
    for (int64_t n = 1; n <= 60; n += 11) check_ilu_small(n, (uint64_t)n);
    for (int64_t n = 2; n <= 60; n += 13) {
        double *D = random_dense(n, 0.2, true, 100 + (uint64_t)n);
        check_ic_small(D, n, "random");
        free(D);
    }
    /* 2-D Poisson on 7 x 7 */
    kryl_generator g;
    kryl_generator_options o;
    kryl_generator_options_init(&o, KRYL_GEN_POISSON2D5, 7);
    kryl_csr P;
    if (!gen_whole(&P, &g, &o)) return;
    double *D = dense_of(&P);
    check_ic_small(D, P.nrows, "poisson2d");
    free(D);
    /* tridiagonal: IC(0) is exact, so the solve inverts A */
    kryl_factor F;
    kryl_generator_options_init(&o, KRYL_GEN_POISSON2D5, 30);
    o.ny = 1;
    kryl_csr T;
    if (gen_whole(&T, &g, &o)) {
        CHECK_OK(kryl_factor_ic0(&T, &F));
        CHECK(solve_error(&T, &F) < 1e-10, "ic0 tridiagonal solve");
        kryl_factor_free(&F);
        gen_csr_free(&T);
    }
    gen_csr_free(&P);
}

static void check_refusals(void)
{
    kryl_csr A;
    kryl_factor F;
    const double indefinite[4] = {1.0, 2.0, 2.0, 1.0};
    csr_from_dense(&A, indefinite, 2);
    CHECK_STATUS(kryl_factor_ic0(&A, &F), KRYL_ERR_NOT_POSITIVE_DEFINITE);
    CHECK(strstr(kryl_last_error(), "row 1 (0-based)") != NULL, "message: %s", kryl_last_error());
    kryl_csr_free(&A);
    const double zero_diag[4] = {0.0, 1.0, 1.0, 1.0};
    csr_from_dense(&A, zero_diag, 2);
    CHECK_STATUS(kryl_factor_ilu0(&A, &F), KRYL_ERR_ZERO_DIAGONAL);
    CHECK(strstr(kryl_last_error(), "row 0 (0-based)") != NULL, "message: %s", kryl_last_error());
    CHECK_STATUS(kryl_factor_ilut(&A, 0.0, 2, &F), KRYL_ERR_ZERO_DIAGONAL);
    CHECK_STATUS(kryl_factor_ilut(&A, -1.0, 2, &F), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_factor_iluk(&A, -1, &F), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_factor_mic0(&A, &F), KRYL_ERR_NOT_POSITIVE_DEFINITE);
    CHECK_STATUS(kryl_factor_ic0(NULL, &F), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_factor_solve_host(NULL, NULL, NULL), KRYL_ERR_INVALID_ARGUMENT);
    kryl_csr_free(&A);
    /* SPD and IC(0)-factorable: MIC(0) needs no shift */
    const double spd[9] = {3.0, -2.0, 2.0, -2.0, 3.0, 0.0, 2.0, 0.0, 3.0};
    csr_from_dense(&A, spd, 3);
    CHECK_OK(kryl_factor_mic0(&A, &F));
    CHECK(F.shift == 0.0, "mic0 of an IC(0)-factorable matrix: shift %g", F.shift);
    kryl_factor_free(&F);
    kryl_csr_free(&A);
}

static bool read_matrix(const char *file, kryl_csr *A)
{
    const char *path = test_matrix_path(file);
    kryl_coo coo = {0};
    kryl_mtx_header h;
    if (path == NULL || kryl_mtx_read(path, &h, &coo) != KRYL_SUCCESS) return false;
    kryl_status st = kryl_csr_from_coo(A, &coo, coo.nrows, 0, coo.nrows);
    kryl_coo_free(&coo);
    return st == KRYL_SUCCESS;
}

static int check_real(void)
{
    int found = 0;
    const char *spd[] = {"bcsstk06.mtx", "nos4.mtx", "494_bus.mtx"};
    for (int m = 0; m < 3; m++) {
        kryl_csr A;
        if (!read_matrix(spd[m], &A)) continue;
        found++;
        kryl_factor F;
        kryl_status st = kryl_factor_ic0(&A, &F);
        CHECK(st == KRYL_SUCCESS || st == KRYL_ERR_NOT_POSITIVE_DEFINITE, "ic0 %s: %s", spd[m],
              kryl_last_error());
        const bool ic_ok = st == KRYL_SUCCESS;
        kryl_factor_free(&F);
        CHECK_OK(kryl_factor_mic0(&A, &F));
        CHECK(ic_ok == (F.shift == 0.0), "mic0 %s: shift %g, ic0 %s", spd[m], F.shift,
              ic_ok ? "succeeded" : "failed");
        CHECK(F.fill_in == 0, "mic0 %s fill", spd[m]);
        CHECK(isfinite(solve_error(&A, &F)), "mic0 %s solve", spd[m]);
        printf("%s: ic0 %s, mic0 alpha %g\n", spd[m], ic_ok ? "ok" : "breaks down", F.shift);
        kryl_factor_free(&F);
        kryl_csr_free(&A);
    }
    const char *nonsym[] = {"sherman1.mtx", "pores_1.mtx"};
    for (int m = 0; m < 2; m++) {
        kryl_csr A;
        if (!read_matrix(nonsym[m], &A)) continue;
        found++;
        kryl_factor F;
        CHECK_OK(kryl_factor_ilu0(&A, &F));
        CHECK(F.fill_in == 0 && F.nnz_L + F.nnz_U == kryl_csr_nnz(&A), "ilu0 %s pattern",
              nonsym[m]);
        kryl_factor_free(&F);
        CHECK_OK(kryl_factor_iluk(&A, 2, &F));
        CHECK(F.fill_in > 0, "iluk(2) %s has fill", nonsym[m]);
        kryl_factor_free(&F);
        CHECK_OK(kryl_factor_ilut(&A, 1e-3, 10, &F));
        CHECK(isfinite(solve_error(&A, &F)), "ilut %s solve", nonsym[m]);
        kryl_factor_free(&F);
        kryl_csr_free(&A);
    }
    /* Chow & Saad's condest: fidap_ex6's ILU(2) is unstable (GMRES diverges
     * with it), its ILU(0) and ILU(1) are not */
    kryl_csr X;
    if (read_matrix("fidap_ex6.mtx", &X)) {
        found++;
        const double bound[3][2] = {{1.0, 1e8}, {1e8, KRYL_ILU_CONDEST_MAX}, {1e30, INFINITY}};
        for (int k = 0; k < 3; k++) {
            kryl_factor F;
            double c;
            CHECK_OK(kryl_factor_iluk(&X, k, &F));
            CHECK_OK(kryl_factor_condest(&F, &X, &c));
            CHECK(c >= bound[k][0] && c <= bound[k][1], "fidap_ex6 ILU(%d): condest %.2e", k, c);
            kryl_factor_free(&F);
        }
        kryl_csr_free(&X);
    }
    const double D[] = {4, 1, 0, 1, 3, 1, 0, 1, 2};
    kryl_csr S;
    csr_from_dense(&S, D, 3);
    kryl_factor LU;
    double c;
    CHECK_OK(kryl_factor_iluk(&S, 3, &LU));
    CHECK_OK(kryl_factor_condest(&LU, &S, &c));
    /* ||A||_inf ||A^{-1} 1||_inf = 5 (4/9) */
    CHECK(fabs(c - 20.0 / 9.0) < 1e-14, "dense 3x3 exact LU: condest %.17g, expected 20/9", c);
    kryl_factor_free(&LU);
    kryl_csr_free(&S);
    kryl_csr W;
    if (read_matrix("west0067.mtx", &W)) {
        found++;
        kryl_factor F;
        CHECK_STATUS(kryl_factor_ilu0(&W, &F), KRYL_ERR_ZERO_DIAGONAL);
        CHECK(strstr(kryl_last_error(), "row ") != NULL, "message: %s", kryl_last_error());
        kryl_csr_free(&W);
    }
    return found;
}

int main(void)
{
    check_small();
    check_refusals();
    if (check_real() == 0) printf("test_factor: real matrices absent, those checks skipped\n");
    return test_summary("test_factor");
}
