/* The cuda backend's SpMV in every storage format against the ref backend's
 * kernels, in float and double: random matrices of awkward shapes and sizes
 * (every kernel variant, x with and without the read-only cache, z absent,
 * distinct and equal to y, the stop guard), the same shapes with the
 * refusal limits lifted (so every kernel meets dense rows and empty rows),
 * SELL with other slice heights, generated matrices (one large enough for
 * the evict-first loads of the matrix), band matrices in DIA and real ones; then PCG in
 * each format on the GPU (true residual, iterations within one of CSR) and
 * the device model.  After each conversion, new values on the same pattern
 * (from the host or from device memory) reach the format's slots through
 * its device value map and match ref's products again.  Formats the device
 * converts (ELL, ELLR, JDS, pJDS, SELL, DIA) are held entry by entry to the
 * host's kryl_fmt_build, also for a matrix created from device arrays, which
 * the conversion leaves without a host copy.  Skipped (77) without a usable CUDA device.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#ifdef KRYL_HAVE_CUDA
#include "backends/cuda/cuda_hooks.h"
#endif
#include "test_krylov_support.h"

#ifdef KRYL_HAVE_CUDA

static kryl_context ref_ctx, gpu_ctx;
static int formats_refused, products_checked;

static double tolerance(kryl_precision p) { return p == KRYL_DOUBLE ? 1e-12 : 2e-6; }

/* A copy of A's arrays (the matrices take ownership of theirs). */
static void csr_copy(kryl_csr *out, const kryl_csr *A)
{
    const int64_t nnz = kryl_csr_nnz(A);
    CHECK_OK(kryl_csr_alloc(out, A->nrows, A->ncols, nnz));
    memcpy(out->row_ptr, A->row_ptr, (size_t)(A->nrows + 1) * sizeof *A->row_ptr);
    memcpy(out->col_idx, A->col_idx, (size_t)(nnz ? nnz : 1) * sizeof *A->col_idx);
    memcpy(out->values, A->values, (size_t)(nnz ? nnz : 1) * sizeof *A->values);
}

/* The kernel variants of a format on cuda (kryl_cuda_fmt_select). */
static int variants_of(kryl_format f, int *variants)
{
    switch (f) {
    case KRYL_FORMAT_JDS:
        variants[0] = KRYL_CUDA_FMT_JDS_ROW;
        variants[1] = KRYL_CUDA_FMT_JDS_DIAGONAL;
        return 2;
    case KRYL_FORMAT_DIA:
        variants[0] = 1;
        variants[1] = 2;
        return 2;
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4:
        for (int k = 0; k < 6; k++) variants[k] = 1 << k;
        return 6;
    case KRYL_FORMAT_CSR: return 0;
    default: variants[0] = 0; return 1;
    }
}

/* Vectors of B's layout in B's precision on both contexts, set to values. */
static void vectors_like(kryl_matrix B[2], kryl_vector v[2], const double *values, int64_t n)
{
    for (int b = 0; b < 2; b++) {
        CHECK_OK(kryl_vector_create_like(&v[b], B[b]->ctx, B[b]->layout, B[b]->precision));
        CHECK_OK(kryl_vector_set(v[b], values, n));
    }
}

/* The cuda y against the ref y; returns the relative difference. */
static double compare(kryl_vector y[2], int64_t n)
{
    double *r = malloc((size_t)(n ? n : 1) * sizeof *r),
           *g = malloc((size_t)(n ? n : 1) * sizeof *g);
    CHECK_OK(kryl_vector_get(y[0], r, n));
    CHECK_OK(kryl_vector_get(y[1], g, n));
    double d = test_rel_diff(g, r, n);
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(g[i])) d = INFINITY;
    free(r);
    free(g);
    return d;
}

/* y = alpha*B*x + beta*z on both sides for z NULL, z distinct and z = y,
 * then the stop guard: a stopped product leaves y alone. */
