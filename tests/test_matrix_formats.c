/* kryl_matrix_format_info and kryl_matrix_choose_format: exact footprints
 * of known shapes, the model's arithmetic, agreement with what a solver
 * accepts or refuses, auto's choice, and bad arguments, on every backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "test_support.h"

static kryl_matrix generated(kryl_context ctx, kryl_generator_kind kind, int64_t n)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, n);
    int64_t rows = 0, nnz;
    CHECK_OK(kryl_generator_size(&g, &rows, &nnz));
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_generate(&A, ctx, &g, 0, rows));
    return A;
}

/* The pJDS paper's worst case for ELLPACK: row 0 full, every other row its
 * diagonal alone (n + (n - 1) nonzeros, all 1). */
static kryl_matrix one_full_row(kryl_context ctx, int64_t n)
{
    kryl_assembly as = NULL;
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_create(&as, ctx, n, n, 0, n));
    for (int64_t j = 0; j < n; j++) CHECK_OK(kryl_assembly_add_value(as, 0, j, 1.0 + (j == 0)));
    for (int64_t i = 1; i < n; i++) CHECK_OK(kryl_assembly_add_value(as, i, i, 2.0));
    CHECK_OK(kryl_assembly_finish(as, &A));
    kryl_assembly_destroy(&as);
    return A;
}

static int64_t round32(int64_t x) { return (x + 31) / 32 * 32; }

/* Exact CSR footprint: values 8, columns 4, 64-bit row offsets. */
static void check_csr_bytes(kryl_matrix A, const char *label)
{
    int64_t n, nnz;
    CHECK_OK(kryl_matrix_size(A, &n, NULL, &nnz));
    kryl_format_info info;
    CHECK_OK(kryl_matrix_format_info(A, KRYL_FORMAT_CSR, &info));
    CHECK(info.format == KRYL_FORMAT_CSR && info.suitable && info.why[0] == '\0',
          "%s: csr is always suitable", label);
    CHECK(info.stored == nnz, "%s: csr stores %lld slots, nnz %lld", label, (long long)info.stored,
          (long long)nnz);
    CHECK(info.bytes == 12 * nnz + 8 * (n + 1), "%s: csr bytes %lld, expected %lld", label,
          (long long)info.bytes, (long long)(12 * nnz + 8 * (n + 1)));
    CHECK(info.bytes_single == 8 * nnz + 8 * (n + 1), "%s: csr single bytes %lld", label,
          (long long)info.bytes_single);
    CHECK_CLOSE(info.ratio_csr, 1.0, 1e-15);
    CHECK_CLOSE(info.ratio_nnz, (double)info.bytes / (12.0 * (double)nnz), 1e-15);
}

/* The model's arithmetic, and the footprint's ratios, for every format. */
static void check_model(kryl_matrix A, const char *label)
{
    int64_t n, nnz;
    CHECK_OK(kryl_matrix_size(A, &n, NULL, &nnz));
    kryl_device_model dev;
    CHECK_OK(kryl_context_device_model(A->ctx, &dev));
    kryl_format_info csr;
    CHECK_OK(kryl_matrix_format_info(A, KRYL_FORMAT_CSR, &csr));
    for (int f = KRYL_FORMAT_CSR; f <= KRYL_FORMAT_DIA; f++) {
        kryl_format_info info;
        CHECK_OK(kryl_matrix_format_info(A, (kryl_format)f, &info));
        const char *name = kryl_format_name((kryl_format)f);
        CHECK((int)info.format == f, "%s %s: format field", label, name);
        CHECK(info.suitable == (info.why[0] == '\0'), "%s %s: why '%s' iff refused", label, name,
              info.why);
        CHECK(info.suitable || strncmp(info.why, name, strlen(name)) == 0,
              "%s %s: the refusal names the format: '%s'", label, name, info.why);
        CHECK(info.stored >= nnz, "%s %s: stored %lld < nnz %lld", label, name,
              (long long)info.stored, (long long)nnz);
        CHECK(info.bytes_single < info.bytes, "%s %s: single bytes %lld >= double %lld", label,
              name, (long long)info.bytes_single, (long long)info.bytes);
        /* 4 bytes fewer per value slot in single */
        CHECK(info.bytes - info.bytes_single == 4 * info.stored, "%s %s: single saves %lld", label,
              name, (long long)(info.bytes - info.bytes_single));
        CHECK_CLOSE(info.ratio_csr, (double)info.bytes / (double)csr.bytes, 1e-14);
        CHECK_CLOSE(info.ratio_nnz, (double)info.bytes / (12.0 * (double)nnz), 1e-14);
        CHECK(info.alpha > 0.0 && info.alpha <= 1.0 + 1e-12, "%s %s: alpha %g", label, name,
              info.alpha);
        CHECK(info.bandwidth == dev.bandwidth, "%s %s: bandwidth %g, device model %g", label, name,
              info.bandwidth, dev.bandwidth);
        /* t = bytes / bandwidth;  B = bytes / (2 nnz) */
        CHECK_CLOSE(info.predicted_seconds, info.spmv_bytes / dev.bandwidth, 1e-14);
        CHECK_CLOSE(info.code_balance, info.spmv_bytes / (2.0 * (double)nnz), 1e-14);
        /* at least y written and the values read */
        CHECK(info.spmv_bytes >= 8.0 * (double)(n + nnz), "%s %s: spmv bytes %g", label, name,
              info.spmv_bytes);
        CHECK(info.kernel == ((A->ctx->ops->formats & (1u << f)) != 0), "%s %s: kernel flag", label,
              name);
    }
}

