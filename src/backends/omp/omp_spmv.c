/* The omp backend's SpMV, y = alpha*A*x + beta*z: checks, then the CSR
 * storage variants of kryl_omp_matrix from one template, or the other
 * formats' kernels (omp_spmv_fmt.c). */
#include <omp.h>

#include "backends/omp/omp_backend.h"
#include "backends/omp/omp_real.h"

#define ABSOLUTE(i, c) (c)
#define RELATIVE(i, c) ((i) + (c))

/* double vectors, double values, absolute columns */
#define REAL     double
#define VALUE    double
#define COLUMN_T int32_t
#define COLUMNS  col_idx
#define COLUMN   ABSOLUTE
#define SUFFIX   _double
#include "backends/omp/omp_spmv_template.h"

/* double vectors, float values (exact), absolute columns */
#define REAL     double
#define VALUE    float
#define COLUMN_T int32_t
#define COLUMNS  col_idx
#define COLUMN   ABSOLUTE
#define SUFFIX   _double_floatval
#include "backends/omp/omp_spmv_template.h"

/* double vectors, float values (exact), 16-bit column offsets */
#define REAL     double
#define VALUE    float
#define COLUMN_T int16_t
#define COLUMNS  col_offset
#define COLUMN   RELATIVE
#define SUFFIX   _double_floatval_offsets
#include "backends/omp/omp_spmv_template.h"

/* float vectors and values, absolute columns */
#define REAL     float
#define VALUE    float
#define COLUMN_T int32_t
#define COLUMNS  col_idx
#define COLUMN   ABSOLUTE
#define SUFFIX   _single
#include "backends/omp/omp_spmv_template.h"

/* float vectors and values, 16-bit column offsets */
#define REAL     float
#define VALUE    float
#define COLUMN_T int16_t
#define COLUMNS  col_offset
#define COLUMN   RELATIVE
#define SUFFIX   _single_offsets
#include "backends/omp/omp_spmv_template.h"

/* Checks a vector argument of the SpMV: its length and A's precision. */
static kryl_status check_spmv_vector(kryl_matrix A, kryl_vector v, const char *name, int64_t length)
{
    if (v->n != length)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "omp spmv: %s has %lld entries, expected %lld", name, (long long)v->n,
                          (long long)length);
    if (v->precision != A->precision)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp spmv: %s is in %s precision, expected the matrix's (%s)", name,
                          kryl_precision_name(v->precision), kryl_precision_name(A->precision));
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_spmv(kryl_context ctx, kryl_matrix A, double alpha, kryl_vector x, double beta,
                          kryl_vector z, kryl_vector y, const kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(x);
    KRYL_REQUIRE_ARG(y);
    const kryl_omp_matrix *M = A->storage;
    if (M == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "omp spmv: the matrix has no omp storage");
    KRYL_TRY(check_spmv_vector(A, x, "x", M->ncols));
    KRYL_TRY(check_spmv_vector(A, y, "y", M->nrows));
    if (z != NULL) KRYL_TRY(check_spmv_vector(A, z, "z", M->nrows));
    if (x->data == y->data && y->n > 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp spmv: x and y share storage, expected distinct vectors");
    if (monitor != NULL && monitor->stop != KRYL_STOP_RUNNING) return KRYL_SUCCESS;
    /* beta = 0 ignores z, so NaN in it does not spread */
    const void *zd = z != NULL && beta != 0.0 ? z->data : NULL;
    /* once an iteration of every method: the team follows the free cores */
    kryl_omp_team_refresh(kryl_omp_state_of(ctx));
    int nt = kryl_omp_state_of(ctx)->threads;
    if (M->fmt != NULL) {
        kryl_omp_fmt_spmv(nt, M, A->precision, alpha, x->data, beta, zd, y->data);
        return KRYL_SUCCESS;
    }
    if (A->precision == KRYL_SINGLE) {
        if (M->col_offset != NULL)
            spmv_single_offsets(nt, M, M->values_single, alpha, x->data, beta, zd, y->data);
        else
            spmv_single(nt, M, M->values_single, alpha, x->data, beta, zd, y->data);
    } else if (M->values_single == NULL) {
        spmv_double(nt, M, M->values_double, alpha, x->data, beta, zd, y->data);
    } else if (M->col_offset != NULL) {
        spmv_double_floatval_offsets(nt, M, M->values_single, alpha, x->data, beta, zd, y->data);
    } else {
        spmv_double_floatval(nt, M, M->values_single, alpha, x->data, beta, zd, y->data);
    }
    return KRYL_SUCCESS;
}
