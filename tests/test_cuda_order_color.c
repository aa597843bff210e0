/* --order color built on the device (kryl_matrix_convert on cuda: A's
 * stored CSR colored by first fit, its rows grouped and P A P^T copied
 * there, src/order/color_backend.c) against the host: the host's
 * permutation, the stored P A P^T equal to the host's entry for entry,
 * and the IC(0)/ILU(0) factor analysed from that storage (factor_analyse,
 * factor_schedule) equal to the factor from the host's pattern in the
 * same order (kryl_factor_pattern_build, factor_setup): pattern,
 * transposed pattern, both level schedules, pivot failures and values bit
 * for bit.  On awkward shapes (one row, a dense row, empty rows, long
 * rows; an empty matrix and nonsymmetric patterns, which the host orders,
 * in the same order), generated grids and the real matrices; then PCG +
 * IC(0) and GMRES + ILU(0) with --order color in the same iterations on
 * the device as on ref.  Skipped (77) without a usable device. */
#include "test_factor_support.h"
#ifdef KRYL_HAVE_CUDA
#include "backends/cuda/cuda_factor_hooks.h"
#endif
#include "order/order.h"

/* The host's color order (first fit in the natural order), as a malloc'd
 * permutation. */
static int32_t *expected_perm(const kryl_csr *A)
{
    kryl_coloring c;
    CHECK_OK(kryl_order_color(A, 0.0, &c));
    int32_t *perm = c.perm;
    c.perm = NULL;
    kryl_coloring_free(&c);
    return perm;
}

/* Whether a layout's order is perm: a host-built order that keeps every
 * row in place is stored as none (NULL). */
static bool same_order(const int32_t *stored, const int32_t *perm, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if ((stored ? stored[i] : (int32_t)i) != perm[i]) return false;
    return true;
}

/* host = Aw's stored CSR (double, in its layout's order), downloaded. */
static void download_stored(kryl_context ctx, kryl_matrix Aw, kryl_csr *host)
{
    const kryl_backend_ops *ops = ctx->ops;
    const int64_t n = Aw->fmt.nrows, nnz = Aw->fmt.nnz;
    int64_t *row_ptr = NULL;
    int32_t *col_idx = NULL;
    double *values = NULL;
    bool own = false;
    CHECK_OK(kryl_csr_alloc(host, n, n, nnz));
    CHECK_OK(ops->matrix_csr_arrays(ctx, Aw, &row_ptr, &own, &col_idx, &values));
    CHECK_OK(ops->download(ctx, host->row_ptr, row_ptr, (size_t)(n + 1) * sizeof *row_ptr));
    if (nnz > 0) {
        CHECK_OK(ops->download(ctx, host->col_idx, col_idx, (size_t)nnz * sizeof *col_idx));
        CHECK_OK(ops->download(ctx, host->values, values, (size_t)nnz * sizeof *values));
    }
    if (own) ops->release(ctx, row_ptr);
}

#ifdef KRYL_HAVE_CUDA
/* Whether two level schedules are one. */
static bool same_schedule(const kryl_levels *a, const kryl_levels *b, int64_t n)
{
    return a->nlevels == b->nlevels &&
           memcmp(a->level_ptr, b->level_ptr, ((size_t)a->nlevels + 1) * sizeof *a->level_ptr) ==
               0 &&
           memcmp(a->order, b->order, (size_t)n * sizeof *a->order) == 0;
}

/* The device's factor of Aw from its own analysis of Aw's storage against
 * the factor from the host's pattern of A in Aw's order (sources into A's
 * host CSR): one pattern and schedule, the same pivots and values. */
