/* Public reading and writing of dense vectors as Matrix Market files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/mtx.h"

kryl_status kryl_read_mtx_vector(const char *path, int64_t *length, double **values)
{
    KRYL_REQUIRE_ARG(length);
    KRYL_REQUIRE_ARG(values);
    *length = 0;
    *values = NULL;
    KRYL_REQUIRE_ARG(path);
    kryl_mtx_header h;
    kryl_coo coo;
    KRYL_TRY(kryl_mtx_read(path, &h, &coo));
    if (h.nrows != 1 && h.ncols != 1) {
        kryl_coo_free(&coo);
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "%s: expected a vector (an n x 1 or 1 x n matrix), found a %lld x %lld "
                          "matrix",
                          path, (long long)h.nrows, (long long)h.ncols);
    }
    int64_t n = h.ncols == 1 ? h.nrows : h.ncols;
    double *x = calloc((size_t)(n > 0 ? n : 1), sizeof *x);
    unsigned char *seen = calloc((size_t)(n > 0 ? n : 1), 1);
    if (x == NULL || seen == NULL) {
        free(x);
        free(seen);
        kryl_coo_free(&coo);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld values", path,
                          (long long)n);
    }
    /* x_(i+j) = the sum of the entries at (i, j), one of i, j being 0, in
     * file order: missing entries stay zero and a lone -0.0 stays -0.0 */
    for (int64_t k = 0; k < coo.count; k++) {
        int64_t i = coo.rows[k] + coo.cols[k];
        x[i] = seen[i] ? x[i] + coo.values[k] : coo.values[k];
        seen[i] = 1;
        if (!isfinite(x[i])) {
            kryl_status st =
                KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                           "the duplicates of entry (%lld, %lld) (1-based) sum to "
                           "%g; expected a finite value",
                           (long long)coo.rows[k] + 1, (long long)coo.cols[k] + 1, x[i]);
            st = kryl_mtx_name_line_of(path, coo.rows[k], coo.cols[k], st);
            free(x);
            free(seen);
            kryl_coo_free(&coo);
            return st;
        }
    }
    free(seen);
    kryl_coo_free(&coo);
    *length = n;
    *values = x;
    return KRYL_SUCCESS;
}

kryl_status kryl_read_mtx_array(const char *path, int64_t *rows, int64_t *cols, double **values)
{
    KRYL_REQUIRE_ARG(rows);
    KRYL_REQUIRE_ARG(cols);
    KRYL_REQUIRE_ARG(values);
    *rows = *cols = 0;
    *values = NULL;
    KRYL_REQUIRE_ARG(path);
    kryl_mtx_header h;
    kryl_coo coo;
    KRYL_TRY(kryl_mtx_read(path, &h, &coo));
    if (h.ncols < 1 || h.ncols > KRYL_MTX_ARRAY_MAX_COLS) {
        kryl_coo_free(&coo);
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "%s: a %lld x %lld matrix; expected a dense array of 1 to %d columns",
                          path, (long long)h.nrows, (long long)h.ncols, KRYL_MTX_ARRAY_MAX_COLS);
    }
    size_t count = (size_t)h.nrows * (size_t)h.ncols;
    /* an array file holds every value; a coordinate file's size line alone must not
     * make us allocate what it does not hold */
    if (h.format == KRYL_MTX_COORDINATE && count > (size_t)1 << 28) {
        kryl_coo_free(&coo);
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "%s: a %lld x %lld coordinate matrix is too large to read as a dense "
                          "array (at most 2^28 values; write it as an array file)",
                          path, (long long)h.nrows, (long long)h.ncols);
    }
    double *x = calloc(count > 0 ? count : 1, sizeof *x);
    if (x == NULL) {
        kryl_coo_free(&coo);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld x %lld values", path,
                          (long long)h.nrows, (long long)h.ncols);
    }
    /* x(i, j) = the sum of the entries at (i, j); missing entries stay zero */
    for (int64_t k = 0; k < coo.count; k++) x[coo.rows[k] + h.nrows * coo.cols[k]] += coo.values[k];
    kryl_coo_free(&coo);
    *rows = h.nrows;
    *cols = h.ncols;
    *values = x;
    return KRYL_SUCCESS;
}

kryl_status kryl_write_mtx_vector(const char *path, int64_t length, const double *values)
{
    return kryl_mtx_write_dense(path, length, values);
}

kryl_status kryl_write_mtx_array(const char *path, int64_t rows, int64_t cols, const double *values)
{
    return kryl_mtx_write_array(path, rows, cols, values);
}
