/* The backends' matrix checks (csr_asymmetry, csr_diagonal, csr_row_sums
 * and csr_unmirrored over CSR arrays) against the host oracles
 * (kryl_csr_asymmetry, kryl_csr_check_diagonal on one thread, the rows'
 * sums added in order, a scan of the mirrored rows),
 * on every backend (ref, omp with its default team and 3 threads, cuda
 * where a GPU is present), bit for bit: random matrices of every awkward
 * shape and size (empty rows, a dense row, diagonal only, long rows), their
 * symmetric parts, the same made nonsymmetric by one entry changed or one
 * entry left without its partner, shifted to a positive diagonal, and the
 * real matrices; each matrix both uploaded from host arrays and created
 * from arrays in backend memory, which the checks read without a host copy
 * (those arrays are sorted without repeats, or refused: test_cuda_matrix_device;
 * unsorted and repeated host input is summed into sorted rows first). */
#include "backends/backend.h"
#include "test_krylov_support.h"

/* S = A + B + shift I (B may be NULL), rows sorted, repeats summed. */
static void sum_of(const kryl_csr *A, const kryl_csr *B, double shift, kryl_csr *S)
{
    const int64_t n = A->nrows;
    const int64_t nnz = kryl_csr_nnz(A) + (B ? kryl_csr_nnz(B) : 0) + n;
    CHECK_OK(kryl_csr_alloc(S, n, A->ncols, nnz));
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        S->row_ptr[i] = k;
        for (const kryl_csr *M = A; M != NULL; M = M == A ? B : NULL)
            for (int64_t t = M->row_ptr[i]; t < M->row_ptr[i + 1]; t++) {
                S->col_idx[k] = M->col_idx[t];
                S->values[k++] = M->values[t];
            }
        if (shift != 0.0) {
            S->col_idx[k] = (int32_t)i;
            S->values[k++] = shift;
        }
    }
    S->row_ptr[n] = k;
    CHECK_OK(kryl_csr_sort_and_sum(S));
}

/* bytes of backend memory holding `values` (released by the caller) */
static void *backend_copy(kryl_context ctx, const void *values, size_t bytes)
{
    void *p = NULL;
    CHECK_OK(ctx->ops->alloc(ctx, &p, bytes > 0 ? bytes : 1));
    if (p != NULL && bytes > 0) CHECK_OK(ctx->ops->upload(ctx, p, values, bytes));
    CHECK_OK(ctx->ops->synchronize(ctx));
    return p;
}

/* A matrix of h's entries, from arrays in backend memory (device memory on
 * cuda: no host copy), or uploaded from a host copy. */
static kryl_matrix matrix_of(kryl_context ctx, const kryl_csr *h, bool from_backend)
{
    const int64_t n = h->nrows, nnz = kryl_csr_nnz(h);
    kryl_matrix A = NULL;
    if (!from_backend) {
        kryl_csr copy;
        CHECK_OK(kryl_csr_from_sorted_arrays(&copy, n, h->ncols, nnz, h->row_ptr, h->col_idx,
                                             h->values));
        CHECK_OK(kryl_matrix_from_csr(&A, ctx, &copy));
        return A;
    }
    void *rp = backend_copy(ctx, h->row_ptr, (size_t)(n + 1) * sizeof *h->row_ptr);
    void *ci = backend_copy(ctx, h->col_idx, (size_t)nnz * sizeof *h->col_idx);
    void *v = backend_copy(ctx, h->values, (size_t)nnz * sizeof *h->values);
    CHECK_OK(kryl_matrix_create_csr_device(&A, ctx, n, h->ncols, nnz, rp, ci, v));
    ctx->ops->release(ctx, rp);
    ctx->ops->release(ctx, ci);
    ctx->ops->release(ctx, v);
    return A;
}

/* The diagonal check of A by ctx's backend equals the oracle's on h, d
 * (a_ii, or 1/a_ii with invert) included where it is defined. */
