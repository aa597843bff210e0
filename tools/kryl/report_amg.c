/* The hierarchy of an AMG preconditioner in kryl solve's report. */
#include "report_amg.h"

#include <inttypes.h>
#include <stdio.h>

#include "cli.h"

void report_amg_summary(kryl_solver solver)
{
    kryl_amg_info info;
    if (kryl_solver_amg_info(solver, &info) != KRYL_SUCCESS) return;
    printf("amg         level %12s %14s\n", "rows", "nonzeros");
    for (int l = 0; l < info.levels; l++)
        printf("            %5d %12" PRId64 " %14" PRId64 "%s\n", l, info.rows[l], info.nnz[l],
               l == info.levels - 1 ? "  (coarsest)" : "");
    printf("            operator complexity %.3f, grid complexity %.3f\n", info.operator_complexity,
           info.grid_complexity);
    char t[6][32];
    printf("            setup: strength %s, aggregates %s, prolongators %s, P'AP %s, "
           "smoothers %s, backend %s\n",
           cli_format_seconds(t[0], sizeof t[0], info.strength_s),
           cli_format_seconds(t[1], sizeof t[1], info.aggregate_s),
           cli_format_seconds(t[2], sizeof t[2], info.prolong_s),
           cli_format_seconds(t[3], sizeof t[3], info.galerkin_s),
           cli_format_seconds(t[4], sizeof t[4], info.smoother_s),
           cli_format_seconds(t[5], sizeof t[5], info.backend_s));
}

void report_amg_json(json_writer *w, kryl_solver solver)
{
    kryl_amg_info info;
    if (kryl_solver_amg_info(solver, &info) != KRYL_SUCCESS) return;
    json_begin(w, "amg");
    json_int(w, "levels", info.levels);
    json_begin(w, "level");
    for (int l = 0; l < info.levels; l++) {
        char key[16];
        snprintf(key, sizeof key, "%d", l);
        json_begin(w, key);
        json_int(w, "rows", info.rows[l]);
        json_int(w, "nnz", info.nnz[l]);
        json_end(w);
    }
    json_end(w);
    json_double(w, "operator_complexity", info.operator_complexity);
    json_double(w, "grid_complexity", info.grid_complexity);
    json_begin(w, "setup");
    json_double(w, "strength_s", info.strength_s);
    json_double(w, "aggregate_s", info.aggregate_s);
    json_double(w, "prolong_s", info.prolong_s);
    json_double(w, "galerkin_s", info.galerkin_s);
    json_double(w, "smoother_s", info.smoother_s);
    json_double(w, "backend_s", info.backend_s);
    json_end(w);
    json_end(w);
}