static void check_products(kryl_matrix B[2], const char *label, uint64_t seed)
{
    const int64_t n = B[0]->fmt.nrows;
    const kryl_precision p = B[0]->precision;
    double *xs = malloc((size_t)(n ? n : 1) * sizeof *xs);
    double *zs = malloc((size_t)(n ? n : 1) * sizeof *zs);
    test_random_values(xs, n, seed);
    test_random_values(zs, n, seed + 1);
    kryl_vector x[2], z[2], y[2];
    vectors_like(B, x, xs, n);
    vectors_like(B, z, zs, n);
    vectors_like(B, y, xs, n); /* y starts as x's values: NaN-free, not zero */
    const double cases[3][2] = {{1.5, 0.0}, {-0.5, 2.0}, {1.0, -1.0}};
    for (int c = 0; c < 3; c++) {
        for (int b = 0; b < 2; b++) {
            const kryl_context ctx = B[b]->ctx;
            kryl_vector zz = c == 0 ? NULL : c == 1 ? z[b] : y[b];
            CHECK_OK(ctx->ops->spmv(ctx, B[b], cases[c][0], x[b], cases[c][1], zz, y[b], NULL));
        }
        double d = compare(y, n);
        CHECK(d <= tolerance(p), "%s: y = %g A x + %g %s differs from ref by %g", label,
              cases[c][0], cases[c][1],
              c == 0   ? "(no z)"
              : c == 1 ? "z"
                       : "y",
              d);
        products_checked++;
    }
    /* the fused y = B x, x'y (spmv_dot) against ref's product and dot */
    const kryl_context g = B[1]->ctx;
    if (B[0]->fmt.ncols == n && g->ops->spmv_dot) {
        const kryl_context r = B[0]->ctx;
        double *dots = NULL;
        CHECK_OK(g->ops->alloc(g, (void **)&dots, sizeof *dots));
        double ref_dot = 0.0, fused_dot = 0.0;
        CHECK_OK(r->ops->spmv(r, B[0], 1.0, x[0], 0.0, NULL, y[0], NULL));
        CHECK_OK(r->ops->dot(r, x[0], y[0], (kryl_scalar){&ref_dot}));
        CHECK_OK(g->ops->spmv_dot(g, B[1], x[1], y[1], (kryl_scalar){dots}, NULL));
        CHECK_OK(g->ops->download(g, &fused_dot, dots, sizeof fused_dot));
        double d = compare(y, n);
        CHECK(d <= tolerance(p) &&
                  fabs(fused_dot - ref_dot) <= tolerance(p) * (fabs(ref_dot) + (double)n),
              "%s: spmv_dot: y differs from ref by %g, x'y by %g", label, d, fused_dot - ref_dot);
        g->ops->release(g, dots);
        products_checked++;
    }
    /* a stopped monitor: the product does nothing */
    kryl_monitor host = {0};
    host.stop = KRYL_STOP_CONVERGED;
    kryl_monitor *mon = NULL;
    CHECK_OK(g->ops->alloc(g, (void **)&mon, sizeof *mon));
    CHECK_OK(g->ops->upload(g, mon, &host, sizeof host));
    CHECK_OK(g->ops->spmv(g, B[1], 3.0, x[1], 0.0, NULL, y[1], mon));
    CHECK(compare(y, n) <= tolerance(p), "%s: a stopped product changed y", label);
    g->ops->release(g, mon);
    for (int b = 0; b < 2; b++) {
        kryl_vector_destroy(&x[b]);
        kryl_vector_destroy(&y[b]);
        kryl_vector_destroy(&z[b]);
    }
    free(xs);
    free(zs);
}

/* New values on A's pattern, on both contexts alike (from the host, or on
 * cuda from a device array when `device`), then B (converted from A) takes
 * them (on cuda through its device value map, from A's device values):
 * B's products match ref's again, and in double the inverse diagonal made
 * on the device (kryl_precond jacobi's update) is 1 / a_ii of the new values. */
static void check_new_values(kryl_matrix A[2], kryl_matrix B[2], const char *label, uint64_t seed,
                             bool device)
{
    const kryl_csr *h = &A[0]->host->csr;
    const int64_t nnz = kryl_csr_nnz(h), n = h->nrows;
    double *w = malloc((size_t)(nnz ? nnz : 1) * sizeof *w);
    test_random_values(w, nnz, seed);
    const kryl_context g = gpu_ctx;
    double *dw = NULL;
    CHECK_OK(kryl_matrix_update_values(A[0], w));
    if (device) {
        CHECK_OK(g->ops->alloc(g, (void **)&dw, (size_t)(nnz ? nnz : 1) * sizeof *dw));
        CHECK_OK(g->ops->upload(g, dw, w, (size_t)nnz * sizeof *dw));
        CHECK_OK(kryl_matrix_update_values_device(A[1], dw));
        g->ops->release(g, dw);
    } else {
        CHECK_OK(kryl_matrix_update_values(A[1], w));
    }
    for (int b = 0; b < 2; b++) CHECK_OK(kryl_matrix_refresh_values(B[b], A[b]));
    char full[360];
    snprintf(full, sizeof full, "%s, new values from the %s", label, device ? "device" : "host");
    check_products(B, full, seed + 3);
    if (B[1]->precision == KRYL_DOUBLE && B[1]->fmt.nrows == B[1]->fmt.ncols) {
        double *expect = malloc((size_t)(n ? n : 1) * sizeof *expect);
        double *got = malloc((size_t)(n ? n : 1) * sizeof *got);
        kryl_csr_diagonal(h, expect);
        bool zero = false;
        for (int64_t i = 0; i < n; i++) {
            zero = zero || expect[i] == 0.0;
            expect[i] = expect[i] == 0.0 ? 0.0 : 1.0 / expect[i];
        }
        kryl_vector d = NULL;
        int64_t zero_row = -2;
        CHECK_OK(kryl_vector_create_like(&d, g, B[1]->layout, KRYL_DOUBLE));
        CHECK_OK(g->ops->matrix_inverse_diagonal(g, B[1], d, &zero_row));
        CHECK_OK(kryl_vector_get(d, got, n));
        CHECK(test_rel_diff(got, expect, n) == 0.0 && (zero_row >= 0) == zero && zero_row < n &&
                  zero_row >= -1,
              "%s: inverse diagonal differs by %g, zero row %lld (a zero: %d)", full,
              test_rel_diff(got, expect, n), (long long)zero_row, (int)zero);
        kryl_vector_destroy(&d);
        free(expect);
        free(got);
    }
    free(w);
}

