/* Test support: assertions with a summary, random matrices of awkward
 * shapes, and the location of the real test matrices. */
#ifndef KRYL_TEST_SUPPORT_H
#define KRYL_TEST_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/csr.h"
#include "kryl.h"

/* Exit status that CTest reports as "skipped". */
#define TEST_SKIP_CODE 77

extern int test_failures;
extern int test_checks;

/* CHECK(cond, fmt, ...): counts a failure and prints where, continues. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!(cond)) {                                                                             \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

/* CHECK_OK(call): the call returns KRYL_SUCCESS (prints kryl_last_error otherwise). */
#define CHECK_OK(call)                                                                             \
    do {                                                                                           \
        kryl_status check_ok_st_ = (call);                                                         \
        CHECK(check_ok_st_ == KRYL_SUCCESS, "%s -> %s: %s", #call, kryl_strerror(check_ok_st_),    \
              kryl_last_error());                                                                  \
    } while (0)

/* CHECK_STATUS(call, expected): the call fails with `expected`. */
#define CHECK_STATUS(call, expected)                                                               \
    do {                                                                                           \
        kryl_status check_st_ = (call);                                                            \
        CHECK(check_st_ == (expected), "%s -> %s (%s), expected %s", #call,                        \
              kryl_strerror(check_st_), kryl_last_error(), kryl_strerror(expected));               \
    } while (0)

/* CHECK_CLOSE(a, b, tol): |a - b| <= tol * max(1, |b|). */
#define CHECK_CLOSE(a, b, tol)                                                                     \
    do {                                                                                           \
        double cc_a_ = (a), cc_b_ = (b);                                                           \
        CHECK(test_close(cc_a_, cc_b_, (tol)), "%s = %.17g, %s = %.17g", #a, cc_a_, #b, cc_b_);    \
    } while (0)

bool test_close(double a, double b, double tol);

/* Print "N passed, N failed" and return the process exit status. */
int test_summary(const char *name);

/* Awkward shapes every backend kernel is checked on. */
typedef enum test_shape {
    TEST_SHAPE_RANDOM = 0, /* random rows of 0..8 entries */
    TEST_SHAPE_EMPTY_ROWS, /* every third row empty */
    TEST_SHAPE_DENSE_ROW,  /* one completely dense row */
    TEST_SHAPE_SINGLE,     /* n = 1 */
    TEST_SHAPE_DIAGONAL,   /* diagonal only */
    TEST_SHAPE_LONG_ROWS,  /* rows of 30..200 entries (vector kernel territory) */
    TEST_SHAPE_COUNT
} test_shape;

const char *test_shape_name(test_shape shape);

/* A random nrows x ncols CSR of the given shape (columns sorted, unique),
 * values uniform in [-1, 1).  Deterministic in seed. */
void test_random_csr(kryl_csr *A, test_shape shape, int64_t nrows, int64_t ncols, uint64_t seed);

/* Uniform [-1, 1) values. */
void test_random_values(double *x, int64_t n, uint64_t seed);

/* Sizes that are not multiples of 32 and cross block boundaries. */
extern const int64_t test_awkward_sizes[];
extern const int test_awkward_size_count;

/* Path of a real matrix ("bcsstk06.mtx") or NULL if the directory is absent.
 * The directory is $KRYL_MATRICES or the one configured at build time. */
const char *test_matrix_path(const char *file);

/* Backends compiled in and usable here (ref always first). */
int test_backends(kryl_backend_kind *kinds, int max);

/* A random n x n matrix of the shape (test_random_csr with seed) on ctx, in
 * CSR of `precision`; float_values rounds its values to floats first. */
kryl_matrix test_random_matrix(kryl_context ctx, test_shape shape, int64_t n, uint64_t seed,
                               kryl_precision precision, bool float_values);

/* A context on `kind` with default options; the test ends (exit 1) when it
 * cannot be created. */
kryl_context test_context(kryl_backend_kind kind);

/* Receives each backend configuration: the ref context, the one to check,
 * its backend and its name "<backend> (<device>)". */
typedef void (*test_config_fn)(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                               const char *name);

/* Calls check for every backend usable here (ref itself only when with_ref),
 * omp both with OpenMP's default team and with 3 threads (uneven blocks). */
void test_each_config(bool with_ref, test_config_fn check);

/* Whether a usable CUDA device is present; when not, prints "<name>: no
 * usable CUDA device, skipped" and the caller returns TEST_SKIP_CODE. */
bool test_cuda_device(const char *name);

/* max_i |a_i - b_i| / max(1, max_i |b_i|) */
double test_rel_diff(const double *a, const double *b, int64_t n);

#endif
