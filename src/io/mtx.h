/* Matrix Market reading and writing (https://math.nist.gov/MatrixMarket/). */
#ifndef KRYL_IO_MTX_H
#define KRYL_IO_MTX_H

#include "core/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    int64_t entries; /* stored entries (coordinate) or nrows*ncols (array) */
} kryl_mtx_header;

/* Read a Matrix Market file (plain or gzip-compressed, detected by its
 * magic bytes) into COO entries, expanding symmetric and skew-symmetric
 * storage into both triangles.  Array files give every entry, zeros
 * included.  Errors are KRYL_ERR_IO (cannot open/read) or KRYL_ERR_PARSE /
 * KRYL_ERR_INDEX_OUT_OF_RANGE / KRYL_ERR_INVALID_VALUE with a message
 * "PATH:LINE: what was expected, what was found". */
kryl_status kryl_mtx_read(const char *path, kryl_mtx_header *header, kryl_coo *coo);

/* Write rows of a CSR matrix as coordinate real general, values with %.17g. */
kryl_status kryl_mtx_write_csr(const char *path, const kryl_csr *A);

/* Write a dense n x 1 array real general file. */
kryl_status kryl_mtx_write_dense(const char *path, int64_t n, const double *values);

#ifdef __cplusplus
}
#endif

#endif
