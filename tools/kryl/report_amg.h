/* The hierarchy of an AMG preconditioner in kryl solve's report. */
#ifndef KRYL_TOOL_REPORT_AMG_H
#define KRYL_TOOL_REPORT_AMG_H

#include "json.h"
#include "kryl.h"

/* The table of levels and the setup phases (nothing without AMG). */
void report_amg_summary(kryl_solver solver);

/* "amg": {"levels": L, "level": {"0": {"rows", "nnz"}, ...}, complexities,
 * "setup": {phase seconds}} (nothing without AMG). */
void report_amg_json(json_writer *w, kryl_solver solver);

#endif