static void check_factor(kryl_context ctx, kryl_matrix A, kryl_matrix Aw, const kryl_csr *H,
                         kryl_factor_kind kind, const char *what)
{
    const kryl_backend_ops *ops = ctx->ops;
    const kryl_csr *csr = &A->host->csr;
    const int64_t n = csr->nrows;
    const char *who = kind == KRYL_FACTOR_IC0 ? "ic0" : "ilu0";
    kryl_factor_pattern P;
    const kryl_status host = kryl_factor_pattern_build(csr, Aw->layout->perm, kind, 2, who, &P);
    int64_t *row_ptr = NULL;
    int32_t *col_idx = NULL;
    double *values = NULL;
    bool own = false;
    CHECK_OK(ops->matrix_csr_arrays(ctx, Aw, &row_ptr, &own, &col_idx, &values));
    void *dev = NULL, *ref = NULL;
    kryl_factor_shape shape;
    kryl_status st =
        ops->factor_analyse(ctx, n, row_ptr, col_idx, kind == KRYL_FACTOR_IC0, who, &shape, &dev);
    if (own) ops->release(ctx, row_ptr);
    CHECK(st == host, "%s %s: the device's analysis says %s, the host's %s", what, who,
          kryl_strerror(st), kryl_strerror(host));
    if (st != KRYL_SUCCESS || host != KRYL_SUCCESS) {
        if (dev) ops->factor_release(ctx, dev);
        if (host == KRYL_SUCCESS) kryl_factor_pattern_free(&P);
        return;
    }
    CHECK_OK(ops->factor_schedule(ctx, dev, &shape));
    CHECK_OK(ops->factor_setup(ctx, &P, &ref));
    kryl_factor_pattern D;
    CHECK_OK(kryl_cuda_factor_download(ctx, dev, &D));
    const int64_t nnz = P.ptr[n];
    bool rows = memcmp(D.ptr, P.ptr, (size_t)(n + 1) * sizeof *P.ptr) == 0 &&
                memcmp(D.diag, P.diag, (size_t)n * sizeof *P.diag) == 0;
    bool entries = rows && memcmp(D.col, P.col, (size_t)nnz * sizeof *P.col) == 0;
    /* the device's sources index the stored P A P^T, the host's A itself */
    for (int64_t q = 0; q < nnz && entries; q++)
        entries = H->col_idx[D.source[q]] == P.col[q] &&
                  H->values[D.source[q]] == csr->values[P.source[q]];
    bool upper =
        kind != KRYL_FACTOR_IC0 ||
        (memcmp(D.upper.row_ptr, P.upper.row_ptr, (size_t)(n + 1) * sizeof(int64_t)) == 0 &&
         memcmp(D.upper.col_idx, P.upper.col_idx, (size_t)nnz * sizeof(int32_t)) == 0);
    CHECK(rows && entries && upper, "%s %s: the device's pattern differs from the host's in its %s",
          what, who,
          !rows      ? "row offsets or diagonal positions"
          : !entries ? "columns or value sources"
                     : "transposed pattern");
    CHECK(same_schedule(&D.levels_L, &P.levels_L, n) && same_schedule(&D.levels_U, &P.levels_U, n),
          "%s %s: the level schedules (L %d, U %d) are not the host's (L %d, U %d)", what, who,
          (int)D.levels_L.nlevels, (int)D.levels_U.nlevels, (int)P.levels_L.nlevels,
          (int)P.levels_U.nlevels);
    kryl_factor_pattern_free(&D);
    kryl_factor_pivots pd, pr;
    CHECK_OK(ops->factor_numeric(ctx, dev, Aw, 0.0, &pd));
    CHECK_OK(ops->factor_numeric(ctx, ref, Aw, 0.0, &pr));
    CHECK(pd.row == pr.row && pd.what == pr.what && pd.nonpositive_row == pr.nonpositive_row,
          "%s %s: pivots fail at row %lld (%d) against %lld (%d) from the host's pattern", what,
          who, (long long)pd.row, (int)pd.what, (long long)pr.row, (int)pr.what);
    /* ||A||_inf: IC's column sums are added atomically, in no fixed order */
    CHECK(fabs(pd.norm_inf - pr.norm_inf) <= 1e-12 * pr.norm_inf,
          "%s %s: ||A||_inf %.17g against %.17g from the host's pattern", what, who, pd.norm_inf,
          pr.norm_inf);
    double *vd = NULL, *vr = NULL;
    int64_t cd = 0, cr = 0;
    CHECK_OK(kryl_cuda_factor_values(ctx, dev, &vd, &cd));
    CHECK_OK(kryl_cuda_factor_values(ctx, ref, &vr, &cr));
    CHECK(cd == cr && (cd == 0 || memcmp(vd, vr, (size_t)cd * sizeof *vd) == 0),
          "%s %s: the factor's values differ from those from the host's pattern", what, who);
    free(vd);
    free(vr);
    ops->factor_release(ctx, dev);
    ops->factor_release(ctx, ref);
    kryl_factor_pattern_free(&P);
}
#endif

