/* Every storage format against a plain CSR multiply: random matrices of
 * awkward shapes and sizes, generated stencils, dense blocks and real
 * matrices, each built in natural order and under a random ordering, then
 * multiplied by the reference kernels in double and float and un-permuted. */
#include "backends/ref/ref_spmv_fmt.h"
#include "test_formats_util.h"

/* Σ|a_ij| */
static double abs_sum(const double *v, int64_t n)
{
    double s = 0.0;
    for (int64_t k = 0; k < n; k++) s += fabs(v[k]);
    return s;
}

/* The column arrays of the padded formats (NULL for the others). */
static const int32_t *padded_cols(const kryl_fmt *f)
{
    switch (f->kind) {
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR: return f->u.ell.col;
    case KRYL_FORMAT_JDS: return f->u.jds.col;
    case KRYL_FORMAT_PJDS:
    case KRYL_FORMAT_SELL: return f->u.sell.col;
    default: return NULL;
    }
}

/* perm is a permutation; without sorting it is `order`; with sorting, rows
 * are by decreasing length inside each window, ties in `order`'s order. */
static void check_perm(const kryl_csr *A, const kryl_fmt *f, const int32_t *order, int64_t window,
                       const char *what)
{
    const int64_t n = A->nrows;
    if (f->perm == NULL) {
        for (int64_t i = 0; order && i < n; i++)
            CHECK(order[i] == i, "%s: no perm, but order[%lld] = %d", what, (long long)i, order[i]);
        return;
    }
    int32_t *at = malloc((size_t)n * sizeof *at); /* position of row r in order */
    char *seen = calloc((size_t)n, 1);
    for (int64_t i = 0; i < n; i++) at[order ? order[i] : i] = (int32_t)i;
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 3; i++) {
        const int32_t r = f->perm[i];
        bool ok = r >= 0 && r < n && !seen[r];
        if (ok) seen[r] = 1;
        if (ok && window == 0) ok = at[r] == i;
        if (ok && window > 0 && i % window != 0) {
            const int32_t q = f->perm[i - 1];
            const int64_t lq = A->row_ptr[q + 1] - A->row_ptr[q],
                          lr = A->row_ptr[r + 1] - A->row_ptr[r];
            ok = lq > lr || (lq == lr && at[q] < at[r]);
            ok = ok && at[r] / window == i / window; /* stays in its window */
        }
        CHECK(ok, "%s: perm[%lld] = %d is wrong", what, (long long)i, r);
        bad += !ok;
    }
    free(at);
    free(seen);
}

static void check_structure(const kryl_csr *A, const kryl_fmt *f, const int32_t *order,
                            const kryl_fmt_params *p, const char *what)
{
    const int64_t n = A->nrows, nnz = kryl_csr_nnz(A);
    double *val;
    int64_t count;
    kryl_fmt_values(f, &val, &count);
    CHECK(f->nrows == n && f->ncols == n && f->nnz == nnz && count == f->stored && f->stored >= nnz,
          "%s: n %lld nnz %lld stored %lld values %lld", what, (long long)f->nrows,
          (long long)f->nnz, (long long)f->stored, (long long)count);
    /* padding holds zeros: the stored values' magnitudes sum to A's */
    CHECK_CLOSE(abs_sum(val, count), abs_sum(A->values, nnz), 1e-12);
    const int32_t *col = padded_cols(f);
    int64_t badcol = 0;
    for (int64_t k = 0; col && k < count; k++) badcol += col[k] < 0 || col[k] >= n;
    CHECK(badcol == 0, "%s: %lld stored columns outside [0, %lld)", what, (long long)badcol,
          (long long)n);
    int64_t window = 0;
    if (f->kind == KRYL_FORMAT_SELL)
        window = p && p->sort_window ? p->sort_window : 32 * (p ? p->slice_height : 32);
    if (f->kind == KRYL_FORMAT_JDS || f->kind == KRYL_FORMAT_PJDS) window = n;
    check_perm(A, f, order, window, what);
}

/* JDS in Cevahir et al.'s per-diagonal order (fig. 2): y_i += jagged entry d of row i. */
static void jds_by_diagonals(const kryl_fmt *f, const double *x, double *y)
{
    const kryl_fmt_jds *a = &f->u.jds;
    for (int64_t i = 0; i < f->nrows; i++) y[i] = 0.0;
    for (int64_t d = 0; d < a->ndiag; d++) {
        const int64_t len = a->diag_ptr[d + 1] - a->diag_ptr[d];
        /* padding slots hold column 0 and value 0 */
        for (int64_t i = 0; i < len && i < f->nrows; i++)
            y[i] += a->val[a->diag_ptr[d] + i] * x[a->col[a->diag_ptr[d] + i]];
    }
}

