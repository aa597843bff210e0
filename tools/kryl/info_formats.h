/* kryl info's storage-format table: what each SpMV format would store for
 * the matrix, and what the bandwidth model predicts for it on a backend. */
#ifndef KRYL_TOOL_INFO_FORMATS_H
#define KRYL_TOOL_INFO_FORMATS_H

#include "json.h"
#include "kryl.h"

#define INFO_NFORMATS ((int)KRYL_FORMAT_DIA) /* csr .. dia */

typedef struct info_formats {
    bool available; /* false: formats do not apply to this matrix, `note` says why */
    char note[320];
    kryl_format_info info[INFO_NFORMATS]; /* info[f - 1] for format f */
    kryl_format chosen;                   /* what --format auto resolves to */
    char chosen_why[320];
    int64_t minimal_bytes; /* bytes one CSR SpMV must move at least (effective GB/s) */
    int64_t nnz;
} info_formats;

/* Measure every format for A on A's context's backend.  A matrix that no
 * format can store (not square) is not an error: f->available is false. */
kryl_status info_formats_gather(kryl_matrix A, const kryl_matrix_stats *stats, info_formats *f);

/* The table, the refusals and auto's choice, for a terminal. */
void info_formats_print(const info_formats *f, const char *backend);

/* The same as members of the open JSON object: "formats", "format_auto",
 * "format_auto_reason", "format_model". */
void info_formats_json(json_writer *w, const info_formats *f, const char *backend);

#endif
