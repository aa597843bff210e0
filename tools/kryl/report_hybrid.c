/* How a hybrid solve (--hybrid) shared the rows, in kryl solve's report. */
#include "report_hybrid.h"

#include <inttypes.h>
#include <stdio.h>

void report_hybrid_summary(kryl_solver solver, kryl_hybrid requested)
{
    kryl_hybrid_info info;
    if (kryl_solver_hybrid_info(solver, &info) != KRYL_SUCCESS) return;
    if (info.method == KRYL_HYBRID_NONE) {
        printf("hybrid      %s: none ran, %s\n", kryl_hybrid_name(requested), info.reason);
        return;
    }
    printf("hybrid      %s (asked %s): %" PRId64 " host rows (%" PRId64 " nonzeros, %" PRId64
           " needing the device's), %" PRId64 " device rows (%" PRId64 " nonzeros, %" PRId64
           " needing the host's)\n            %s\n",
           kryl_hybrid_name(info.method), kryl_hybrid_name(requested), info.host_rows,
           info.host_nnz, info.host_coupling_nnz, info.device_rows, info.device_nnz,
           info.device_coupling_nnz, info.reason);
}

void report_hybrid_json(json_writer *w, kryl_solver solver, kryl_hybrid requested)
{
    kryl_hybrid_info info;
    if (kryl_solver_hybrid_info(solver, &info) != KRYL_SUCCESS) return;
    json_begin(w, "hybrid");
    json_string(w, "type", kryl_hybrid_name(info.method));
    json_string(w, "requested", kryl_hybrid_name(requested));
    json_int(w, "host_rows", info.host_rows);
    json_int(w, "device_rows", info.device_rows);
    json_int(w, "host_nnz", info.host_nnz);
    json_int(w, "device_nnz", info.device_nnz);
    json_int(w, "host_coupling_nnz", info.host_coupling_nnz);
    json_int(w, "device_coupling_nnz", info.device_coupling_nnz);
    json_double(w, "host_nnz_per_s", info.host_nnz_per_s);
    json_double(w, "device_nnz_per_s", info.device_nnz_per_s);
    json_int(w, "model_rows", info.model_rows);
    json_int(w, "device_model_rows", info.device_model_rows);
    json_double(w, "model_host_share", info.model_host_share);
    json_string(w, "model",
                info.model_predicted           ? "predicted"
                : info.model_host_share >= 0.0 ? "measured"
                                               : "none");
    json_string(w, "reason", info.reason);
    json_end(w);
}