static void compare_diagonal(kryl_context ctx, kryl_matrix A, const kryl_csr *h, bool invert,
                             const char *label)
{
    const int64_t n = h->nrows;
    double *expected = malloc((size_t)(n > 0 ? n : 1) * sizeof *expected);
    double *got = malloc((size_t)(n > 0 ? n : 1) * sizeof *got);
    kryl_diagonal_check want, found = {-1, -1, -1.0};
    kryl_csr_check_diagonal(h, 1, expected, invert, &want);
    kryl_vector d = NULL;
    CHECK_OK(kryl_vector_create(&d, A, KRYL_DOUBLE));
    CHECK_OK(ctx->ops->csr_diagonal(ctx, A, d, invert, &found));
    CHECK_OK(kryl_vector_get(d, got, n));
    CHECK(found.first_zero == want.first_zero &&
              found.first_nonpositive == want.first_nonpositive && found.value == want.value,
          "%s: diagonal found zero %lld, nonpositive %lld (a_ii %g); expected %lld, %lld (%g)",
          label, (long long)found.first_zero, (long long)found.first_nonpositive, found.value,
          (long long)want.first_zero, (long long)want.first_nonpositive, want.value);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(expected[i]) && got[i] != expected[i]) wrong++;
    CHECK(wrong == 0, "%s: %lld entries of %s differ", label, (long long)wrong,
          invert ? "1/diag(A)" : "diag(A)");
    /* without d: the same findings */
    kryl_diagonal_check bare = {-1, -1, -1.0};
    CHECK_OK(ctx->ops->csr_diagonal(ctx, A, NULL, invert, &bare));
    CHECK(bare.first_zero == want.first_zero && bare.first_nonpositive == want.first_nonpositive,
          "%s: the check without d found other rows", label);
    kryl_vector_destroy(&d);
    free(expected);
    free(got);
}

/* The rows' sums of |a_ij| by ctx's backend against a plain loop over h's
 * rows (each added in order, as AMG's setup did on the host): 1/s_i and
 * s_i/|a_ii| to the bit (0 where the divisor is 0), the first zero row. */
static void compare_row_sums(kryl_context ctx, kryl_matrix A, const kryl_csr *h, const char *label)
{
    const int64_t n = h->nrows;
    double *inverse = malloc((size_t)(n > 0 ? n : 1) * sizeof *inverse);
    double *radius = malloc((size_t)(n > 0 ? n : 1) * sizeof *radius);
    double *got = malloc((size_t)(n > 0 ? n : 1) * sizeof *got);
    int64_t want_zero = -1;
    for (int64_t i = 0; i < n; i++) {
        double sum = 0.0, aii = 0.0;
        for (int64_t k = h->row_ptr[i]; k < h->row_ptr[i + 1]; k++) {
            sum += fabs(h->values[k]);
            if (h->col_idx[k] == i) aii = fabs(h->values[k]);
        }
        if (sum == 0.0 && want_zero < 0) want_zero = i;
        inverse[i] = sum == 0.0 ? 0.0 : 1.0 / sum;
        radius[i] = aii == 0.0 ? 0.0 : sum / aii;
    }
    const kryl_row_sums forms[] = {KRYL_ROW_SUMS_INVERSE, KRYL_ROW_SUMS_BY_DIAGONAL};
    kryl_vector d = NULL;
    CHECK_OK(kryl_vector_create(&d, A, KRYL_DOUBLE));
    for (int f = 0; f < 2 && d != NULL; f++) {
        int64_t zero = -2;
        CHECK_OK(ctx->ops->csr_row_sums(ctx, A, forms[f], d, &zero));
        CHECK_OK(kryl_vector_get(d, got, n));
        const double *want = f == 0 ? inverse : radius;
        CHECK(zero == want_zero && memcmp(got, want, (size_t)n * sizeof *got) == 0,
              "%s: row sums (%s) differ, first zero row %lld, expected %lld", label,
              f == 0 ? "inverse" : "by diagonal", (long long)zero, (long long)want_zero);
    }
    kryl_vector_destroy(&d);
    free(inverse);
    free(radius);
    free(got);
}

/* The first row of h holding an a_ij (j != i) without a stored a_ji, or
 * -1: a scan of row j for each entry (the oracle of csr_unmirrored). */
