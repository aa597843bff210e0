/* --view: the solver stack as configured and built (method, mixed-precision
 * scheme, preconditioner, matrix storage and ordering, precision, backend),
 * as text or as a JSON object, like PETSc's -ksp_view. */
#ifndef KRYL_TOOL_VIEW_H
#define KRYL_TOOL_VIEW_H

#include <stdio.h>

#include "json.h"
#include "solve_job.h"

/* The stack of a set-up job as indented text lines on `out`. */
void view_print(const solve_job *job, FILE *out);

/* The same as the member "view" of the JSON object w is writing. */
void view_json(const solve_job *job, json_writer *w);

#endif
