/* What `kryl solve` prints after a solve: the human summary or one JSON
 * object. */
#ifndef KRYL_TOOL_SOLVE_REPORT_H
#define KRYL_TOOL_SOLVE_REPORT_H

#include "solve_job.h"

/* The summary of a finished job on stdout (with the phase table when the
 * job was profiled); matrix is the file it was read from, read_s the
 * seconds spent reading files. */
void solve_report_summary(const solve_job *job, const char *matrix, double read_s);

/* The same as one JSON object on stdout. */
void solve_report_json(const solve_job *job, const char *matrix, double read_s);

#endif
