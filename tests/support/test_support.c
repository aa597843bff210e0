#include "test_support.h"

#include "backends/backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int test_failures = 0;
int test_checks = 0;

const int64_t test_awkward_sizes[] = {1, 2, 31, 33, 100, 257, 1000, 4099};
const int test_awkward_size_count = (int)(sizeof test_awkward_sizes / sizeof test_awkward_sizes[0]);

bool test_close(double a, double b, double tol)
{
    if (isnan(a) || isnan(b)) return false;
    double scale = fabs(b) > 1.0 ? fabs(b) : 1.0;
    return fabs(a - b) <= tol * scale;
}

int test_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, test_checks - test_failures, test_failures);
    return test_failures == 0 ? 0 : 1;
}

const char *test_shape_name(test_shape shape)
{
    static const char *names[] = {"random", "empty-rows", "dense-row",
                                  "single", "diagonal",   "long-rows"};
    return shape < TEST_SHAPE_COUNT ? names[shape] : "?";
}

/* splitmix64: a small, good, seedable generator. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *state) { return (double)(next_random(state) >> 11) * 0x1.0p-53; }

void test_random_values(double *x, int64_t n, uint64_t seed)
{
    uint64_t state = seed * 7919 + 1;
    for (int64_t i = 0; i < n; i++) x[i] = 2.0 * uniform(&state) - 1.0;
}

static int64_t row_length(test_shape shape, int64_t i, int64_t nrows, int64_t ncols,
                          uint64_t *state)
{
    int64_t len;
    switch (shape) {
    case TEST_SHAPE_EMPTY_ROWS: len = (i % 3 == 0) ? 0 : (int64_t)(next_random(state) % 9); break;
    case TEST_SHAPE_DENSE_ROW:
        len = (i == nrows / 2) ? ncols : (int64_t)(next_random(state) % 6);
        break;
    case TEST_SHAPE_DIAGONAL: len = 1; break;
    case TEST_SHAPE_LONG_ROWS: len = 30 + (int64_t)(next_random(state) % 171); break;
    default: len = (int64_t)(next_random(state) % 9); break;
    }
    return len < ncols ? len : ncols;
}

void test_random_csr(kryl_csr *A, test_shape shape, int64_t nrows, int64_t ncols, uint64_t seed)
{
    if (shape == TEST_SHAPE_SINGLE) nrows = ncols = 1;
    uint64_t state = seed * 104729 + 17;
    int64_t *lens = malloc((size_t)nrows * sizeof *lens);
    int64_t nnz = 0;
    for (int64_t i = 0; i < nrows; i++) nnz += lens[i] = row_length(shape, i, nrows, ncols, &state);
    if (kryl_csr_alloc(A, nrows, ncols, nnz) != KRYL_SUCCESS) abort();
    A->nrows_global = nrows;
    A->row_begin = 0;
    char *used = calloc((size_t)ncols, 1);
    int64_t k = 0;
    for (int64_t i = 0; i < nrows; i++) {
        A->row_ptr[i] = k;
        if (shape == TEST_SHAPE_DIAGONAL || shape == TEST_SHAPE_SINGLE) {
            A->col_idx[k] = (int32_t)(i < ncols ? i : ncols - 1);
            A->values[k++] = 2.0 * uniform(&state) - 1.0;
            continue;
        }
        /* choose lens[i] distinct columns; a dense row takes all of them */
        int64_t start = k;
        for (int64_t c = 0; c < lens[i]; c++) {
            int64_t j;
            if (lens[i] == ncols)
                j = c;
            else
                do {
                    j = (int64_t)(next_random(&state) % (uint64_t)ncols);
                } while (used[j]);
            used[j] = 1;
            A->col_idx[k] = (int32_t)j;
            A->values[k++] = 2.0 * uniform(&state) - 1.0;
        }
        for (int64_t q = start; q < k; q++) used[A->col_idx[q]] = 0;
    }
    A->row_ptr[nrows] = k;
    free(used);
    free(lens);
    if (kryl_csr_sort_and_sum(A) != KRYL_SUCCESS) abort();
}