/* B (converted on cuda from the matrix whose host copy is h) holds, entry
 * by entry, what kryl_fmt_build makes on the host: the permutation, every
 * pointer, column, row length and value slot (in B's precision); and a
 * format the device converts was converted there. */
static void check_layout(const kryl_csr *h, kryl_matrix B, const kryl_fmt_params *params,
                         const char *label)
{
    const kryl_format kind = B->fmt.kind;
    if (kind == KRYL_FORMAT_CSR || kind == KRYL_FORMAT_BCSR2 || kind == KRYL_FORMAT_BCSR4) return;
    CHECK(B->fmt.on_backend, "%s: converted on the host, not on the device", label);
    kryl_fmt F;
    kryl_cuda_fmt_copy c;
    CHECK_OK(kryl_fmt_build(h, kind, NULL, params, &F));
    CHECK_OK(kryl_cuda_fmt_download(B, &c));
    const int64_t n = F.nrows, stored = F.stored;
    CHECK(c.stored == stored && B->fmt.stored == stored, "%s: %lld slots on the device, %lld built",
          label, (long long)c.stored, (long long)stored);
    const int32_t *perm = B->layout->perm;
    CHECK((F.perm == NULL) == (perm == NULL) &&
              (perm == NULL || memcmp(F.perm, perm, (size_t)n * sizeof *perm) == 0),
          "%s: the permutations differ", label);
    double *val;
    int64_t count, bad = -1;
    kryl_fmt_values(&F, &val, &count);
    for (int64_t k = 0; k < stored && c.stored == stored && bad < 0; k++) {
        const double want = B->precision == KRYL_SINGLE ? (double)(float)val[k] : val[k];
        if (c.val[k] != want) bad = k;
    }
    CHECK(bad < 0, "%s: value slot %lld differs", label, (long long)bad);
    const int32_t *col = NULL, *row_len = NULL;
    const int64_t *ptr = NULL, *shape = NULL;
    switch (kind) {
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR:
        col = F.u.ell.col;
        row_len = F.u.ell.row_len;
        break;
    case KRYL_FORMAT_JDS:
        col = F.u.jds.col;
        row_len = F.u.jds.row_len;
        ptr = F.u.jds.diag_ptr;
        shape = B->fmt.u.jds.diag_ptr;
        break;
    case KRYL_FORMAT_DIA:
        CHECK(c.ndiag == F.u.dia.ndiag && B->fmt.u.dia.ndiag == F.u.dia.ndiag,
              "%s: %lld diagonals on the device, %lld built", label, (long long)c.ndiag,
              (long long)F.u.dia.ndiag);
        for (int64_t d = 0; d < c.ndiag && c.ndiag == F.u.dia.ndiag; d++)
            CHECK(c.offset[d] == F.u.dia.offset[d] && B->fmt.u.dia.offset[d] == F.u.dia.offset[d],
                  "%s: diagonal %lld has offset %d, built %lld", label, (long long)d, c.offset[d],
                  (long long)F.u.dia.offset[d]);
        break;
    default:
        col = F.u.sell.col;
        row_len = F.u.sell.row_len;
        ptr = F.u.sell.slice_ptr;
        shape = B->fmt.u.sell.slice_ptr;
        break;
    }
    if (col && stored > 0)
        CHECK(c.col && memcmp(c.col, col, (size_t)stored * sizeof *col) == 0,
              "%s: the column indices differ", label);
    if (row_len && c.row_len_count > 0)
        CHECK(c.row_len &&
                  memcmp(c.row_len, row_len, (size_t)c.row_len_count * sizeof *row_len) == 0,
              "%s: the row lengths differ", label);
    if (ptr)
        CHECK(c.ptr && memcmp(c.ptr, ptr, (size_t)c.ptr_count * sizeof *ptr) == 0 &&
                  memcmp(shape, ptr, (size_t)c.ptr_count * sizeof *ptr) == 0,
              "%s: the diagonal or slice offsets differ", label);
    kryl_cuda_fmt_copy_free(&c);
    kryl_fmt_free(&F);
}

