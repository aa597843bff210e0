/*
 * Batching of iterations between convergence checks.  The host queues a
 * batch of steps without waiting, then reads the device-side monitor once:
 * the monitor guard makes every step after the stopping one a no-op, so the
 * iterate and the iteration count are exactly those at which the method
 * stopped, whatever the batch size.
 *
 * A batch is as short as keeps one check (a synchronisation and a small
 * copy) under 1% of its time: the first, of one period, is timed, which
 * sizes the next (over ranks from the slowest rank's timings); on one rank
 * a batch faster than that grows.
 * Where the backend can record graphs, a period of a few steps is captured
 * at setup, so every full batch replays it from the first one, removing
 * the per-kernel launch cost (an update frees it).  Once the step is
 * timed, the fewest whole periods of steps that take GRAPH_SECONDS are
 * captured once in its place (or first, where none was), unless the
 * residual's rate predicts fewer than GRAPH_REPAY graphs' steps are left.
 *
 * Steps queued past the stopping one are no-ops for the vectors, but a
 * preconditioner's apply runs whole; so a timed batch is cut to the steps
 * the residual's last rate of decrease says are left, when that is fewer
 * (and, where that was too few, the next one to the rest of its period).
 *
 * Where the device runs what the host queued (device memory), a check
 * leaves it idle while the host reads the monitor and queues the next
 * batch.  So, once the rate says at least two more whole batches are
 * needed, the next batch is queued before the check is read, the check
 * having been copied out on the side (copy_to_host_async) right after its
 * batch: the device runs on while the host reads it.
 */
#include <math.h>
#include <stdlib.h>

#include "dist/dist.h"
#include "solvers/solver_impl.h"

/* A batch takes at least CHECK_SHARE checks' time.  A check is timed on an
 * idle queue, but in a solve the device also idles while the host reads
 * the outcome and queues the next batch: at 20 checks Jacobi-PCG on 7-point
 * 160^3 lost 2% (docs/BENCHMARKS.md). */
enum { MAX_BATCH = 1024, CHECK_SHARE = 100 };

/* A graph's least work, in seconds of its steps: a replay's own launch
 * and the boundary between two replays then cost well under 1%, and a
 * step of a few hundred microseconds (CG on a few million rows) is
 * graphed a whole batch at a time, as before.  Capturing costs
 * about what the steps' launches do, so it is done once, not for each
 * batch size: a graph of a whole batch, captured again as the batch grew,
 * cost AMG-PCG more than its steps (docs/BENCHMARKS.md). */
#define GRAPH_SECONDS 4e-3

/* Graphs' worth of steps a capture needs ahead to pay for itself: it costs
 * about what queueing its steps does, plus instantiation, while the device
 * idles, and a replay saves only the part of a step's launches the device
 * waited for.  AMG-PCG on 7-point 256^3 over 4 H200s: a capture of 2 steps
 * cost 2.4 ms and each replayed step saved 0.16 ms (15 steps to repay); on
 * one H200 a step saved nothing (docs/BENCHMARKS.md). */
enum { GRAPH_REPAY = 8 };

/* The longest period captured at setup, before any step is timed: a
 * period of CG, BiCGSTAB or FCG.  Over ranks an AMG-PCG step's launches
 * outlast its work, and a capture during the solve costs more than it
 * saves there (above); at setup it costs as much, beside seconds of AMG
 * setup over ranks (docs/BENCHMARKS.md).  GMRES(m)'s period of m steps
 * is left to the solve's rule. */
enum { SETUP_PERIOD = 2 };

void kryl_solver_batching_free(kryl_solver s)
{
    if (s->check_copy == NULL) return;
    s->ops->host_unpin(s->ctx, s->check_copy);
    free(s->check_copy);
    s->check_copy = NULL;
}

void kryl_solver_batching_release(kryl_solver s)
{
    if (s->graph) s->ops->graph_release(s->ctx, s->graph);
    s->graph = NULL;
    s->graph_steps = 0;
    s->graph_sized = false;
}

/* An outer scheme's step waits for its inner solve: it cannot be recorded. */
static bool graphs_usable(kryl_solver s)
{
    return s->ops->capture_begin != NULL && s->period > 0 && !s->profiling &&
           !s->method->inner_solver;
}

