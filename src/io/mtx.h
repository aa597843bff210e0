/* Matrix Market reading and writing (https://math.nist.gov/MatrixMarket/). */
#ifndef KRYL_IO_MTX_H
#define KRYL_IO_MTX_H

#include "core/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Columns kryl_read_mtx_array accepts: a bound on what a dense read allocates. */
#define KRYL_MTX_ARRAY_MAX_COLS 64

typedef enum kryl_mtx_format { KRYL_MTX_COORDINATE, KRYL_MTX_ARRAY } kryl_mtx_format;
typedef enum kryl_mtx_field { KRYL_MTX_REAL, KRYL_MTX_INTEGER, KRYL_MTX_PATTERN } kryl_mtx_field;
typedef enum kryl_mtx_symmetry {
    KRYL_MTX_GENERAL,
    KRYL_MTX_SYMMETRIC,
    KRYL_MTX_SKEW_SYMMETRIC
} kryl_mtx_symmetry;

typedef struct kryl_mtx_header {
    kryl_mtx_format format;
    kryl_mtx_field field;
    kryl_mtx_symmetry symmetry;
    int64_t nrows, ncols;
    int64_t entries; /* values stored in the file: the size line's count
                      * (coordinate), or nrows*ncols, n(n+1)/2, n(n-1)/2 (array
                      * general, symmetric, skew-symmetric) */
} kryl_mtx_header;

/* Read a Matrix Market file (plain or gzip-compressed, detected by its
 * magic bytes) into COO entries, expanding symmetric and skew-symmetric
 * storage into both triangles; coo->count is the number of entries before
 * duplicates are summed.  Pattern entries read as 1.  Array files give
 * every entry, zeros included.  An entry of a symmetric file above the
 * diagonal is mirrored like one below it, so a position given in both
 * triangles is summed like a duplicate.  Comment and blank lines may
 * appear anywhere after the banner.  header may be NULL.
 * Errors name "PATH:LINE: expected ..., found ...": KRYL_ERR_IO (cannot
 * open or read; corrupt gzip data), KRYL_ERR_UNSUPPORTED (complex,
 * hermitian, gzip without zlib), KRYL_ERR_PARSE (malformed, truncated,
 * too many entries, nonzero skew-symmetric diagonal),
 * KRYL_ERR_INDEX_OUT_OF_RANGE (an entry outside the matrix),
 * KRYL_ERR_INDEX_OVERFLOW (sizes beyond int64, or more than INT32_MAX
 * columns), KRYL_ERR_INVALID_VALUE (NaN, Inf, or beyond double's range). */
kryl_status kryl_mtx_read(const char *path, kryl_mtx_header *header, kryl_coo *coo);

/* Read a Matrix Market file into a CSR matrix of all its rows (duplicates
 * summed: a sum that overflows names the file and line) on all of
 * OpenMP's threads; errors name the file.  *pattern (unless NULL): whether
 * it was a pattern file (values 1); seconds (unless NULL): the seconds of
 * the parse, rows and sort phases (kryl_read_phase) are added to theirs. */
kryl_status kryl_mtx_read_csr(const char *path, kryl_csr *A, bool *pattern, double *seconds);

/* Prefix the recorded error with "PATH:LINE (the last of them)": the last
 * entry line of the coordinate file at path at (row, col), 0-based (or at
 * (col, row) in symmetric storage); "PATH" alone when there is none.
 * Used to place duplicates whose sum overflowed.  Returns status. */
kryl_status kryl_mtx_name_line_of(const char *path, int64_t row, int64_t col, kryl_status status);

/* Write rows of a CSR matrix as coordinate real general, values with %.17g
 * (row indices A->row_begin + i + 1).  Values must be finite
 * (KRYL_ERR_INVALID_VALUE).  The file is written whole or not at all: a
 * failed write leaves what was at path unchanged (io/file_out.h). */
kryl_status kryl_mtx_write_csr(const char *path, const kryl_csr *A);

/* Write a dense n x 1 array real general file (finite values only). */
kryl_status kryl_mtx_write_dense(const char *path, int64_t n, const double *values);

/* Write a dense rows x cols array real general file, values column by
 * column (values[i + rows j]; finite values only). */
kryl_status kryl_mtx_write_array(const char *path, int64_t rows, int64_t cols,
                                 const double *values);

#ifdef __cplusplus
}
#endif

#endif