/* Convert A (on both contexts) to `format`: both refuse it alike, or every
 * cuda kernel variant, with x through the read-only cache and without,
 * matches the ref kernel. */
static void check_format(kryl_matrix A[2], kryl_format format, kryl_precision p,
                         const kryl_fmt_params *params, const char *what, uint64_t seed)
{
    char label[256];
    snprintf(label, sizeof label, "%s %s %s", what, kryl_format_name(format),
             kryl_precision_name(p));
    kryl_matrix B[2] = {NULL, NULL};
    kryl_status st[2];
    char why[2][512];
    for (int b = 0; b < 2; b++) {
        st[b] = kryl_matrix_convert(&B[b], A[b], p, format, params, KRYL_ORDER_NONE);
        snprintf(why[b], sizeof why[b], "%s", kryl_last_error());
    }
    CHECK(st[0] == st[1], "%s: ref says %s (%s), cuda %s (%s)", label, kryl_strerror(st[0]), why[0],
          kryl_strerror(st[1]), why[1]);
    if (st[0] != KRYL_SUCCESS || st[1] != KRYL_SUCCESS) {
        CHECK(st[1] == KRYL_ERR_FORMAT_UNSUITABLE, "%s: %s", label, why[1]);
        CHECK(strlen(why[1]) > 20 && strcmp(why[0], why[1]) == 0,
              "%s: refusals differ or say nothing: '%s' / '%s'", label, why[0], why[1]);
        formats_refused++;
        kryl_matrix_destroy(&B[0]);
        kryl_matrix_destroy(&B[1]);
        return;
    }
    check_layout(&A[0]->host->csr, B[1], params, label);
    int variants[8];
    const int nv = variants_of(format, variants);
    if (nv == 0) check_products(B, label, seed);
    for (int v = 0; v < nv; v++) {
        CHECK_OK(kryl_cuda_fmt_select(B[1], variants[v]));
        for (int ro = 1; ro >= 0; ro--) {
            CHECK_OK(kryl_cuda_fmt_readonly_x(B[1], ro == 1));
            char kernel[64], full[360];
            kryl_cuda_spmv_describe(B[1], kernel, sizeof kernel);
            snprintf(full, sizeof full, "%s [%s]", label, kernel);
            check_products(B, full, seed + (uint64_t)(7 * v + ro));
        }
    }
    check_new_values(A, B, label, seed + 41, seed % 2 == 1);
    kryl_matrix_destroy(&B[0]);
    kryl_matrix_destroy(&B[1]);
}

static void check_all_formats(kryl_matrix A[2], const kryl_fmt_params *params, const char *what,
                              uint64_t seed)
{
    for (int pi = 0; pi < 2; pi++)
        for (int f = KRYL_FORMAT_CSR; f <= KRYL_FORMAT_DIA; f++)
            check_format(A, (kryl_format)f, pi ? KRYL_SINGLE : KRYL_DOUBLE, params, what, seed);
}

/* The same host CSR as a matrix on both contexts (csr is consumed). */
static void matrices_from(kryl_csr *csr, kryl_matrix A[2])
{
    kryl_csr copy;
    csr_copy(&copy, csr);
    CHECK_OK(kryl_matrix_from_csr(&A[0], ref_ctx, csr));
    CHECK_OK(kryl_matrix_from_csr(&A[1], gpu_ctx, &copy));
}

/* Limits lifted: every format is built, whatever its padding. */
static void permissive(kryl_fmt_params *p)
{
    kryl_fmt_params_init(p);
    p->max_padding = 1e9;
    p->max_block_fill = 1e9;
    p->max_diagonals = INT64_MAX;
}

