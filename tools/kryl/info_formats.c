/* kryl info's storage-format table, from kryl_matrix_format_info and
 * kryl_matrix_choose_format.  Ratios are of footprints: to CSR's, and to
 * the 12 bytes (value and column index) of each nonzero alone, as in the
 * pJDS paper's Table 1 (Kreutzer et al. 2012).  Effective GB/s counts the
 * CSR minimum (values, columns, offsets, x and y once) over the predicted
 * time, as bench_spmv counts measured ones. */
#include "info_formats.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

kryl_status info_formats_gather(kryl_matrix A, const kryl_matrix_stats *stats, info_formats *f)
{
    memset(f, 0, sizeof *f);
    f->minimal_bytes = stats->spmv_bytes_double;
    f->nnz = stats->nnz;
    for (int k = 0; k < INFO_NFORMATS; k++) {
        kryl_status st = kryl_matrix_format_info(A, (kryl_format)(k + 1), &f->info[k]);
        if (st == KRYL_ERR_UNSUPPORTED) {
            /* e.g. a rectangular matrix: no format stores it */
            snprintf(f->note, sizeof f->note, "%s", kryl_last_error());
            return KRYL_SUCCESS;
        }
        if (st != KRYL_SUCCESS) return st;
    }
    kryl_status st = kryl_matrix_choose_format(A, &f->chosen, f->chosen_why, sizeof f->chosen_why);
    f->available = st == KRYL_SUCCESS;
    return st;
}

/* Effective bandwidth of a prediction (bytes/s): the CSR minimum over the time. */
static double effective_bandwidth(const info_formats *f, const kryl_format_info *i)
{
    return i->predicted_seconds > 0.0 ? (double)f->minimal_bytes / i->predicted_seconds : 0.0;
}

/* Flops per second of a prediction: 2 flops per nonzero. */
static double flop_rate(const info_formats *f, const kryl_format_info *i)
{
    return i->predicted_seconds > 0.0 ? 2.0 * (double)f->nnz / i->predicted_seconds : 0.0;
}

void info_formats_print(const info_formats *f, const char *backend)
{
    if (!f->available) {
        printf("formats     none apply: %s\n", f->note);
        return;
    }
    char t[3][32];
    printf("\nstorage formats, one double SpMV as the bandwidth model predicts it on the %s "
           "backend\n(%.3g GB/s; Kreutzer et al. 2012, eq. 1):\n",
           backend, 1e-9 * f->info[0].bandwidth);
    printf("  %-6s %-8s %-6s %10s %10s %7s %7s %6s %8s %10s %7s %8s\n", "format", "suitable",
           "kernel", "stored", "bytes", "/csr", "/nnz", "alpha", "B/flop", "time", "GB/s",
           "GFLOP/s");
    for (int k = 0; k < INFO_NFORMATS; k++) {
        const kryl_format_info *i = &f->info[k];
        printf("  %-6s %-8s %-6s %10" PRId64 " %10s %7.2f %7.2f %6.3f %8.3f %10s %7.2f %8.2f\n",
               kryl_format_name(i->format), i->suitable ? "yes" : "REFUSED",
               i->kernel ? "yes" : "no", i->stored,
               cli_format_bytes(t[0], sizeof t[0], (double)i->bytes), i->ratio_csr, i->ratio_nnz,
               i->alpha, i->code_balance,
               cli_format_seconds(t[1], sizeof t[1], i->predicted_seconds),
               1e-9 * effective_bandwidth(f, i), 1e-9 * flop_rate(f, i));
    }
    printf("  (/csr, /nnz: bytes over CSR's and over 12 bytes per nonzero; kernel: the %s\n"
           "  backend has an SpMV kernel for it; GB/s: the CSR minimum of %s over the time)\n",
           backend, cli_format_bytes(t[2], sizeof t[2], (double)f->minimal_bytes));
    for (int k = 0; k < INFO_NFORMATS; k++)
        if (!f->info[k].suitable) printf("  refused: %s\n", f->info[k].why);
    printf("auto        %s\n", f->chosen_why);
}

void info_formats_json(json_writer *w, const info_formats *f, const char *backend)
{
    if (!f->available) {
        json_string(w, "formats", NULL);
        json_string(w, "formats_note", f->note);
        return;
    }
    json_begin(w, "format_model");
    json_string(w, "backend", backend);
    json_double(w, "bandwidth_bytes_per_s", f->info[0].bandwidth);
    json_int(w, "minimal_spmv_bytes", f->minimal_bytes);
    json_end(w);
    json_begin(w, "formats");
    for (int k = 0; k < INFO_NFORMATS; k++) {
        const kryl_format_info *i = &f->info[k];
        json_begin(w, kryl_format_name(i->format));
        json_bool(w, "suitable", i->suitable);
        json_string(w, "why", i->suitable ? NULL : i->why);
        json_bool(w, "kernel", i->kernel);
        json_int(w, "stored", i->stored);
        json_int(w, "bytes", i->bytes);
        json_int(w, "bytes_single", i->bytes_single);
        json_double(w, "ratio_csr", i->ratio_csr);
        json_double(w, "ratio_nnz", i->ratio_nnz);
        json_double(w, "alpha", i->alpha);
        json_double(w, "code_balance", i->code_balance);
        json_double(w, "spmv_bytes", i->spmv_bytes);
        json_double(w, "predicted_s", i->predicted_seconds);
        json_double(w, "effective_gbs", 1e-9 * effective_bandwidth(f, i));
        json_double(w, "gflops", 1e-9 * flop_rate(f, i));
        json_end(w);
    }
    json_end(w);
    json_string(w, "format_auto", kryl_format_name(f->chosen));
    json_string(w, "format_auto_reason", f->chosen_why);
}
