/* kryl_matrix_create_csr_device on every available backend, from arrays in
 * the backend's own memory (device memory on cuda, host memory on ref and
 * omp): the matrix equals the one created from host arrays (size, SpMV, a
 * GMRES solve); on cuda that solve, and CG, PCG and pipelined CG with
 * Jacobi (symmetry and diagonal checked on the device), make no host copy,
 * and the first host-side step (IC(0)) makes it once and says so; a
 * nonsymmetric matrix, a zero and a negative diagonal entry are refused
 * by name without one; faulty
 * arrays (decreasing offsets, a column out of range, unsorted or repeated
 * columns, NaN, a wrong nnz) are refused naming the row, without a crash. */
#include "backends/backend.h"
#include "test_krylov_support.h"

/* bytes of backend memory holding `values` */
static void *backend_copy(kryl_context ctx, const void *values, size_t bytes)
{
    const kryl_backend_ops *ops = ctx->ops;
    void *p = NULL;
    CHECK_OK(ops->alloc(ctx, &p, bytes > 0 ? bytes : 1));
    if (p != NULL && bytes > 0) CHECK_OK(ops->upload(ctx, p, values, bytes));
    CHECK_OK(ops->synchronize(ctx));
    return p;
}

/* The host CSR arrays of A, copied (columns int32, as the call takes them). */
typedef struct host_csr {
    int64_t n, nnz;
    int64_t *row_ptr;
    int32_t *col;
    double *val;
} host_csr;

static host_csr copy_of(kryl_matrix A)
{
    host_csr h;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    CHECK_OK(kryl_matrix_size(A, &h.n, NULL, &h.nnz));
    CHECK_OK(kryl_matrix_csr_view(A, &rp, &ci, &v));
    h.row_ptr = malloc((size_t)(h.n + 1) * sizeof *h.row_ptr);
    h.col = malloc((size_t)h.nnz * sizeof *h.col);
    h.val = malloc((size_t)h.nnz * sizeof *h.val);
    memcpy(h.row_ptr, rp, (size_t)(h.n + 1) * sizeof *h.row_ptr);
    memcpy(h.col, ci, (size_t)h.nnz * sizeof *h.col);
    memcpy(h.val, v, (size_t)h.nnz * sizeof *h.val);
    return h;
}

/* The status of creating a matrix from h's arrays, put in backend memory. */
static kryl_status create_from(kryl_context ctx, const host_csr *h, int64_t nnz, kryl_matrix *A)
{
    void *rp = backend_copy(ctx, h->row_ptr, (size_t)(h->n + 1) * sizeof *h->row_ptr);
    void *ci = backend_copy(ctx, h->col, (size_t)h->nnz * sizeof *h->col);
    void *v = backend_copy(ctx, h->val, (size_t)h->nnz * sizeof *h->val);
    kryl_status st = kryl_matrix_create_csr_device(A, ctx, h->n, h->n, nnz, rp, ci, v);
    /* the matrix holds its own copies */
    ctx->ops->release(ctx, rp);
    ctx->ops->release(ctx, ci);
    ctx->ops->release(ctx, v);
    return st;
}

/* One fault in a copy of h: refused with `status`, the message saying `named`. */
static void check_refusal(kryl_context ctx, const host_csr *h, int64_t nnz, kryl_status status,
                          const char *named, const char *what)
{
    kryl_matrix A = NULL;
    CHECK_STATUS(create_from(ctx, h, nnz, &A), status);
    CHECK(A == NULL, "%s: a refused matrix was returned", what);
    CHECK(strstr(kryl_last_error(), named) != NULL, "%s: the refusal does not name '%s': %s", what,
          named, kryl_last_error());
}

static void check_faults(kryl_context ctx, const host_csr *good)
{
    host_csr h = *good;
    const int64_t row = 5, k = good->row_ptr[row] + 1;
    h.row_ptr = malloc((size_t)(good->n + 1) * sizeof *h.row_ptr);
    h.col = malloc((size_t)good->nnz * sizeof *h.col);
    h.val = malloc((size_t)good->nnz * sizeof *h.val);
#define RESET()                                                                                    \
    do {                                                                                           \
        memcpy(h.row_ptr, good->row_ptr, (size_t)(good->n + 1) * sizeof *h.row_ptr);               \
        memcpy(h.col, good->col, (size_t)good->nnz * sizeof *h.col);                               \
        memcpy(h.val, good->val, (size_t)good->nnz * sizeof *h.val);                               \
    } while (0)
    RESET();
    h.row_ptr[row + 1] = h.row_ptr[row] - 1;
    check_refusal(ctx, &h, h.nnz, KRYL_ERR_INVALID_ARGUMENT, "row 5", "decreasing offsets");
    RESET();
    h.col[k] = (int32_t)h.n;
    check_refusal(ctx, &h, h.nnz, KRYL_ERR_INDEX_OUT_OF_RANGE, "row 5", "a column out of range");
    RESET();
    h.col[k] = h.col[k - 1];
    check_refusal(ctx, &h, h.nnz, KRYL_ERR_INVALID_ARGUMENT, "row 5", "a repeated column");
    RESET();
    h.val[k] = NAN;
    check_refusal(ctx, &h, h.nnz, KRYL_ERR_INVALID_VALUE, "row 5", "a NaN");
    RESET();
    char last[32];
    snprintf(last, sizeof last, "row_ptr[%lld]", (long long)h.n);
    check_refusal(ctx, &h, h.nnz - 1, KRYL_ERR_INVALID_ARGUMENT, last, "a wrong nnz");
#undef RESET
    kryl_matrix A = NULL;
    CHECK_STATUS(kryl_matrix_create_csr_device(&A, ctx, h.n, h.n, h.nnz, NULL, NULL, NULL),
                 KRYL_ERR_INVALID_ARGUMENT);
    free(h.row_ptr);
    free(h.col);
    free(h.val);
}