static void test_random_shapes(void)
{
    kryl_fmt_params lifted, sliced;
    permissive(&lifted);
    for (int sh = 0; sh < TEST_SHAPE_COUNT; sh++) {
        for (int k = 0; k < test_awkward_size_count; k++) {
            const int64_t n = test_awkward_sizes[k];
            const uint64_t seed = 1000u * (uint64_t)sh + (uint64_t)k;
            kryl_csr csr;
            test_random_csr(&csr, (test_shape)sh, n, n, seed);
            kryl_matrix A[2];
            matrices_from(&csr, A);
            char what[96];
            snprintf(what, sizeof what, "%s n=%lld", test_shape_name((test_shape)sh), (long long)n);
            check_all_formats(A, NULL, what, seed);
            if (n <= 1000) { /* padded to the longest row: n^2 slots at most */
                snprintf(what, sizeof what, "%s n=%lld (limits lifted)",
                         test_shape_name((test_shape)sh), (long long)n);
                check_all_formats(A, &lifted, what, seed + 17);
            }
            for (int C = 8; C <= 64 && n >= 33; C *= 8) { /* slice heights other than a warp */
                permissive(&sliced);
                sliced.slice_height = C;
                snprintf(what, sizeof what, "%s n=%lld (C=%d)", test_shape_name((test_shape)sh),
                         (long long)n, C);
                check_format(A, KRYL_FORMAT_SELL, KRYL_DOUBLE, &sliced, what, seed + 29);
                check_format(A, KRYL_FORMAT_PJDS, KRYL_SINGLE, &sliced, what, seed + 31);
            }
            kryl_matrix_destroy(&A[0]);
            kryl_matrix_destroy(&A[1]);
        }
    }
}

/* kron(poisson2d(m), ones(b, b)) + I: dense b x b blocks on a 5-point grid. */
static void block_grid(kryl_csr *A, int64_t m, int64_t b)
{
    const int64_t n = m * m * b;
    CHECK_OK(kryl_csr_alloc(A, n, n, n * 5 * b));
    int64_t k = 0;
    for (int64_t p = 0; p < m * m; p++) {
        const int64_t px = p % m, py = p / m;
        const int64_t q[5] = {py > 0 ? p - m : -1, px > 0 ? p - 1 : -1, p, px < m - 1 ? p + 1 : -1,
                              py < m - 1 ? p + m : -1};
        for (int64_t r = 0; r < b; r++) {
            for (int t = 0; t < 5; t++) {
                if (q[t] < 0) continue;
                for (int64_t c = 0; c < b; c++) {
                    A->col_idx[k] = (int32_t)(q[t] * b + c);
                    A->values[k++] = q[t] == p ? 4.0 + (r == c ? 1.0 : 0.0) : -1.0;
                }
            }
            A->row_ptr[p * b + r + 1] = k;
        }
    }
}

/* A band matrix: a(i, i + offset[d]) = d + 1 + i % 7 inside the matrix. */
static void band(kryl_csr *A, int64_t n, const int64_t *offset, int count)
{
    CHECK_OK(kryl_csr_alloc(A, n, n, n * count));
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int d = 0; d < count; d++) {
            const int64_t j = i + offset[d];
            if (j < 0 || j >= n) continue;
            A->col_idx[k] = (int32_t)j;
            A->values[k++] = (double)(d + 1 + i % 7);
        }
        A->row_ptr[i + 1] = k;
    }
}

/* DIA kernels with the diagonal count as a constant (3, 5, 7) and with it
 * loaded (4, 8, 9: one pass and two), at awkward sizes: a band wider than
 * the matrix keeps fewer diagonals. */
static void test_bands(void)
{
    static const int64_t offsets[][9] = {
        {-1, 0, 1},    {-40, -1, 0, 1, 40},          {-1000, -33, -1, 0, 1, 33, 1000},
        {-2, 0, 1, 3}, {-9, -4, -3, -1, 0, 2, 5, 9}, {-64, -32, -2, -1, 0, 1, 2, 32, 64}};
    static const int counts[] = {3, 5, 7, 4, 8, 9};
    static const int64_t sizes[] = {1, 2, 31, 33, 1001, 40000};
    kryl_fmt_params lifted;
    permissive(&lifted);
    for (int b = 0; b < 6; b++) {
        for (int k = 0; k < 6; k++) {
            kryl_csr csr;
            band(&csr, sizes[k], offsets[b], counts[b]);
            kryl_matrix A[2];
            matrices_from(&csr, A);
            char what[64];
            snprintf(what, sizeof what, "band of %d diagonals n=%lld", counts[b],
                     (long long)sizes[k]);
            for (int pi = 0; pi < 2; pi++)
                check_format(A, KRYL_FORMAT_DIA, pi ? KRYL_SINGLE : KRYL_DOUBLE, &lifted, what,
                             8000 + 10 * (uint64_t)b + (uint64_t)k);
            kryl_matrix_destroy(&A[0]);
            kryl_matrix_destroy(&A[1]);
        }
    }
}