/* v_p[i] = v[perm[i]] */
static void to_format(const kryl_fmt *f, const double *v, double *vp)
{
    for (int64_t i = 0; i < f->nrows; i++) vp[i] = v[f->perm ? f->perm[i] : i];
}

/* One product y = alpha*A*x + beta*z (z: 0 none, 1 separate, 2 aliasing y),
 * in double and float, against the CSR multiply. */
static void check_product(const kryl_csr *A, const kryl_fmt *f, double alpha, double beta,
                          int zmode, const char *what)
{
    const int64_t n = A->nrows, nnz = kryl_csr_nnz(A);
    const size_t sz = (size_t)(n > 0 ? n : 1);
    double *x = malloc(sz * 8), *z = malloc(sz * 8), *ref = malloc(sz * 8);
    double *xp = malloc(sz * 8), *zp = malloc(sz * 8), *yp = malloc(sz * 8), *y = malloc(sz * 8);
    test_random_values(x, n, 11);
    test_random_values(z, n, 12);
    to_format(f, x, xp);
    to_format(f, z, zp);
    double *val;
    int64_t count;
    kryl_fmt_values(f, &val, &count);
    tf_csr_spmv(A, alpha, x, beta, zmode ? z : NULL, ref);
    if (zmode == 2) memcpy(yp, zp, sz * 8);
    ref_fmt_spmv_d(f, val, alpha, xp, beta, zmode == 1 ? zp : zmode == 2 ? yp : NULL, yp);
    for (int64_t i = 0; i < n; i++) y[f->perm ? f->perm[i] : i] = yp[i];
    const double err = test_rel_diff(y, ref, n);
    CHECK(err <= 1e-12, "%s: double, alpha %g beta %g z %d: rel. error %.3g", what, alpha, beta,
          zmode, err);
    /* float: the same with values, x and z rounded, against the double multiply of those */
    float *vs = malloc((size_t)(count > 0 ? count : 1) * 4), *xs = malloc(sz * 4),
          *zs = malloc(sz * 4), *ys = malloc(sz * 4);
    for (int64_t k = 0; k < count; k++) vs[k] = (float)val[k];
    for (int64_t i = 0; i < n; i++) {
        xs[i] = (float)xp[i];
        zs[i] = (float)zp[i];
        x[i] = (float)x[i];
        z[i] = (float)z[i];
    }
    kryl_csr R = *A;
    R.values = malloc((size_t)(nnz > 0 ? nnz : 1) * 8);
    for (int64_t k = 0; k < nnz; k++) R.values[k] = (float)A->values[k];
    tf_csr_spmv(&R, alpha, x, beta, zmode ? z : NULL, ref);
    if (zmode == 2) memcpy(ys, zs, sz * 4);
    ref_fmt_spmv_s(f, vs, alpha, xs, beta, zmode == 1 ? zs : zmode == 2 ? ys : NULL, ys);
    for (int64_t i = 0; i < n; i++) y[f->perm ? f->perm[i] : i] = ys[i];
    const double errs = test_rel_diff(y, ref, n);
    CHECK(errs <= 1e-5, "%s: float, alpha %g beta %g z %d: rel. error %.3g", what, alpha, beta,
          zmode, errs);
    if (f->kind == KRYL_FORMAT_JDS) { /* the per-diagonal order gives the same y */
        jds_by_diagonals(f, xp, yp);
        ref_fmt_spmv_d(f, f->u.jds.val, 1.0, xp, 0.0, NULL, zp);
        CHECK(test_rel_diff(yp, zp, n) <= 1e-12, "%s: jds per-diagonal differs", what);
    }
    free(R.values);
    free(vs), free(xs), free(zs), free(ys);
    free(x), free(z), free(ref), free(xp), free(zp), free(yp), free(y);
}

static int built, refused;