/* Aw = A in the color order on the device against the host: built there
 * for a structurally symmetric pattern of at least one row, else by the
 * host, in the host's order either way. */
static void check_order(kryl_context ctx, kryl_matrix A, const char *what)
{
    const kryl_csr *csr = &A->host->csr;
    const int64_t n = csr->nrows;
    const bool on_device = n > 0 && kryl_csr_first_unmirrored(csr, 1) < 0;
    kryl_matrix Aw = NULL;
    CHECK_OK(kryl_matrix_convert(&Aw, A, KRYL_DOUBLE, KRYL_FORMAT_CSR, NULL, KRYL_ORDER_COLOR));
    if (Aw == NULL) return;
    CHECK(Aw->fmt.on_backend == on_device, "%s: P A P^T built on the %s, expected on the %s", what,
          Aw->fmt.on_backend ? "device" : "host", on_device ? "device" : "host");
    int32_t *perm = n > 0 ? expected_perm(csr) : NULL;
    CHECK(n == 0 || same_order(Aw->layout->perm, perm, n),
          "%s: the color order is not the host's first fit", what);
    if (!Aw->fmt.on_backend || n == 0) {
        free(perm);
        kryl_matrix_destroy(&Aw);
        return;
    }
    kryl_csr H = {0}, D = {0};
    tf_permuted(csr, Aw->layout->perm, &H);
    download_stored(ctx, Aw, &D);
    const int64_t nnz = kryl_csr_nnz(&H);
    CHECK(memcmp(D.row_ptr, H.row_ptr, (size_t)(n + 1) * sizeof *H.row_ptr) == 0 &&
              memcmp(D.col_idx, H.col_idx, (size_t)nnz * sizeof *H.col_idx) == 0 &&
              memcmp(D.values, H.values, (size_t)nnz * sizeof *H.values) == 0,
          "%s: the stored P A P^T differs from the host's", what);
#ifdef KRYL_HAVE_CUDA
    check_factor(ctx, A, Aw, &H, KRYL_FACTOR_IC0, what);
    check_factor(ctx, A, Aw, &H, KRYL_FACTOR_ILU0, what);
#endif
    kryl_csr_free(&H);
    kryl_csr_free(&D);
    free(perm);
    kryl_matrix_destroy(&Aw);
}

/* Iterations of the method with the preconditioner in the color order,
 * converged, on A's backend. */
static int64_t solve(kryl_matrix A, kryl_method method, kryl_precond_kind kind, const char *what)
{
    kryl_solver_options o;
    kt_options(&o, method, kind, 1e-8, 2000);
    o.order = KRYL_ORDER_COLOR;
    o.format = KRYL_FORMAT_CSR;
    double *b = kt_rhs(A, 3);
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    char label[200];
    snprintf(label, sizeof label, "%s: %s + %s, --order color on %s", what,
             kryl_method_name(method), kryl_precond_name(kind),
             kryl_backend_name(kryl_context_backend(A->ctx)));
    CHECK_OK(s.create);
    if (s.create == KRYL_SUCCESS) kt_check_converged(&s, label);
    printf("%s: %lld iterations\n", label, (long long)s.r.iterations);
    free(b);
    return s.r.iterations;
}