/* A solver accepts exactly the suitable formats and refuses the others
 * with the same message (where the backend has the kernel). */
static void check_agrees_with_solver(kryl_matrix A, const char *label)
{
    for (int f = KRYL_FORMAT_CSR; f <= KRYL_FORMAT_DIA; f++) {
        kryl_format_info info;
        CHECK_OK(kryl_matrix_format_info(A, (kryl_format)f, &info));
        if (!info.kernel) continue;
        kryl_solver_options o;
        kryl_solver_options_init(&o);
        o.format = (kryl_format)f;
        kryl_solver s = NULL;
        kryl_status st = kryl_solver_create(&s, A, &o);
        const char *name = kryl_format_name((kryl_format)f);
        if (info.suitable) {
            CHECK(st == KRYL_SUCCESS, "%s %s: suitable but the solver says %s", label, name,
                  kryl_last_error());
        } else {
            CHECK(st == KRYL_ERR_FORMAT_UNSUITABLE, "%s %s: refused, solver status %s", label, name,
                  kryl_strerror(st));
            CHECK(strcmp(kryl_last_error(), info.why) == 0, "%s %s: solver says '%s', info '%s'",
                  label, name, kryl_last_error(), info.why);
        }
        kryl_solver_destroy(&s);
    }
}

/* auto: a suitable format with a kernel, within the model's tie of the
 * fastest prediction, named first in `why`; a solver with AUTO agrees. */
static void check_choice(kryl_matrix A, const char *label)
{
    kryl_format chosen = KRYL_FORMAT_AUTO;
    char why[320];
    CHECK_OK(kryl_matrix_choose_format(A, &chosen, why, sizeof why));
    CHECK(chosen >= KRYL_FORMAT_CSR && chosen <= KRYL_FORMAT_DIA, "%s: chose %d", label,
          (int)chosen);
    const char *name = kryl_format_name(chosen);
    CHECK(strncmp(why, name, strlen(name)) == 0, "%s: why '%s' starts with %s", label, why, name);
    kryl_format_info info;
    CHECK_OK(kryl_matrix_format_info(A, chosen, &info));
    CHECK(info.suitable && info.kernel, "%s: chose %s, suitable %d, kernel %d", label, name,
          info.suitable, info.kernel);
    double fastest = INFINITY;
    for (int f = KRYL_FORMAT_CSR; f <= KRYL_FORMAT_DIA; f++) {
        kryl_format_info other;
        CHECK_OK(kryl_matrix_format_info(A, (kryl_format)f, &other));
        if (other.suitable && other.kernel && other.predicted_seconds < fastest)
            fastest = other.predicted_seconds;
    }
    CHECK(chosen == KRYL_FORMAT_CSR || info.predicted_seconds <= 1.02 * fastest,
          "%s: %s predicted %g s, fastest %g s", label, name, info.predicted_seconds, fastest);
    /* a short buffer is cut, not overrun; NULL is allowed */
    char small[8];
    memset(small, 'x', sizeof small);
    CHECK_OK(kryl_matrix_choose_format(A, &chosen, small, 4));
    CHECK(small[3] == '\0' && small[4] == 'x', "%s: why[4] holds '%.3s' and stays in bounds", label,
          small);
    CHECK_OK(kryl_matrix_choose_format(A, &chosen, NULL, 0));

    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_GMRES; /* any square matrix */
    o.format = KRYL_FORMAT_AUTO;
    kryl_solver s = NULL;
    kryl_format used = KRYL_FORMAT_AUTO;
    const char *reason = NULL;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    if (s != NULL) {
        CHECK_OK(kryl_solver_format(s, &used, &reason));
        CHECK(used == chosen, "%s: the solver's auto is %s, kryl_matrix_choose_format's %s", label,
              kryl_format_name(used), name);
    }
    kryl_solver_destroy(&s);
}

/* Row 0 full: ELL stores n * round32(n) slots and is refused; pJDS and
 * SELL store 32 n + 32 (ceil(n/32) - 1) (docs/FORMATS.md). */