const char *test_matrix_path(const char *file)
{
    static char path[4096];
    const char *dir = getenv("KRYL_MATRICES");
    if (dir == NULL || dir[0] == '\0') dir = KRYL_MATRICES_DIR;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (stat(path, &st) != 0) return NULL;
    return path;
}

int test_backends(kryl_backend_kind *kinds, int max)
{
    const kryl_backend_kind all[] = {KRYL_BACKEND_REF, KRYL_BACKEND_OMP, KRYL_BACKEND_CUDA};
    int count = 0;
    for (int i = 0; i < 3 && count < max; i++)
        if (kryl_backend_available(all[i])) kinds[count++] = all[i];
    return count;
}

kryl_matrix test_random_matrix(kryl_context ctx, test_shape shape, int64_t n, uint64_t seed,
                               kryl_precision precision, bool float_values)
{
    kryl_csr csr;
    test_random_csr(&csr, shape, n, n, seed);
    if (float_values)
        for (int64_t k = 0; k < kryl_csr_nnz(&csr); k++) csr.values[k] = (float)csr.values[k];
    kryl_matrix A = NULL, B = NULL;
    CHECK_OK(kryl_matrix_from_csr(&A, ctx, &csr));
    if (A == NULL || precision == KRYL_DOUBLE) return A;
    CHECK_OK(kryl_matrix_convert(&B, A, precision, KRYL_FORMAT_CSR, NULL, KRYL_ORDER_NONE));
    kryl_matrix_destroy(&A);
    return B;
}

kryl_context test_context(kryl_backend_kind kind)
{
    kryl_context_options o;
    kryl_context_options_init(&o);
    o.backend = kind;
    kryl_context ctx = NULL;
    if (kryl_context_create(&ctx, &o) != KRYL_SUCCESS) {
        fprintf(stderr, "cannot create a %s context: %s\n", kryl_backend_name(kind),
                kryl_last_error());
        exit(1);
    }
    return ctx;
}

void test_each_config(bool with_ref, test_config_fn check)
{
    kryl_backend_kind kinds[8];
    int count = test_backends(kinds, 8);
    kryl_context ref_ctx = NULL;
    kryl_context_options opt;
    kryl_context_options_init(&opt);
    opt.backend = KRYL_BACKEND_REF;
    CHECK_OK(kryl_context_create(&ref_ctx, &opt));
    if (ref_ctx == NULL) return;
    for (int b = 0; b < count; b++) {
        if (!with_ref && kinds[b] == KRYL_BACKEND_REF) continue;
        const int threads[2] = {0, 3};
        int configs = kinds[b] == KRYL_BACKEND_OMP ? 2 : 1;
        for (int t = 0; t < configs; t++) {
            kryl_context ctx = NULL;
            opt.backend = kinds[b];
            opt.threads = threads[t];
            CHECK_OK(kryl_context_create(&ctx, &opt));
            if (ctx == NULL) continue;
            char name[200];
            snprintf(name, sizeof name, "%s (%s)", kryl_backend_name(kinds[b]),
                     kryl_context_device_name(ctx));
            printf("checking %s\n", name);
            fflush(stdout);
            check(ref_ctx, ctx, kinds[b], name);
            kryl_context_destroy(&ctx);
        }
    }
    kryl_context_destroy(&ref_ctx);
}

bool test_cuda_device(const char *name)
{
    if (kryl_cuda_device_present()) return true;
    printf("%s: no usable CUDA device, skipped\n", name);
    return false;
}

double test_rel_diff(const double *a, const double *b, int64_t n)
{
    double diff = 0.0, scale = 1.0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(a[i]) != isnan(b[i])) return INFINITY;
        double d = fabs(a[i] - b[i]);
        if (d > diff) diff = d;
        if (fabs(b[i]) > scale) scale = fabs(b[i]);
    }
    return diff / scale;
}