static void test_generated(void)
{
    const struct {
        kryl_generator_kind kind;
        int64_t size;
    } gens[] = {{KRYL_GEN_POISSON2D5, 37},  {KRYL_GEN_POISSON3D7, 11}, {KRYL_GEN_POISSON3D27, 9},
                {KRYL_GEN_POISSON3D125, 7}, {KRYL_GEN_CONVDIFF3D, 10}, {KRYL_GEN_RANDOM_SPD, 3001},
                {KRYL_GEN_POWERLAW, 40000}, {KRYL_GEN_POISSON3D7, 80}}; /* larger than half the L2:
                                                                           evict-first loads */
    for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
        kryl_generator_options o;
        kryl_generator_options_init(&o, gens[g].kind, gens[g].size);
        int64_t rows, nnz;
        CHECK_OK(kryl_generator_size(&o, &rows, &nnz));
        kryl_matrix A[2];
        CHECK_OK(kryl_matrix_generate(&A[0], ref_ctx, &o, 0, rows));
        CHECK_OK(kryl_matrix_generate(&A[1], gpu_ctx, &o, 0, rows));
        char what[64];
        snprintf(what, sizeof what, "%s %lld", kryl_generator_name(gens[g].kind),
                 (long long)gens[g].size);
        check_all_formats(A, NULL, what, 5000 + g);
        kryl_matrix_destroy(&A[0]);
        kryl_matrix_destroy(&A[1]);
    }
    const int64_t blocks[][2] = {{13, 5}, {7, 4}, {9, 3}};
    for (int k = 0; k < 3; k++) {
        kryl_csr csr;
        block_grid(&csr, blocks[k][0], blocks[k][1]);
        kryl_matrix A[2];
        matrices_from(&csr, A);
        char what[64];
        snprintf(what, sizeof what, "dense %lldx%lld blocks on a %lld^2 grid",
                 (long long)blocks[k][1], (long long)blocks[k][1], (long long)blocks[k][0]);
        check_all_formats(A, NULL, what, 6000 + (uint64_t)k);
        kryl_matrix_destroy(&A[0]);
        kryl_matrix_destroy(&A[1]);
    }
}

static void test_real(void)
{
    const char *files[] = {"bcsstk06.mtx", "bcsstk08.mtx", "EVA.mtx",     "fidap_ex6.mtx",
                           "cage4.mtx",    "dw8192.mtx",   "rajat11.mtx", "bcsstk33.mtx.gz"};
    int found = 0;
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        kryl_matrix A[2] = {kt_read(ref_ctx, files[k]), kt_read(gpu_ctx, files[k])};
        if (A[0] != NULL && A[1] != NULL) {
            found++;
            check_all_formats(A, NULL, files[k], 7000 + k);
        }
        kryl_matrix_destroy(&A[0]);
        kryl_matrix_destroy(&A[1]);
    }
    if (found == 0) printf("test_cuda_formats: no real matrices found (KRYL_MATRICES unset)\n");
}

/* PCG on the GPU in `format`: b = A*(1..n)/n, returns iterations (-1: refused). */
static int64_t pcg_in(kryl_matrix A, kryl_format format, kryl_precision p, const char *what)
{
    int64_t n;
    CHECK_OK(kryl_matrix_size(A, &n, NULL, NULL));
    double *xs = malloc((size_t)n * sizeof *xs), *xh = malloc((size_t)n * sizeof *xh);
    for (int64_t i = 0; i < n; i++) xs[i] = (double)(i + 1) / (double)n;
    kryl_vector b, x, xt;
    CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&xt, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(xt, xs, n));
    CHECK_OK(kryl_matrix_spmv(A, 1.0, xt, 0.0, b));
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_PCG;
    o.format = format;
    o.precision = p;
    o.rtol = p == KRYL_DOUBLE ? 1e-10 : 1e-5;
    o.max_iterations = 5000;
    kryl_solver s;
    int64_t its = -1;
    kryl_status st = kryl_solver_create(&s, A, &o);
    if (st == KRYL_SUCCESS) {
        kryl_result r;
        CHECK_OK(kryl_solver_solve(s, b, x, &r));
        CHECK(r.converged && r.relres <= o.rtol, "pcg %s %s %s: %s, true relres %g", what,
              kryl_format_name(format), kryl_precision_name(p), kryl_reason_name(r.reason),
              r.relres);
        CHECK(r.format == format, "pcg %s: ran in %s, asked %s", what, kryl_format_name(r.format),
              kryl_format_name(format));
        CHECK_OK(kryl_vector_get(x, xh, n));
        const double err = test_rel_diff(xh, xs, n);
        CHECK(err < (p == KRYL_DOUBLE ? 1e-6 : 1e-2), "pcg %s %s: |x - x*| = %g", what,
              kryl_format_name(format), err);
        its = r.iterations;
        kryl_solver_destroy(&s);
    } else {
        CHECK(st == KRYL_ERR_FORMAT_UNSUITABLE, "pcg %s %s: %s", what, kryl_format_name(format),
              kryl_last_error());
    }
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&xt);
    free(xs);
    free(xh);
    return its;
}