static int64_t first_unmirrored(const kryl_csr *h)
{
    for (int64_t i = 0; i < h->nrows; i++)
        for (int64_t k = h->row_ptr[i]; k < h->row_ptr[i + 1]; k++) {
            const int64_t j = h->col_idx[k];
            bool mirrored = j == i;
            for (int64_t t = h->row_ptr[j]; t < h->row_ptr[j + 1] && !mirrored; t++)
                mirrored = h->col_idx[t] == i;
            if (!mirrored) return i;
        }
    return -1;
}

/* The pattern check over h's arrays in backend memory against the oracle. */
static void compare_pattern(kryl_context ctx, const kryl_csr *h, const char *what)
{
    const int64_t n = h->nrows, nnz = kryl_csr_nnz(h);
    if (ctx->ops->csr_unmirrored == NULL || n != h->ncols) return;
    void *rp = backend_copy(ctx, h->row_ptr, (size_t)(n + 1) * sizeof *h->row_ptr);
    void *ci = backend_copy(ctx, h->col_idx, (size_t)nnz * sizeof *h->col_idx);
    int64_t row = -2;
    CHECK_OK(ctx->ops->csr_unmirrored(ctx, n, rp, ci, &row));
    const int64_t want = first_unmirrored(h);
    CHECK(row == want, "%s, %s: the first row without a mirrored entry is %lld, expected %lld",
          kryl_backend_name(kryl_context_backend(ctx)), what, (long long)row, (long long)want);
    ctx->ops->release(ctx, rp);
    ctx->ops->release(ctx, ci);
}

/* Every check of h's matrix on ctx, from both kinds of arrays, against the oracle. */
static void compare(kryl_context ctx, const kryl_csr *h, const char *what)
{
    const bool device = kryl_context_backend(ctx) == KRYL_BACKEND_CUDA;
    double want_worst = 0.0, want_largest = 0.0;
    kryl_csr_asymmetry(h, 1, &want_worst, &want_largest);
    compare_pattern(ctx, h, what);
    for (int from_backend = 0; from_backend <= 1; from_backend++) {
        char label[160];
        snprintf(label, sizeof label, "%s, %s: %s", kryl_backend_name(kryl_context_backend(ctx)),
                 from_backend ? "backend arrays" : "host arrays", what);
        kryl_matrix A = matrix_of(ctx, h, from_backend);
        if (A == NULL) continue;
        double worst = -1.0, largest = -1.0;
        CHECK_OK(ctx->ops->csr_asymmetry(ctx, A, &worst, &largest));
        CHECK(worst == want_worst && largest == want_largest,
              "%s: asymmetry %.17g of %.17g, expected %.17g of %.17g", label, worst, largest,
              want_worst, want_largest);
        compare_diagonal(ctx, A, h, false, label);
        compare_diagonal(ctx, A, h, true, label);
        if (ctx->ops->csr_row_sums) compare_row_sums(ctx, A, h, label);
        /* the public query measures where A is stored */
        double relative = -1.0;
        CHECK_OK(kryl_matrix_asymmetry(A, &relative));
        const double want = want_worst == 0.0 ? 0.0 : want_worst / want_largest;
        CHECK(relative == want, "%s: kryl_matrix_asymmetry %.17g, expected %.17g", label, relative,
              want);
        bool has_copy = true;
        CHECK_OK(kryl_matrix_host_copy(A, &has_copy, NULL));
        CHECK(has_copy == !(device && from_backend), "%s: a host copy %s", label,
              has_copy ? "was made" : "is missing");
        kryl_matrix_destroy(&A);
    }
}

