/* How a hybrid solve (--hybrid) shared the rows, in kryl solve's report. */
#ifndef KRYL_TOOL_REPORT_HYBRID_H
#define KRYL_TOOL_REPORT_HYBRID_H

#include "json.h"
#include "kryl.h"

/* "hybrid      3 (asked auto): ... host rows, ... device rows; why" (nothing
 * without --hybrid). */
void report_hybrid_summary(kryl_solver solver, kryl_hybrid requested);

/* "hybrid": {"type": what ran, "requested", rows, nonzeros and coupling
 * entries of each side, the model's speeds and share, "reason"} (nothing
 * without --hybrid). */
void report_hybrid_json(json_writer *w, kryl_solver solver, kryl_hybrid requested);

#endif