static void test_pcg(void)
{
    const struct {
        kryl_generator_kind kind;
        int64_t size;
    } gens[] = {{KRYL_GEN_POISSON2D5, 41}, {KRYL_GEN_POISSON3D27, 12}, {KRYL_GEN_RANDOM_SPD, 5001}};
    for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
        kryl_generator_options o;
        kryl_generator_options_init(&o, gens[g].kind, gens[g].size);
        int64_t rows, nnz;
        CHECK_OK(kryl_generator_size(&o, &rows, &nnz));
        kryl_matrix A;
        CHECK_OK(kryl_matrix_generate(&A, gpu_ctx, &o, 0, rows));
        const char *what = kryl_generator_name(gens[g].kind);
        for (int pi = 0; pi < 2; pi++) {
            const kryl_precision p = pi ? KRYL_SINGLE : KRYL_DOUBLE;
            const int64_t csr = pcg_in(A, KRYL_FORMAT_CSR, p, what);
            for (int f = KRYL_FORMAT_ELL; f <= KRYL_FORMAT_DIA; f++) {
                const int64_t its = pcg_in(A, (kryl_format)f, p, what);
                if (its >= 0 && p == KRYL_DOUBLE)
                    CHECK(llabs(its - csr) <= 1, "pcg %s %s: %lld iterations, csr %lld", what,
                          kryl_format_name(f), (long long)its, (long long)csr);
            }
        }
        kryl_matrix_destroy(&A);
    }
}

/* A matrix created from device arrays is converted on the device with no
 * host copy made; then the conversions are checked as any other. */
static void test_device_arrays(void)
{
    static const kryl_format formats[] = {KRYL_FORMAT_DIA, KRYL_FORMAT_ELLR, KRYL_FORMAT_JDS,
                                          KRYL_FORMAT_PJDS, KRYL_FORMAT_SELL};
    const kryl_context g = gpu_ctx;
    kryl_fmt_params lifted;
    permissive(&lifted);
    for (int sh = 0; sh < TEST_SHAPE_COUNT; sh++) {
        kryl_csr csr;
        test_random_csr(&csr, (test_shape)sh, 257, 257, 77u + (uint64_t)sh);
        const int64_t n = csr.nrows, nnz = kryl_csr_nnz(&csr);
        int64_t *rp = NULL;
        int32_t *ci = NULL;
        double *v = NULL;
        CHECK_OK(g->ops->alloc(g, (void **)&rp, (size_t)(n + 1) * sizeof *rp));
        CHECK_OK(g->ops->alloc(g, (void **)&ci, (size_t)(nnz ? nnz : 1) * sizeof *ci));
        CHECK_OK(g->ops->alloc(g, (void **)&v, (size_t)(nnz ? nnz : 1) * sizeof *v));
        CHECK_OK(g->ops->upload(g, rp, csr.row_ptr, (size_t)(n + 1) * sizeof *rp));
        CHECK_OK(g->ops->upload(g, ci, csr.col_idx, (size_t)nnz * sizeof *ci));
        CHECK_OK(g->ops->upload(g, v, csr.values, (size_t)nnz * sizeof *v));
        kryl_matrix A[2];
        CHECK_OK(kryl_matrix_create_csr_device(&A[1], g, n, n, nnz, rp, ci, v));
        g->ops->release(g, rp);
        g->ops->release(g, ci);
        g->ops->release(g, v);
        CHECK_OK(kryl_matrix_from_csr(&A[0], ref_ctx, &csr));
        char what[96];
        snprintf(what, sizeof what, "%s n=257 from device arrays", test_shape_name((test_shape)sh));
        for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
            kryl_matrix B = NULL;
            CHECK_OK(
                kryl_matrix_convert(&B, A[1], KRYL_DOUBLE, formats[f], &lifted, KRYL_ORDER_NONE));
            bool has_copy = true;
            CHECK_OK(kryl_matrix_host_copy(A[1], &has_copy, NULL));
            CHECK(!has_copy, "%s %s: the conversion made a host copy", what,
                  kryl_format_name(formats[f]));
            kryl_matrix_destroy(&B);
        }
        check_all_formats(A, &lifted, what, 91u + (uint64_t)sh);
        kryl_matrix_destroy(&A[0]);
        kryl_matrix_destroy(&A[1]);
    }
}

