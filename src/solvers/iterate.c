/*
 * Batching of iterations between convergence checks.  The host queues a
 * batch of steps without waiting, then reads the device-side monitor once:
 * the monitor guard makes every step after the stopping one a no-op, so the
 * iterate and the iteration count are exactly those at which the method
 * stopped, whatever the batch size.
 *
 * The batch grows until one check (a synchronisation and a small copy)
 * costs under 5% of the batch's time.  Where the backend can record
 * graphs, a batch that is a whole number of the method's periods is
 * captured once and replayed, removing the per-kernel launch cost.
 */
#include <math.h>

#include "solvers/solver_impl.h"

enum { MAX_BATCH = 1024, CHECK_SHARE = 20 /* batch time >= 20 checks: check < 5% */ };

kryl_status kryl_solver_batching_setup(kryl_solver s)
{
    /* time a check on an idle queue: the floor of what a batch pays */
    kryl_monitor m;
    KRYL_TRY(s->ops->synchronize(s->ctx));
    double t0 = kryl_wtime();
    for (int k = 0; k < 3; k++) KRYL_TRY(s->ops->download(s->ctx, &m, s->monitor, sizeof m));
    s->check_cost = (kryl_wtime() - t0) / 3;
    return KRYL_SUCCESS;
}

void kryl_solver_batching_release(kryl_solver s)
{
    if (s->graph) s->ops->graph_release(s->ctx, s->graph);
    s->graph = NULL;
    s->graph_steps = 0;
}

/* An outer scheme's step waits for its inner solve: it cannot be recorded. */
static bool graphs_usable(kryl_solver s)
{
    return s->ops->capture_begin != NULL && s->period > 0 && !s->profiling &&
           !s->method->inner_solver;
}

/* The next batch size above `batch`: doubled, a whole number of periods. */
static int64_t grow(kryl_solver s, int64_t batch)
{
    int64_t period = s->period > 0 ? s->period : 1;
    int64_t next = 2 * batch;
    next = (next + period - 1) / period * period;
    return next > MAX_BATCH ? batch : next;
}

/* Queue `count` steps: through the method's own batch where it has one;
 * for a full batch, replay the captured graph of that many steps
 * (capturing it first); else launch the steps one by one. */
static kryl_status queue_steps(kryl_solver s, int64_t count, bool full)
{
    if (s->method->steps) {
        bool queued = false;
        KRYL_TRY(s->method->steps(s, count, &queued));
        if (queued) return KRYL_SUCCESS;
    }
    if (!full || !graphs_usable(s) || count % s->period != 0) {
        for (int64_t k = 0; k < count; k++) KRYL_TRY(s->method->step(s));
        return KRYL_SUCCESS;
    }
    if (s->graph_steps != count) {
        kryl_solver_batching_release(s);
        KRYL_TRY(s->ops->capture_begin(s->ctx));
        kryl_status st = KRYL_SUCCESS;
        for (int64_t k = 0; k < count && st == KRYL_SUCCESS; k++) st = s->method->step(s);
        void *graph = NULL;
        kryl_status end = s->ops->capture_end(s->ctx, &graph);
        if (st != KRYL_SUCCESS && end == KRYL_SUCCESS) s->ops->graph_release(s->ctx, graph);
        KRYL_TRY(st);
        KRYL_TRY(end);
        s->graph = graph;
        s->graph_steps = count;
    }
    /* the steps, replayed */
    return s->ops->graph_launch(s->ctx, s->graph);
}

kryl_status kryl_solver_iterate(kryl_solver s, kryl_monitor *m)
{
    return kryl_solver_iterate_to(s, m, s->options.max_iterations);
}

kryl_status kryl_solver_iterate_to(kryl_solver s, kryl_monitor *m, int64_t limit)
{
    const kryl_solver_options *o = &s->options;
    const bool adaptive = o->check_interval == 0;
    /* over several ranks every rank must queue the same batches (each step
     * exchanges and reduces), so none grows them from its own timings; nor
     * does a deterministic context (where a launch of resident steps begins
     * changes the rounding of its first step on cuda) */
    int ranks = 1;
    KRYL_TRY(kryl_context_rank(s->ctx, NULL, &ranks));
    const bool grows = adaptive && ranks == 1 && !kryl_context_deterministic(s->ctx);
    /* the batch size a previous call grew to (an inner solver runs many times) */
    int64_t interval = s->batch_interval;
    if (interval == 0) {
        interval = adaptive ? s->ops->check_interval : o->check_interval;
        if (adaptive && s->period > 1)
            interval = (interval + s->period - 1) / s->period * s->period;
    }
    while (m->iteration < limit && m->stop == KRYL_STOP_RUNNING) {
        int64_t batch = limit - m->iteration;
        if (batch > interval) batch = interval;
        double t0 = kryl_wtime();
        KRYL_TRY(queue_steps(s, batch, batch == interval));
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_TRANSFER));
        KRYL_TRY(s->ops->download(s->ctx, m, s->monitor, sizeof *m));
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_NONE));
        if (grows && batch == interval && kryl_wtime() - t0 < CHECK_SHARE * s->check_cost)
            interval = grow(s, interval);
        /* the recursive ||r|| of the scaled system; the callbacks see the caller's */
        double rnorm = sqrt(m->rr);
        if (o->progress)
            o->progress(m->iteration, s->bnorm > 0.0 ? rnorm / s->bnorm : rnorm, o->progress_user);
        if (o->residual)
            o->residual(m->iteration, ldexp(rnorm, -s->scale_exp), ldexp(s->bnorm, -s->scale_exp),
                        o->residual_user);
    }
    s->batch_interval = interval;
    return KRYL_SUCCESS;
}