/* A copy of h with entry k set to value, created from backend arrays; a
 * solver of method and precond for it is refused with `status`, the
 * message naming `named`, without a host copy on cuda. */
static void check_method_refusal(kryl_context ctx, const host_csr *good, int64_t k, double value,
                                 kryl_method method, kryl_precond_kind precond, kryl_status status,
                                 const char *named)
{
    const char *name = kryl_backend_name(kryl_context_backend(ctx));
    host_csr h = *good;
    h.val = malloc((size_t)good->nnz * sizeof *h.val);
    memcpy(h.val, good->val, (size_t)good->nnz * sizeof *h.val);
    h.val[k] = value;
    kryl_matrix A = NULL;
    CHECK_OK(create_from(ctx, &h, h.nnz, &A));
    kryl_solver_options o;
    kt_options(&o, method, precond, 1e-10, 100);
    kryl_solver s = NULL;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), status);
    CHECK(strstr(kryl_last_error(), named) != NULL, "%s: %s refused without naming '%s': %s", name,
          kryl_method_name(method), named, kryl_last_error());
    bool has_copy = false;
    CHECK_OK(kryl_matrix_host_copy(A, &has_copy, NULL));
    CHECK(has_copy == (kryl_context_backend(ctx) != KRYL_BACKEND_CUDA),
          "%s: the refusal '%s' made a host copy", name, named);
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&A);
    free(h.val);
}

/* Row 5's diagonal entry and an entry beside it: a nonsymmetric matrix, a
 * zero and a negative diagonal entry, refused by the checks on the device. */
static void check_method_refusals(kryl_context ctx, const host_csr *h)
{
    const int64_t row = 5;
    int64_t diag = -1, off = -1;
    for (int64_t k = h->row_ptr[row]; k < h->row_ptr[row + 1]; k++) {
        if (h->col[k] == row) diag = k;
        if (h->col[k] != row && off < 0) off = k;
    }
    CHECK(diag >= 0 && off >= 0, "row 5 has no diagonal or no other entry");
    if (diag < 0 || off < 0) return;
    check_method_refusal(ctx, h, off, 7.0, KRYL_METHOD_CG, KRYL_PRECOND_NONE,
                         KRYL_ERR_NOT_SYMMETRIC, "not symmetric");
    check_method_refusal(ctx, h, diag, 0.0, KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI,
                         KRYL_ERR_ZERO_DIAGONAL, "row 5");
    check_method_refusal(ctx, h, diag, 0.0, KRYL_METHOD_GMRES, KRYL_PRECOND_JACOBI,
                         KRYL_ERR_ZERO_DIAGONAL, "row 5");
    check_method_refusal(ctx, h, diag, -4.0, KRYL_METHOD_CG, KRYL_PRECOND_NONE,
                         KRYL_ERR_NOT_POSITIVE_DEFINITE, "a_ii = -4 at row 5");
}

