/* libFuzzer harness for the solvers: each input becomes a small matrix
 * assembled through the public API (awkward values: tiny, huge, subnormal,
 * zero rows, duplicates), a right-hand side and a start, and is solved with
 * every method and the preconditioners that apply, on ref.  Every call must
 * succeed or fail with a message; a solve that returns must give a finite
 * x no worse than x0 (||b - Ax|| <= ||b - Ax0||), and one reported as
 * converged must meet its tolerance, both by residuals recomputed here in
 * long double up to the rounding a double evaluation carries. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kryl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_N 16

static const double table[16] = {0.0,  1.0,  -1.0, 2.0,  0.5, 1e-300,   -1e-300, 1e300,
                                 -1e8, 1e-8, 3.0,  -7.0, 1e8, 4.9e-324, 0.1,     100.0};

/* A value from a byte: an entry of the table, scaled by 1 + (v >> 4) / 16. */
static double value_of(uint8_t v) { return table[v & 15] * (1.0 + (v >> 4) / 16.0); }

static void require(bool ok) { ok ? (void)0 : abort(); }

/* A failure must say what was wrong. */
static void explained(kryl_status st)
{
    if (st != KRYL_SUCCESS) require(kryl_last_error()[0] != '\0');
}

/* ||b - A x|| by the host CSR, in long double, and in *noise the error a
 * residual evaluated in double may carry: 2 (n + 1) eps || |A| |x| + |b| ||
 * (Higham, Accuracy and Stability of Numerical Algorithms, 2002, sec. 3.1). */
static double residual(kryl_matrix A, const double *b, const double *x, int64_t n, double *noise)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    require(kryl_matrix_csr_view(A, &rp, &ci, &v) == KRYL_SUCCESS);
    long double sum = 0.0L, scale = 0.0L;
    for (int64_t i = 0; i < n; i++) {
        long double r = b[i], m = fabs(b[i]);
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            r -= (long double)v[k] * x[ci[k]];
            m += fabsl((long double)v[k] * x[ci[k]]);
        }
        sum += r * r;
        scale += m * m;
    }
    *noise = 2.0 * (double)(n + 1) * DBL_EPSILON * (double)sqrtl(scale);
    return (double)sqrtl(sum);
}

static void solve_with(kryl_matrix A, kryl_method method, kryl_precond_kind precond,
                       const double *b, const double *x0, int64_t n)
{
    kryl_solver_options opt;
    kryl_solver_options_init(&opt);
    opt.method = method;
    opt.precond = precond;
    opt.max_iterations = 60;
    opt.restart = 5;
    kryl_solver s = NULL;
    kryl_status st = kryl_solver_create(&s, A, &opt);
    explained(st);
    if (st != KRYL_SUCCESS) return;
    kryl_vector vb = NULL, vx = NULL;
    require(kryl_vector_create(&vb, A, KRYL_DOUBLE) == KRYL_SUCCESS);
    require(kryl_vector_create(&vx, A, KRYL_DOUBLE) == KRYL_SUCCESS);
    require(kryl_vector_set(vb, b, n) == KRYL_SUCCESS);
    require(kryl_vector_set(vx, x0, n) == KRYL_SUCCESS);
    kryl_result r;
    st = kryl_solver_solve(s, vb, vx, &r);
    explained(st);
    if (st == KRYL_SUCCESS) {
        double x[MAX_N];
        require(kryl_vector_get(vx, x, n) == KRYL_SUCCESS);
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(x[i])) {
                fprintf(stderr, "non-finite x: %s %s reason %s\n", kryl_method_name(method),
                        kryl_precond_name(precond), kryl_reason_name(r.reason));
                abort();
            }
        double noise, noise0;
        double res = residual(A, b, x, n, &noise), res0 = residual(A, b, x0, n, &noise0);
        /* never worse than the start, up to the rounding of both residuals */
        if (!(res <= res0 + noise + noise0)) {
            fprintf(stderr, "||b - Ax|| = %g > ||b - Ax0|| = %g: %s %s, reason %s\n", res, res0,
                    kryl_method_name(method), kryl_precond_name(precond),
                    kryl_reason_name(r.reason));
            abort();
        }
        if (r.converged) {
            double tol = fmax(opt.rtol * r.bnorm, opt.atol);
            if (!(res <= 1.01 * tol + noise)) {
                fprintf(stderr, "converged with ||b - Ax|| = %g > %g + %g: %s %s\n", res, tol,
                        noise, kryl_method_name(method), kryl_precond_name(precond));
                abort();
            }
        }
    }
    kryl_vector_destroy(&vb);
    kryl_vector_destroy(&vx);
    require(kryl_solver_destroy(&s) == KRYL_SUCCESS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static kryl_context ctx;
    if (ctx == NULL) {
        kryl_context_options o;
        kryl_context_options_init(&o);
        o.backend = KRYL_BACKEND_REF;
        require(kryl_context_create(&ctx, &o) == KRYL_SUCCESS);
    }
    if (size < 2) return 0;
    const int64_t n = 1 + data[0] % MAX_N;
    const bool mirror = data[1] & 1, dominant = data[1] & 2, start = data[1] & 4;
    data += 2;
    size -= 2;
    kryl_assembly as = NULL;
    require(kryl_assembly_create(&as, ctx, n, n, 0, n) == KRYL_SUCCESS);
    /* b and x0 from the first 2n bytes (b = 1 where they run out), then entries */
    double b[MAX_N], x0[MAX_N], diag[MAX_N] = {0};
    for (int64_t i = 0; i < n; i++) {
        b[i] = (size_t)i < size ? value_of(data[i]) : 1.0;
        x0[i] = start && (size_t)(n + i) < size ? value_of(data[n + i]) : 0.0;
    }
    size_t used = (size_t)(2 * n) < size ? (size_t)(2 * n) : size;
    for (size_t k = used; k + 3 <= size; k += 3) {
        int64_t i = data[k] % n, j = data[k + 1] % n;
        double v = value_of(data[k + 2]);
        /* a_ij += v (and a_ji += v for a symmetric matrix) */
        explained(kryl_assembly_add_value(as, i, j, v));
        if (mirror && i != j) explained(kryl_assembly_add_value(as, j, i, v));
        diag[i] += fabs(v);
        if (mirror) diag[j] += fabs(v);
    }
    for (int64_t i = 0; dominant && i < n; i++)
        explained(kryl_assembly_add_value(as, i, i, isfinite(diag[i]) ? diag[i] + 1.0 : 1.0));
    kryl_matrix A = NULL;
    kryl_status st = kryl_assembly_finish(as, &A);
    explained(st);
    kryl_assembly_destroy(&as);
    if (st != KRYL_SUCCESS) return 0;
    static const kryl_method methods[] = {KRYL_METHOD_CG, KRYL_METHOD_PCG, KRYL_METHOD_PIPECG,
                                          KRYL_METHOD_GMRES, KRYL_METHOD_BICGSTAB};
    static const kryl_precond_kind preconds[] = {KRYL_PRECOND_NONE, KRYL_PRECOND_JACOBI,
                                                 KRYL_PRECOND_ILU0, KRYL_PRECOND_IC0};
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++)
        for (size_t p = 0; p < sizeof preconds / sizeof preconds[0]; p++)
            if (!(methods[m] == KRYL_METHOD_PCG && preconds[p] == KRYL_PRECOND_NONE))
                solve_with(A, methods[m], preconds[p], b, x0, n);
    require(kryl_matrix_destroy(&A) == KRYL_SUCCESS);
    return 0;
}
