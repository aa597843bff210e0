/* Writing Matrix Market files: CSR rows as coordinate real general, dense
 * vectors as array real general.  Lines are formatted into a large buffer
 * (integers by hand, values with "%.17g", which reads back exactly) and
 * written in blocks to a file that replaces the target only once it is
 * complete (io/file_out.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/file_out.h"
#include "io/mtx.h"

#define WRITE_BUFFER   ((size_t)1 << 20)
#define LINE_MAX_BYTES 96 /* two 20-digit indices and a 24-character value */

typedef struct writer {
    kryl_file_out out;
    char *buf;
    size_t used;
} writer;

static kryl_status writer_open(writer *w, const char *path)
{
    memset(w, 0, sizeof *w);
    w->buf = malloc(WRITE_BUFFER);
    if (w->buf == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate a write buffer of %zu bytes",
                          path, WRITE_BUFFER);
    kryl_status st = kryl_file_out_open(&w->out, path);
    if (st != KRYL_SUCCESS) free(w->buf);
    return st;
}

static void writer_flush(writer *w)
{
    kryl_file_out_write(&w->out, w->buf, w->used);
    w->used = 0;
}

/* Room for one more line in the buffer. */
static inline char *writer_line(writer *w)
{
    if (w->used + LINE_MAX_BYTES > WRITE_BUFFER) writer_flush(w);
    return w->buf + w->used;
}

/* Flush and commit: the file is replaced whole or left as it was. */
static kryl_status writer_close(writer *w)
{
    writer_flush(w);
    free(w->buf);
    return kryl_file_out_commit(&w->out);
}

/* Decimal digits of v at p; returns the end. */
static inline char *put_uint(char *p, uint64_t v)
{
    char digits[20];
    int n = 0;
    /* digits of v, least significant first */
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) *p++ = digits[--n];
    return p;
}

static inline char *put_value(char *p, double v) { return p + snprintf(p, 32, "%.17g", v); }

static void writer_text(writer *w, const char *text)
{
    char *p = writer_line(w);
    size_t n = strlen(text);
    memcpy(p, text, n);
    w->used += n;
}

static void writer_size(writer *w, int64_t rows, int64_t cols, int64_t entries)
{
    char *p = writer_line(w);
    char *q = put_uint(p, (uint64_t)rows);
    *q++ = ' ';
    q = put_uint(q, (uint64_t)cols);
    if (entries >= 0) {
        *q++ = ' ';
        q = put_uint(q, (uint64_t)entries);
    }
    *q++ = '\n';
    w->used += (size_t)(q - p);
}

/* Index of the first non-finite of n values, or -1. */
static int64_t first_nonfinite(const double *values, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (!isfinite(values[k])) return k;
    return -1;
}

kryl_status kryl_mtx_write_csr(const char *path, const kryl_csr *A)
{
    KRYL_REQUIRE_ARG(path);
    KRYL_REQUIRE_ARG(A);
    if (A->nrows < 0 || A->row_begin < 0 || A->row_begin + A->nrows > A->nrows_global ||
        A->ncols < 0 || (A->nrows > 0 && A->row_ptr == NULL))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "%s: rows [%lld, %lld) are not rows of a %lld x %lld matrix", path,
                          (long long)A->row_begin, (long long)(A->row_begin + A->nrows),
                          (long long)A->nrows_global, (long long)A->ncols);
    int64_t nnz = A->row_ptr != NULL ? A->row_ptr[A->nrows] : 0;
    int64_t bad = first_nonfinite(A->values, nnz);
    if (bad >= 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                          "%s: expected finite values to write, found %g at entry %lld", path,
                          A->values[bad], (long long)bad);
    writer w;
    KRYL_TRY(writer_open(&w, path));
    writer_text(&w, "%%MatrixMarket matrix coordinate real general\n");
    writer_size(&w, A->nrows_global, A->ncols, nnz);
    for (int64_t i = 0; i < A->nrows; i++) {
        uint64_t row = (uint64_t)(A->row_begin + i + 1);
        /* one line "row column value" per entry, 1-based */
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            char *p = writer_line(&w);
            char *q = put_uint(p, row);
            *q++ = ' ';
            q = put_uint(q, (uint64_t)A->col_idx[k] + 1);
            *q++ = ' ';
            q = put_value(q, A->values[k]);
            *q++ = '\n';
            w.used += (size_t)(q - p);
        }
    }
    return writer_close(&w);
}

kryl_status kryl_mtx_write_array(const char *path, int64_t rows, int64_t cols, const double *values)
{
    KRYL_REQUIRE_ARG(path);
    if (rows < 0 || cols < 0 || (cols > 0 && rows > INT64_MAX / cols) ||
        (rows * cols > 0 && values == NULL))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "%s: cannot write %lld x %lld values from %p",
                          path, (long long)rows, (long long)cols, (const void *)values);
    const int64_t n = rows * cols;
    int64_t bad = first_nonfinite(values, n);
    if (bad >= 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                          "%s: expected finite values to write, found %g at entry %lld", path,
                          values[bad], (long long)bad);
    writer w;
    KRYL_TRY(writer_open(&w, path));
    writer_text(&w, "%%MatrixMarket matrix array real general\n");
    writer_size(&w, rows, cols, -1);
    /* one value per line, column by column */
    for (int64_t k = 0; k < n; k++) {
        char *p = writer_line(&w);
        char *q = put_value(p, values[k]);
        *q++ = '\n';
        w.used += (size_t)(q - p);
    }
    return writer_close(&w);
}

kryl_status kryl_mtx_write_dense(const char *path, int64_t n, const double *values)
{
    return kryl_mtx_write_array(path, n, 1, values);
}