/* A, its symmetric part, that made nonsymmetric two ways, and shifted. */
static void check_family(kryl_context ctx, kryl_csr *A, const char *name)
{
    char what[192];
    compare(ctx, A, name);
    kryl_csr T, S, P;
    CHECK_OK(kryl_csr_transpose(A, &T));
    sum_of(A, &T, 0.0, &S);
    snprintf(what, sizeof what, "%s + its transpose", name);
    compare(ctx, &S, what);
    /* the last off-diagonal entry: changed, then dropped (its partner stays) */
    int64_t last = -1;
    for (int64_t i = 0; i < S.nrows; i++)
        for (int64_t k = S.row_ptr[i]; k < S.row_ptr[i + 1]; k++)
            if (S.col_idx[k] != i) last = k;
    if (last >= 0) {
        const double keep = S.values[last];
        S.values[last] += 0.25;
        snprintf(what, sizeof what, "%s + its transpose, one entry changed", name);
        compare(ctx, &S, what);
        S.values[last] = 0.0; /* stored zero: its partner has no match */
        snprintf(what, sizeof what, "%s + its transpose, one partner zero", name);
        compare(ctx, &S, what);
        S.values[last] = keep;
    }
    sum_of(&S, NULL, 2.0 * (double)S.nrows + 1.0, &P);
    snprintf(what, sizeof what, "%s + its transpose + shift", name);
    compare(ctx, &P, what);
    kryl_csr_free(&T);
    kryl_csr_free(&S);
    kryl_csr_free(&P);
}

/* Unsorted and repeated columns from the caller: summed into A's sorted
 * rows before any check, which then sees a_02 = 1 + 1 against a_20. */
static void check_unsorted_input(kryl_context ctx)
{
    const int64_t row_ptr[] = {0, 3, 4, 6};
    const int64_t col[] = {2, 0, 2, 1, 2, 0};
    for (int variant = 0; variant < 2; variant++) {
        const double a20 = variant == 0 ? 2.0 : 3.0;
        const double values[] = {1.0, 4.0, 1.0, 4.0, 4.0, a20};
        kryl_matrix A = NULL;
        CHECK_OK(kryl_matrix_create_csr(&A, ctx, 3, 3, 0, 3, row_ptr, col, values));
        if (A == NULL) continue;
        double asymmetry = -1.0;
        CHECK_OK(kryl_matrix_asymmetry(A, &asymmetry));
        const double want = variant == 0 ? 0.0 : 1.0 / 4.0;
        CHECK(asymmetry == want, "%s: unsorted repeated input: asymmetry %g, expected %g",
              kryl_backend_name(kryl_context_backend(ctx)), asymmetry, want);
        kryl_matrix_destroy(&A);
    }
}

static void check_backend(kryl_context ctx)
{
    check_unsorted_input(ctx);
    for (int shape = 0; shape < TEST_SHAPE_COUNT; shape++)
        for (int s = 0; s < test_awkward_size_count; s++) {
            const int64_t n = shape == TEST_SHAPE_SINGLE ? 1 : test_awkward_sizes[s];
            if (shape == TEST_SHAPE_SINGLE && s > 0) break;
            kryl_csr A;
            test_random_csr(&A, (test_shape)shape, n, n, (uint64_t)(17 * shape + s + 1));
            char name[96];
            snprintf(name, sizeof name, "%s %lld", test_shape_name((test_shape)shape),
                     (long long)n);
            check_family(ctx, &A, name);
            kryl_csr_free(&A);
        }
    const char *real[] = {"bcsstk06.mtx", "1138_bus.mtx", "west0479.mtx", "sherman1.mtx",
                          "lund_a.mtx",   "cage4.mtx",    "zenios.mtx"};
    for (size_t f = 0; f < sizeof real / sizeof *real; f++) {
        kryl_matrix R = kt_read(ctx, real[f]);
        if (R == NULL) {
            printf("%s: absent, skipped\n", real[f]);
            continue;
        }
        kryl_csr h = {0};
        const int64_t *rp;
        const int32_t *ci;
        const double *v;
        CHECK_OK(kryl_matrix_size(R, &h.nrows, &h.ncols, NULL));
        h.nrows_global = h.nrows;
        CHECK_OK(kryl_matrix_csr_view(R, &rp, &ci, &v));
        h.row_ptr = (int64_t *)rp;
        h.col_idx = (int32_t *)ci;
        h.values = (double *)v;
        compare(ctx, &h, real[f]);
        kryl_matrix_destroy(&R);
    }
}

static void check_config(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                         const char *name)
{
    (void)ref;
    (void)kind;
    (void)name;
    check_backend(ctx);
}

int main(void)
{
    test_each_config(true, check_config);
    return test_summary("test_matrix_checks");
}