static double max_difference(const double *a, const double *b, int64_t n)
{
    double d = 0.0;
    for (int64_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* Whether a solve of A x = b through the solver API alone converges (no
 * host-side residual check, which would read A's host copy). */
static bool converges_on_device(kryl_matrix A, const kryl_solver_options *o, const double *b)
{
    kryl_solver s = NULL;
    kryl_vector bv = NULL, xv = NULL;
    kryl_result r = {0};
    kryl_status st = kryl_solver_create(&s, A, o);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&bv, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&xv, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_set(bv, b, kt_rows(A));
    if (st == KRYL_SUCCESS) st = kryl_solver_solve(s, bv, xv, &r);
    kryl_vector_destroy(&bv);
    kryl_vector_destroy(&xv);
    kryl_solver_destroy(&s);
    return st == KRYL_SUCCESS && r.converged;
}

static void check_backend(kryl_context ctx)
{
    const char *name = kryl_backend_name(kryl_context_backend(ctx));
    const bool device = kryl_context_backend(ctx) == KRYL_BACKEND_CUDA;
    kryl_matrix H = kt_generate(ctx, KRYL_GEN_POISSON2D5, 33);
    host_csr h = copy_of(H);
    kryl_matrix A = NULL;
    CHECK_OK(create_from(ctx, &h, h.nnz, &A));
    int64_t n = 0, m = 0, nnz = 0;
    CHECK_OK(kryl_matrix_size(A, &n, &m, &nnz));
    CHECK(n == h.n && m == h.n && nnz == h.nnz, "%s: size %lld x %lld, %lld entries", name,
          (long long)n, (long long)m, (long long)nnz);
    bool has_copy = true;
    const char *why = NULL;
    CHECK_OK(kryl_matrix_host_copy(A, &has_copy, &why));
    CHECK(has_copy == !device, "%s: a host copy %s after creation", name,
          has_copy ? "exists" : "is missing");

    /* y = A x equals the host-created matrix's */
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *y_host = malloc((size_t)n * sizeof *y_host);
    test_random_values(x, n, 3);
    kryl_vector xv = NULL, yv = NULL;
    CHECK_OK(kryl_vector_create(&xv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&yv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(xv, x, n));
    CHECK_OK(kryl_matrix_spmv(A, 1.0, xv, 0.0, yv));
    CHECK_OK(kryl_vector_get(yv, y, n));
    CHECK_OK(kryl_matrix_spmv(H, 1.0, xv, 0.0, yv));
    CHECK_OK(kryl_vector_get(yv, y_host, n));
    CHECK(max_difference(y, y_host, n) == 0.0, "%s: SpMV differs by %g", name,
          max_difference(y, y_host, n));

    /* GMRES without preconditioner sets up on the device: no host copy */
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_NONE, 1e-10, 2000);
    CHECK(converges_on_device(A, &o, y_host), "%s: gmres on the device matrix failed", name);
    CHECK_OK(kryl_matrix_host_copy(A, &has_copy, &why));
    CHECK(has_copy == !device, "%s: gmres made a host copy (%s)", name, why);

    /* CG, PCG and pipelined CG with Jacobi check symmetry and the diagonal
     * where A is stored, and Jacobi inverts it there: still no host copy */
    const kryl_method cgs[] = {KRYL_METHOD_CG, KRYL_METHOD_PCG, KRYL_METHOD_PIPECG};
    for (size_t k = 0; k < sizeof cgs / sizeof *cgs; k++) {
        kt_options(&o, cgs[k], k == 0 ? KRYL_PRECOND_NONE : KRYL_PRECOND_JACOBI, 1e-10, 2000);
        CHECK(converges_on_device(A, &o, y_host), "%s: %s on the device matrix failed", name,
              kryl_method_name(cgs[k]));
        CHECK_OK(kryl_matrix_host_copy(A, &has_copy, &why));
        CHECK(has_copy == !device, "%s: %s made a host copy (%s)", name, kryl_method_name(cgs[k]),
              why);
    }
    /* CG in SELL: the format is converted on the device, still no host copy */
    kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_NONE, 1e-10, 2000);
    o.format = KRYL_FORMAT_SELL;
    CHECK(converges_on_device(A, &o, y_host), "%s: cg in sell on the device matrix failed", name);
    CHECK_OK(kryl_matrix_host_copy(A, &has_copy, &why));
    CHECK(has_copy == !device, "%s: cg in sell made a host copy (%s)", name, why);
    double asymmetry = -1.0;
    CHECK_OK(kryl_matrix_asymmetry(A, &asymmetry));
    CHECK(asymmetry == 0.0, "%s: asymmetry %g of a symmetric matrix", name, asymmetry);

    /* IC(0) is factored on the host: the copy is made, once, and named */
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, 1e-10, 2000);
    kt_solve s = kt_run(A, &o, y_host, NULL, NULL);
    CHECK(s.create == KRYL_SUCCESS && s.r.converged, "%s: ic0-pcg on the device matrix failed",
          name);
    CHECK_OK(kryl_matrix_host_copy(A, &has_copy, &why));
    CHECK(has_copy, "%s: ic0 ran without a host copy", name);
    CHECK(!device || strstr(why, "ic0") != NULL, "%s: the copy's reason is '%s'", name, why);
    host_csr back = copy_of(A);
    CHECK(memcmp(back.row_ptr, h.row_ptr, (size_t)(n + 1) * sizeof *h.row_ptr) == 0 &&
              memcmp(back.col, h.col, (size_t)nnz * sizeof *h.col) == 0 &&
              memcmp(back.val, h.val, (size_t)nnz * sizeof *h.val) == 0,
          "%s: the host copy differs from the arrays given", name);

    check_faults(ctx, &h);
    check_method_refusals(ctx, &h);

    kryl_vector_destroy(&xv);
    kryl_vector_destroy(&yv);
    kryl_matrix_destroy(&A);
    kryl_matrix_destroy(&H);
    free(x);
    free(y);
    free(y_host);
    free(h.row_ptr);
    free(h.col);
    free(h.val);
    free(back.row_ptr);
    free(back.col);
    free(back.val);
}

int main(void)
{
    kt_each_backend(check_backend);
    return test_summary("test_cuda_matrix_device");
}
