/* --monitor [k]: one line on stderr every k iterations (iteration, ||r||,
 * ||r||/||b||, elapsed time), for terminals and batch logs alike. */
#ifndef KRYL_TOOL_MONITOR_H
#define KRYL_TOOL_MONITOR_H

#include <stdint.h>

#include "kryl.h"

typedef struct monitor {
    int64_t every; /* print every this many iterations; 0 = off */
    int64_t last;  /* iteration of the last line, -1 before the first */
    double start;  /* when the solve started */
} monitor;

/* Off when every is 0. */
void monitor_init(monitor *m, int64_t every);

/* Start the clock (just before the solve). */
void monitor_start(monitor *m);

/* A kryl_residual_fn; user is the monitor. */
void monitor_residual(int64_t iteration, double resnorm, double bnorm, void *user);

/* The last line: the true residual of the result. */
void monitor_finish(const monitor *m, const kryl_result *result);

#endif