/* The same iterations on the device as on ref: the same order, so the same M. */
static void check_solve(kryl_matrix A, kryl_matrix R, kryl_method method, kryl_precond_kind kind,
                        const char *what)
{
    const int64_t dev = solve(A, method, kind, what), host = solve(R, method, kind, what);
    CHECK(dev >= host - 1 && dev <= host + 1,
          "%s: %s + %s in the color order: %lld iterations on cuda, %lld on ref", what,
          kryl_method_name(method), kryl_precond_name(kind), (long long)dev, (long long)host);
}

static void check_real(kryl_context ctx)
{
    const char *files[] = {"bcsstk06.mtx", "1138_bus.mtx", "nos4.mtx", "sherman1.mtx",
                           "dw8192.mtx",   "cage4.mtx",    "EVA.mtx",  "bcsstk33.mtx.gz"};
    int found = 0;
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        kryl_matrix A = kt_read(ctx, files[k]);
        if (A == NULL) continue;
        found++;
        check_order(ctx, A, files[k]);
        kryl_matrix_destroy(&A);
    }
    if (found == 0) printf("test_cuda_order_color: no real matrices found\n");
}

int main(void)
{
    if (!test_cuda_device("test_cuda_order_color")) return TEST_SKIP_CODE;
    kryl_context gpu = test_context(KRYL_BACKEND_CUDA);
    printf("test_cuda_order_color on %s\n", kryl_context_device_name(gpu));
    char what[160];
    /* random SPD patterns of every awkward shape, then nonsymmetric ones */
    for (int s = 0; s < TEST_SHAPE_COUNT; s++)
        for (int z = 0; z < test_awkward_size_count; z++) {
            const int64_t n = s == TEST_SHAPE_SINGLE ? 1 : test_awkward_sizes[z];
            if (n > 3000) continue;
            kryl_matrix A = tf_spd(gpu, (test_shape)s, n, 70 + (uint64_t)(s * 16 + z), -1);
            snprintf(what, sizeof what, "random SPD %s matrix, n = %lld",
                     test_shape_name((test_shape)s), (long long)n);
            check_order(gpu, A, what);
            kryl_matrix_destroy(&A);
            A = tf_unsymmetric(gpu, false, (test_shape)s, n, 90 + (uint64_t)(s * 16 + z));
            snprintf(what, sizeof what, "nonsymmetric %s pattern, n = %lld",
                     test_shape_name((test_shape)s), (long long)n);
            check_order(gpu, A, what);
            kryl_matrix_destroy(&A);
        }
    /* an empty matrix: nothing to color, the host's path */
    const int64_t zero = 0;
    kryl_matrix E = NULL;
    CHECK_OK(kryl_matrix_create_csr(&E, gpu, 0, 0, 0, 0, &zero, NULL, NULL));
    if (E) check_order(gpu, E, "empty matrix");
    kryl_matrix_destroy(&E);
    /* grids: red-black and more colors */
    const kryl_generator_kind grids[] = {KRYL_GEN_POISSON2D5, KRYL_GEN_POISSON3D7,
                                         KRYL_GEN_POISSON3D27};
    const int64_t sizes[] = {40, 16, 12};
    kryl_context ref = test_context(KRYL_BACKEND_REF);
    for (int g = 0; g < 3; g++) {
        kryl_matrix A = kt_generate(gpu, grids[g], sizes[g]);
        kryl_matrix R = kt_generate(ref, grids[g], sizes[g]);
        if (A != NULL && R != NULL) {
            snprintf(what, sizeof what, "generated grid %d", g);
            check_order(gpu, A, what);
            check_solve(A, R, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, what);
            check_solve(A, R, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, what);
        }
        kryl_matrix_destroy(&A);
        kryl_matrix_destroy(&R);
    }
    kryl_context_destroy(&ref);
    check_real(gpu);
    kryl_context_destroy(&gpu);
    return test_summary("test_cuda_order_color");
}