static void check_full_row(kryl_context ctx)
{
    const int64_t n = 64; /* ell 4096 slots > 3 x 1024: refused; pjds 2112: not */
    kryl_matrix A = one_full_row(ctx, n);
    kryl_format_info ell, pjds;
    CHECK_OK(kryl_matrix_format_info(A, KRYL_FORMAT_ELL, &ell));
    CHECK(ell.stored == n * round32(n), "ell stores %lld, expected %lld", (long long)ell.stored,
          (long long)(n * round32(n)));
    CHECK(!ell.suitable && strstr(ell.why, "ell") == ell.why, "ell refused: '%s'", ell.why);
    CHECK_OK(kryl_matrix_format_info(A, KRYL_FORMAT_PJDS, &pjds));
    CHECK(pjds.stored == 32 * n + 32 * ((n + 31) / 32 - 1), "pjds stores %lld",
          (long long)pjds.stored);
    CHECK(pjds.suitable, "pjds suitable for one full row: '%s'", pjds.why);
    CHECK(pjds.ratio_csr < ell.ratio_csr, "pjds ratio %g < ell ratio %g", pjds.ratio_csr,
          ell.ratio_csr);
    check_model(A, "one full row");
    check_choice(A, "one full row");
    kryl_matrix_destroy(&A);
}

static void check_arguments(kryl_context ctx)
{
    kryl_matrix A = generated(ctx, KRYL_GEN_POISSON2D5, 5);
    kryl_format_info info;
    kryl_format f;
    CHECK_STATUS(kryl_matrix_format_info(NULL, KRYL_FORMAT_CSR, &info), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_format_info(A, KRYL_FORMAT_CSR, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_format_info(A, KRYL_FORMAT_AUTO, &info), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "kryl_matrix_choose_format") != NULL,
          "auto: the message points to kryl_matrix_choose_format: '%s'", kryl_last_error());
    CHECK_STATUS(kryl_matrix_format_info(A, (kryl_format)42, &info), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "42") != NULL, "bad format named: '%s'", kryl_last_error());
    CHECK_STATUS(kryl_matrix_choose_format(NULL, &f, NULL, 0), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_choose_format(A, NULL, NULL, 0), KRYL_ERR_INVALID_ARGUMENT);
    kryl_matrix_destroy(&A);

    /* a rectangular matrix: no format stores it, and the message says so */
    const int64_t row_ptr[] = {0, 2, 3}, col_idx[] = {0, 2, 1};
    const double values[] = {1.0, 2.0, 3.0};
    CHECK_OK(kryl_matrix_create_csr(&A, ctx, 2, 3, 0, 2, row_ptr, col_idx, values));
    CHECK_STATUS(kryl_matrix_format_info(A, KRYL_FORMAT_ELL, &info), KRYL_ERR_UNSUPPORTED);
    CHECK(strstr(kryl_last_error(), "square") != NULL, "rectangular: '%s'", kryl_last_error());
    char why[64] = "unchanged";
    CHECK_STATUS(kryl_matrix_choose_format(A, &f, why, sizeof why), KRYL_ERR_UNSUPPORTED);
    CHECK(f == KRYL_FORMAT_CSR && why[0] == '\0', "rectangular: format %d, why '%s'", (int)f, why);
    kryl_matrix_destroy(&A);
}

static void check_matrix(kryl_matrix A, const char *label)
{
    check_csr_bytes(A, label);
    check_model(A, label);
    check_agrees_with_solver(A, label);
    check_choice(A, label);
}

int main(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) {
        kryl_context_options co;
        kryl_context_options_init(&co);
        co.backend = kinds[k];
        kryl_context ctx = NULL;
        CHECK_OK(kryl_context_create(&ctx, &co));
        if (ctx == NULL) continue;
        kryl_device_model dev;
        CHECK_OK(kryl_context_device_model(ctx, &dev));
        CHECK(dev.bandwidth > 0.0 && dev.cache_bytes >= 0 && dev.line_bytes >= 8,
              "%s: device model %g B/s, %lld B cache, %d B lines", kryl_backend_name(kinds[k]),
              dev.bandwidth, (long long)dev.cache_bytes, (int)dev.line_bytes);
        kryl_matrix A = generated(ctx, KRYL_GEN_POISSON2D5, 23);
        check_matrix(A, "poisson2d 23");
        kryl_matrix_destroy(&A);
        A = generated(ctx, KRYL_GEN_RANDOM_SPD, 500);
        check_matrix(A, "random-spd 500");
        kryl_matrix_destroy(&A);
        A = generated(ctx, KRYL_GEN_POWERLAW, 1000);
        check_csr_bytes(A, "powerlaw 1000");
        check_model(A, "powerlaw 1000");
        check_choice(A, "powerlaw 1000");
        kryl_matrix_destroy(&A);
        const char *path = test_matrix_path("bcsstk06.mtx");
        if (path != NULL) {
            CHECK_OK(kryl_matrix_read_mtx(&A, ctx, path));
            check_matrix(A, "bcsstk06");
            kryl_matrix_destroy(&A);
        }
        check_full_row(ctx);
        check_arguments(ctx);
        kryl_context_destroy(&ctx);
    }
    return test_summary("test_matrix_formats");
}