/* Build kind from A (with `order`), check it and its products. */
static void check_format(const kryl_csr *A, kryl_format kind, const int32_t *order,
                         const kryl_fmt_params *p, const char *name)
{
    char what[160];
    snprintf(what, sizeof what, "%s %s%s", name, kryl_format_name(kind), order ? " ordered" : "");
    kryl_fmt_cost cost;
    kryl_fmt f;
    CHECK_OK(kryl_fmt_cost_of(A, kind, p, &cost));
    const kryl_status st = kryl_fmt_build(A, kind, order, p, &f);
    if (order == NULL)
        CHECK((st == KRYL_SUCCESS) == cost.suitable, "%s: build %s but cost says %s", what,
              kryl_strerror(st), cost.suitable ? "suitable" : cost.why);
    if (st == KRYL_ERR_FORMAT_UNSUITABLE) {
        refused++;
        if (order == NULL)
            CHECK(strcmp(kryl_last_error(), cost.why) == 0, "%s: refusal '%s' vs cost '%s'", what,
                  kryl_last_error(), cost.why);
        return;
    }
    CHECK(st == KRYL_SUCCESS, "%s: %s: %s", what, kryl_strerror(st), kryl_last_error());
    if (st != KRYL_SUCCESS) return;
    built++;
    if (order == NULL)
        CHECK(f.stored == cost.stored, "%s: stored %lld, cost said %lld", what, (long long)f.stored,
              (long long)cost.stored);
    check_structure(A, &f, order, p, what);
    check_product(A, &f, 1.5, -0.5, 1, what);
    check_product(A, &f, 2.0, 0.0, 0, what);
    check_product(A, &f, -1.0, 0.25, 2, what);
    kryl_fmt_free(&f);
}

/* All formats, natural order and a random order, default and lenient limits. */
static void check_all(const kryl_csr *A, const char *name, uint64_t seed)
{
    int32_t *order = tf_random_order(A->nrows, seed);
    kryl_fmt_params lenient, small_slices;
    kryl_fmt_params_init(&lenient);
    lenient.max_padding = lenient.max_block_fill = 1e9;
    lenient.max_diagonals = INT64_MAX;
    kryl_fmt_params_init(&small_slices);
    small_slices.slice_height = 4;
    small_slices.sort_window = 8;
    kryl_fmt_params threaded; /* measured and filled on 3 threads */
    kryl_fmt_params_init(&threaded);
    threaded.threads = 3;
    for (int k = 0; k < TF_NFORMATS; k++) {
        check_format(A, tf_formats[k], NULL, NULL, name);
        check_format(A, tf_formats[k], NULL, &threaded, name);
        check_format(A, tf_formats[k], order, NULL, name);
        if (A->nrows <= 1000) check_format(A, tf_formats[k], order, &lenient, name);
        if (tf_sorts(tf_formats[k])) check_format(A, tf_formats[k], NULL, &small_slices, name);
    }
    free(order);
}

int main(void)
{
    for (int s = 0; s < TEST_SHAPE_COUNT; s++)
        for (int i = 0; i < test_awkward_size_count; i++) {
            const int64_t n = test_awkward_sizes[i];
            kryl_csr A;
            test_random_csr(&A, (test_shape)s, n, n, (uint64_t)(s * 100 + i));
            char name[64];
            snprintf(name, sizeof name, "%s n=%lld", test_shape_name((test_shape)s),
                     (long long)A.nrows);
            check_all(&A, name, (uint64_t)i + 5);
            kryl_csr_free(&A);
            if (s == TEST_SHAPE_SINGLE) break;
        }
    const struct {
        kryl_generator_kind kind;
        int64_t n;
    } gens[] = {{KRYL_GEN_POISSON2D5, 30}, {KRYL_GEN_POISSON3D7, 11}, {KRYL_GEN_POISSON3D27, 9},
                {KRYL_GEN_CONVDIFF2D, 17}, {KRYL_GEN_POWERLAW, 2000}, {KRYL_GEN_RANDOM_SPD, 777}};
    for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
        kryl_csr A;
        if (!tf_generate(&A, gens[g].kind, gens[g].n)) continue;
        check_all(&A, kryl_generator_name(gens[g].kind), g + 50);
        gen_csr_free(&A);
    }
    kryl_csr B;
    tf_dense_blocks(&B, 41, 5, 3);
    check_all(&B, "dense 5x5 blocks", 77);
    kryl_csr_free(&B);
    const char *files[] = {"nos4.mtx",  "bcsstk06.mtx", "bcsstk08.mtx", "west0479.mtx", "EVA.mtx",
                           "cage4.mtx", "rajat11.mtx",  "sherman1.mtx", "ca-GrQc.mtx"};
    int read = 0;
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        kryl_csr A;
        if (!tf_read(&A, files[k])) continue;
        read++;
        check_all(&A, files[k], k + 90);
        kryl_csr_free(&A);
    }
    printf("test_formats: %d formats built, %d refused, %d real matrices\n", built, refused, read);
    if (read == 0) printf("test_formats: real matrices absent; generated ones only\n");
    return test_summary("test_formats");
}