static void test_device_model(void)
{
    kryl_device_model dev = {0}, again = {0};
    CHECK(gpu_ctx->ops->device_model != NULL, "the cuda backend has no device_model");
    CHECK_OK(gpu_ctx->ops->device_model(gpu_ctx, &dev));
    CHECK(dev.bandwidth > 1e10 && dev.bandwidth < 1e14, "copy bandwidth %g B/s", dev.bandwidth);
    CHECK(dev.cache_bytes >= (1 << 20), "L2 of %lld bytes", (long long)dev.cache_bytes);
    CHECK(dev.line_bytes == 32, "line of %d bytes", dev.line_bytes);
    CHECK_OK(gpu_ctx->ops->device_model(gpu_ctx, &again));
    CHECK(again.bandwidth == dev.bandwidth, "bandwidth measured twice: %g then %g", dev.bandwidth,
          again.bandwidth);
    printf("device model: %.0f GB/s copy bandwidth, %lld MB L2, %d-byte lines\n",
           dev.bandwidth / 1e9, (long long)(dev.cache_bytes >> 20), dev.line_bytes);
}

static void test_hook_errors(void)
{
    kryl_csr csr;
    test_random_csr(&csr, TEST_SHAPE_RANDOM, 50, 50, 3);
    kryl_matrix A[2], B = NULL;
    matrices_from(&csr, A);
    kryl_fmt_params lifted;
    permissive(&lifted);
    CHECK_STATUS(kryl_cuda_fmt_select(A[1], 0), KRYL_ERR_INVALID_ARGUMENT); /* csr */
    CHECK_STATUS(kryl_cuda_fmt_select(A[0], 0), KRYL_ERR_INVALID_ARGUMENT); /* ref */
    CHECK_STATUS(kryl_cuda_fmt_readonly_x(A[1], false), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_OK(kryl_matrix_convert(&B, A[1], KRYL_DOUBLE, KRYL_FORMAT_DIA, &lifted, KRYL_ORDER_NONE));
    CHECK_STATUS(kryl_cuda_fmt_select(B, 3), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_cuda_spmv_select(B, KRYL_CUDA_SPMV_VECTOR, 4), KRYL_ERR_INVALID_ARGUMENT);
    kryl_matrix_destroy(&B);
    CHECK_OK(
        kryl_matrix_convert(&B, A[1], KRYL_DOUBLE, KRYL_FORMAT_BCSR2, &lifted, KRYL_ORDER_NONE));
    CHECK_STATUS(kryl_cuda_fmt_select(B, 3), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_cuda_fmt_select(B, 64), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_OK(kryl_cuda_fmt_select(B, 16));
    kryl_matrix_destroy(&B);
    CHECK_OK(
        kryl_matrix_convert(&B, A[1], KRYL_SINGLE, KRYL_FORMAT_SELL, &lifted, KRYL_ORDER_NONE));
    CHECK_STATUS(kryl_cuda_fmt_select(B, 1), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_OK(kryl_cuda_fmt_select(B, 0));
    kryl_matrix_destroy(&B);
    kryl_matrix_destroy(&A[0]);
    kryl_matrix_destroy(&A[1]);
}

int main(void)
{
    if (!test_cuda_device("test_cuda_formats")) return TEST_SKIP_CODE;
    ref_ctx = test_context(KRYL_BACKEND_REF);
    gpu_ctx = test_context(KRYL_BACKEND_CUDA);
    printf("test_cuda_formats on %s\n", kryl_context_device_name(gpu_ctx));
    test_device_model();
    test_hook_errors();
    test_random_shapes();
    test_device_arrays();
    test_generated();
    test_bands();
    test_real();
    test_pcg();
    printf("%d products compared, %d conversions refused alike\n", products_checked,
           formats_refused);
    kryl_context_destroy(&ref_ctx);
    kryl_context_destroy(&gpu_ctx);
    return test_summary("test_cuda_formats");
}

#else

int main(void)
{
    printf("test_cuda_formats: built without CUDA, skipped\n");
    return TEST_SKIP_CODE;
}

#endif