/* Whether checks are read ahead of the queue: where the device runs the
 * steps queued meanwhile (device memory, steps that never wait for the
 * host: those graphs may hold), the check being copied out on the side,
 * into pinned memory (a page of its own: pinning takes whole pages). */
static kryl_status reads_ahead(kryl_solver s, bool *ahead)
{
    const kryl_backend_ops *ops = s->ops;
    *ahead = false;
    if (!ops->device_memory || !ops->copy_to_host_async || !ops->copy_wait || !ops->host_pin ||
        !graphs_usable(s))
        return KRYL_SUCCESS;
    if (s->check_copy == NULL) {
        const size_t page = 4096, bytes = (sizeof *s->check_copy + page - 1) / page * page;
        s->check_copy = aligned_alloc(page, bytes);
        if (s->check_copy == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a page for the checks");
        KRYL_TRY(ops->host_pin(s->ctx, s->check_copy, sizeof *s->check_copy));
    }
    *ahead = true;
    return KRYL_SUCCESS;
}

/* Record `count` steps as the solver's graph (they are not run). */
static kryl_status capture(kryl_solver s, int64_t count)
{
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
    return KRYL_SUCCESS;
}

kryl_status kryl_solver_batching_setup(kryl_solver s)
{
    /* time a check on an idle queue: the floor of what a batch pays */
    kryl_monitor m;
    KRYL_TRY(s->ops->synchronize(s->ctx));
    double t0 = kryl_wtime();
    for (int k = 0; k < 3; k++) KRYL_TRY(s->ops->download(s->ctx, &m, s->monitor, sizeof m));
    s->check_cost = (kryl_wtime() - t0) / 3;
    /* a short period's graph, unless the method queues batches itself (no
     * steps are queued when asked for none) or the solves are profiled:
     * before any solve the method's host-side state is a start's, whose
     * steps the graph holds (after a solve it may not be: CG's pair of
     * scalars in use follows the steps queued) */
    bool own_batches = false;
    if (s->method->steps) KRYL_TRY(s->method->steps(s, 0, &own_batches));
    if (s->graph || own_batches || s->options.profile || !graphs_usable(s) ||
        s->period > SETUP_PERIOD)
        return KRYL_SUCCESS;
    return capture(s, s->period);
}

/* The next batch size above `batch`: doubled, a whole number of periods. */
static int64_t grow(kryl_solver s, int64_t batch)
{
    int64_t period = s->period > 0 ? s->period : 1;
    int64_t next = 2 * batch;
    next = (next + period - 1) / period * period;
    return next > MAX_BATCH ? batch : next;
}

/* The fewest whole periods of steps that take `seconds` at the measured
 * step time, at least one and at most `most` steps (a whole number of
 * periods). */
static int64_t periods_taking(kryl_solver s, double seconds, int64_t most)
{
    int64_t period = s->period > 0 ? s->period : 1;
    double periods = ceil(seconds / (s->step_seconds * (double)period));
    if (!(periods >= 1.0)) periods = 1.0;
    return periods * (double)period >= (double)most ? most : (int64_t)periods * period;
}

/* The batch: CHECK_SHARE checks' time.  Steps queued past the stopping one
 * are not free (a preconditioner's apply runs whole), so it is no longer. */
static int64_t sized_batch(kryl_solver s)
{
    int64_t period = s->period > 0 ? s->period : 1;
    int64_t most = MAX_BATCH > period ? MAX_BATCH / period * period : period;
    return periods_taking(s, CHECK_SHARE * s->check_cost, most);
}

/* Queue `count` steps, `first` steps after the call's first: through the
 * method's own batch where it has one; for a full batch, as replays of the
 * graph and the rest one by one, else launched one by one.  Once the step
 * time is known, a graph sized by it is captured first (*captured) where
 * none was and `ahead`, the steps predicted left, repay it.  A graph
 * replays from the first step of a period only, where it was captured. */
static kryl_status queue_steps(kryl_solver s, int64_t first, int64_t count, bool full,
                               int64_t ahead, bool *captured)
{
    *captured = false;
    if (s->method->steps) {
        bool queued = false;
        KRYL_TRY(s->method->steps(s, count, &queued));
        if (queued) return KRYL_SUCCESS;
    }
    int64_t replays = 0;
    if (full && graphs_usable(s) && count % s->period == 0 && first % s->period == 0) {
        if (!s->graph_sized && s->step_seconds > 0.0) {
            int64_t steps = periods_taking(s, GRAPH_SECONDS, count);
            if (steps > s->graph_steps && ahead >= GRAPH_REPAY * steps) {
                kryl_solver_batching_release(s);
                KRYL_TRY(capture(s, steps));
                s->graph_sized = *captured = true;
            }
        }
        replays = s->graph ? count / s->graph_steps : 0;
    }
    for (int64_t r = 0; r < replays; r++) KRYL_TRY(s->ops->graph_launch(s->ctx, s->graph));
    /* whole periods are left after the replays: the captured steps' host state holds */
    for (int64_t k = replays * s->graph_steps; k < count; k++) KRYL_TRY(s->method->step(s));
    return KRYL_SUCCESS;
}

/* The steps the residual needs to reach the tolerance, extrapolated from
 * its decrease over the last batch (from rr_before at `before` steps to
 * m->rr), or `most` (the steps the limit leaves) where it did not decrease
 * or needs at least that many.  Over ranks every rank queues the same
 * steps: the largest count is taken. */
static int64_t steps_left(kryl_solver s, const kryl_monitor *m, double rr_before, int64_t before,
                          int64_t most, int ranks)
{
    double left = (double)most;
    const int64_t steps = m->iteration - before;
    if (steps > 0 && m->tol2 > 0.0 && m->rr > m->tol2 && m->rr < rr_before) {
        /* rr falls by rate = (rr / rr_before)^(1 / steps) a step: rr rate^k <= tol2 */
        double k = ceil((double)steps * log(m->tol2 / m->rr) / log(m->rr / rr_before));
        if (k >= 1.0 && k < left) left = k;
    }
#ifdef KRYL_HAVE_MPI
    if (ranks > 1) kryl_dist_host_max(s->ctx, &left, 1);
#else
    (void)s, (void)ranks;
#endif
    return (int64_t)left;
}

kryl_status kryl_solver_iterate(kryl_solver s, kryl_monitor *m)
{
    return kryl_solver_iterate_to(s, m, s->options.max_iterations);
}

kryl_status kryl_solver_iterate_to(kryl_solver s, kryl_monitor *m, int64_t limit)
{
    const kryl_solver_options *o = &s->options;
    const bool adaptive = o->check_interval == 0;
    /* batches are sized by timing their steps, except in a deterministic
     * context (its batches, and so what each launch holds, are then the same
     * in every run, whatever the timings); over several ranks every rank must
     * queue the same batches (each step exchanges and reduces), so they are
     * sized once from the ranks' agreed timings and never grown from one
     * rank's own */
    int ranks = 1;
    KRYL_TRY(kryl_context_rank(s->ctx, NULL, &ranks));
    const bool timed = adaptive && !kryl_context_deterministic(s->ctx);
    const bool grows = timed && ranks == 1;
    /* the batch size a previous call grew to (an inner solver runs many times);
     * a timed batch starts at one period, timed to size the next */
    int64_t interval = s->batch_interval;
    if (interval == 0) {
        interval = !adaptive ? o->check_interval : timed ? 1 : s->ops->check_interval;
        if (adaptive && s->period > 1)
            interval = (interval + s->period - 1) / s->period * s->period;
    }
    /* checks read ahead of the queue where the device runs it */
    bool reading_ahead = false;
    if (timed) KRYL_TRY(reads_ahead(s, &reading_ahead));
    /* the residual at the start of the batch m ends, for the steps left; the
     * steps queued by this call; the steps predicted left after m; those
     * queued past m already (a batch whose check is copied out) */
    double rr_before = m->rr;
    int64_t before = m->iteration, queued = 0, ahead = limit - m->iteration, flying = 0;
    while (m->iteration < limit && m->stop == KRYL_STOP_RUNNING) {
        double t0 = kryl_wtime();
        /* a batch queued before the last check ran partly before t0: not timed */
        const bool queued_now = flying == 0;
        int64_t batch = flying;
        bool captured = false;
        if (queued_now) {
            batch = ahead < interval ? ahead : interval;
            /* after a batch cut short, the rest of its period one by one: the
             * graph replays again from the next period's first step */
            const int64_t phase = s->period > 1 ? queued % s->period : 0;
            if (phase > 0 && batch > s->period - phase) batch = s->period - phase;
            KRYL_TRY(queue_steps(s, queued, batch, batch == interval, ahead, &captured));
            queued += batch;
            if (reading_ahead)
                KRYL_TRY(s->ops->copy_to_host_async(s->ctx, s->check_copy, s->monitor, sizeof *m));
        }
        /* the next batch before this one's check, where the rate says two more
         * whole batches are needed (the step timed, the batch sized) */
        flying = 0;
        const int64_t period = s->period > 0 ? s->period : 1;
        if (reading_ahead && s->step_seconds > 0.0 && queued % period == 0 &&
            ahead - batch >= 2 * interval && before + batch + interval <= limit) {
            bool graphed = false;
            KRYL_TRY(queue_steps(s, queued, interval, true, ahead - batch, &graphed));
            queued += interval;
            flying = interval;
        }
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_TRANSFER));
        if (reading_ahead) {
            /* the check of `batch`; then the next one's, queued after it */
            KRYL_TRY(s->ops->copy_wait(s->ctx));
            *m = *s->check_copy;
            if (flying > 0)
                KRYL_TRY(s->ops->copy_to_host_async(s->ctx, s->check_copy, s->monitor, sizeof *m));
        } else {
            KRYL_TRY(s->ops->download(s->ctx, m, s->monitor, sizeof *m));
        }
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_NONE));
        double elapsed = kryl_wtime() - t0;
        if (batch == interval && !captured && s->step_seconds == 0.0) {
            /* a step's time (replayed where a graph was captured at setup), the
             * check's taken out (at most half): it sizes the graph and the
             * batches; over ranks the slowest rank's step and check, so all
             * capture the same steps and size the same batches (a fixed batch
             * of the backend's check_interval ran up to 15 AMG cycles past the
             * stop: docs/BENCHMARKS.md) */
            int64_t steps = m->iteration > before ? m->iteration - before : 1;
            s->step_seconds = fmax(elapsed - s->check_cost, 0.5 * elapsed) / (double)steps;
#ifdef KRYL_HAVE_MPI
            double slowest[2] = {s->step_seconds, s->check_cost};
            if (ranks > 1) kryl_dist_host_max(s->ctx, slowest, 2);
            s->step_seconds = slowest[0];
            s->check_cost = slowest[1];
#endif
            if (timed) interval = sized_batch(s);
        } else if (grows && queued_now && flying == 0 && batch == interval &&
                   elapsed < CHECK_SHARE * s->check_cost) {
            interval = grow(s, interval);
        }
        /* the steps left after m, from the rate over the batch m ends; a batch
         * queued ahead starts where m ends */
        const bool running = m->iteration < limit && m->stop == KRYL_STOP_RUNNING;
        ahead = limit - m->iteration;
        if (timed && running) ahead = steps_left(s, m, rr_before, before, ahead, ranks);
        before = m->iteration;
        rr_before = m->rr;
        /* the recursive ||r|| of the scaled system; the callbacks see the caller's */
        double rnorm = sqrt(m->rr);
        if (o->progress)
            o->progress(m->iteration, s->bnorm > 0.0 ? rnorm / s->bnorm : rnorm, o->progress_user);
        if (o->residual)
            o->residual(m->iteration, ldexp(rnorm, -s->scale_exp), ldexp(s->bnorm, -s->scale_exp),
                        o->residual_user);
    }
    /* a batch queued ahead of a check that stopped: its steps are no-ops, but
     * its check is still on its way into the pinned page */
    if (flying > 0) KRYL_TRY(s->ops->copy_wait(s->ctx));
    s->batch_interval = interval;
    return KRYL_SUCCESS;
}
