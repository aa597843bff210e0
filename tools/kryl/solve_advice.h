/* What a solve that did not converge should try next. */
#ifndef KRYL_TOOL_SOLVE_ADVICE_H
#define KRYL_TOOL_SOLVE_ADVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "solve_job.h"

/* After a solve that did not converge: the options to change ("--precond
 * mic0"; kryl solve's names and values) in `advice`, and in *why a phrase
 * saying why.  False when there is nothing to suggest: the solve
 * converged, or runs over several ranks. */
bool solve_advice(const solve_job *job, char *advice, size_t size, const char **why);

#endif
