/* --monitor: residual lines on stderr, in the spirit of PETSc's -ksp_monitor
 * (the residual the method carries) and -ksp_monitor_true_residual (the true
 * one, computed once at the end). */
#include "monitor.h"

#include <inttypes.h>
#include <stdio.h>

#include "cli.h"

void monitor_init(monitor *m, int64_t every)
{
    m->every = every;
    m->last = -1;
    m->start = 0.0;
}

void monitor_start(monitor *m) { m->start = cli_wtime(); }

/* "monitor  it 20  ||r|| 1.234e-01  ||r||/||b|| 5.678e-04  0.0123 s" */
static void print_line(const monitor *m, const char *label, int64_t iteration, double resnorm,
                       double bnorm)
{
    fprintf(stderr, "%-8s it %6" PRId64 "  ||r|| %.6e  ||r||/||b|| %.6e  %.4f s\n", label,
            iteration, resnorm, bnorm > 0.0 ? resnorm / bnorm : resnorm, cli_wtime() - m->start);
    fflush(stderr);
}

void monitor_residual(int64_t iteration, double resnorm, double bnorm, void *user)
{
    monitor *m = user;
    if (m->every == 0 || (m->last >= 0 && iteration < m->last + m->every)) return;
    m->last = iteration;
    print_line(m, "monitor", iteration, resnorm, bnorm);
}

void monitor_finish(const monitor *m, const kryl_result *result)
{
    if (m->every == 0) return;
    /* the true residual b - A x of the answer, which is what converged means */
    print_line(m, "true", result->iterations, result->resnorm, result->bnorm);
}
