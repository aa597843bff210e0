/* Many steps of pipelined (P)CG in ONE cooperative launch.  On small
 * problems a step of pipecg_spmv_update is a chain of latencies (launch,
 * scalars, row offsets, columns, x, the ticketed reduction, the monitor)
 * rather than a stream of bytes.  Here the grid stays resident and the
 * steps are separated by kryl_resident_sum, a grid barrier that also
 * completes the step's reduction: after it every block holds the same
 * gamma, delta and rr, so all take the same alpha, beta and stopping
 * decision without another barrier.  The barrier also publishes the rows of
 * the SpMV's input that the next step multiplies, which is why a
 * Ghysels-Vanroose iteration needs exactly one: its only global
 * dependences are the reduction and A m, both produced by the step before.
 * Each row's values stay in registers for the whole launch, so a step
 * moves only the SpMV's input through memory, and the input alternates
 * between two buffers so that no block overwrites what a slower one still
 * reads.  Used where the resident grid has a group of threads for every
 * row; on larger problems the launch is a small part of a step and the
 * steps are launched one by one (replayed from a graph). */
#include "backends/cuda/cuda_pipecg.cuh"
#include "backends/cuda/cuda_resident.cuh"
#include "backends/step_rules.h"

/* Sums of one step: gamma, delta, rr. */
constexpr int RESIDENT_SUMS = 3;
/* The partials (RESIDENT_SUMS x stride), then the totals. */
static_assert(RESIDENT_SUMS + 1 <= KRYL_CUDA_MAX_REDUCED, "partials and totals must fit");

/* Up to `steps` fused steps (pipecg_spmv_kernel's, restart = 0), stopping
 * after the one whose rr meets the monitor's tolerance or at a breakdown;
 * JACOBI: m = dinv .* w fused (else no preconditioner).  Each group of
 * LANES threads owns one row for the whole launch: lane 0 keeps the row's
 * values of every vector in registers and each lane its first entries of
 * the row, so a step reads only the SpMV's input (in, written by other
 * blocks in the step before) and writes only its update (to v.next; the
 * two trade places after every step).  The other vectors are stored once,
 * at the end.  The monitor is read once and written back at the end (its
 * history as it goes), so that no step waits for a load of it. */
template <typename T, typename I, int LANES, bool JACOBI>
__global__ __launch_bounds__(KRYL_CUDA_THREADS, RESIDENT_BLOCKS_PER_SM) void pipecg_resident_kernel(
    int64_t nrows, const I *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
    const T *__restrict__ values, double *sc, pipecg_args<T> v, double *coef, kryl_monitor *monitor,
    int64_t steps, double *partials, unsigned int stride, unsigned int *counter,
    unsigned int *generation)
{
    constexpr int DEPTH = RESIDENT_DEPTH<LANES>;
    kryl_monitor local = *monitor;
    if (local.stop != KRYL_STOP_RUNNING) return;
    const unsigned int base = *(volatile unsigned int *)generation;
    const bool first_thread = blockIdx.x == 0 && threadIdx.x == 0;
    double c[KRYL_PIPECG_SCALARS];
    for (int k = 0; k < KRYL_PIPECG_SCALARS; k++) c[k] = sc[k];
    const int lane = (int)(threadIdx.x % LANES);
    const int64_t row = ((int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x) / LANES;
    const bool owner = row < nrows && lane == 0;
    /* the lane's first DEPTH entries of the row, kept for every step */
    const auto entries = load_row_entries<T, I, LANES, DEPTH>(row < nrows ? row : -1, lane, row_ptr,
                                                              col_idx, values);
    pipecg_state o{};
    if (owner) o = pipecg_load<T, JACOBI, JACOBI>(row, v);
    T *in = JACOBI ? v.m : v.w;
    bool moved = false; /* o differs from what is stored */
    for (int64_t step = 0; step < steps; step++) {
        double alpha, beta;
        bool fresh;
        /* the same scalars in every block: all stop here together (the
         * first thread's copy of the monitor records why) */
        if (!pipecg_coefficients(c, 0, &local, &alpha, &beta, &fresh)) break;
        if (coef && first_thread) {
            coef[2 * local.iteration] = alpha;
            coef[2 * local.iteration + 1] = beta;
        }
        /* n_row = (A in)_row, in written by other blocks in the step before */
        const double ni = row_entries_sum<true>(entries, col_idx, values, in);
        double sums[RESIDENT_SUMS] = {0.0, 0.0, 0.0};
        if (owner) {
            /* z q s p x r u w updates, m = dinv .* w, in registers; the SpMV's next input stored */
            o = pipecg_advance<T, JACOBI, JACOBI>(o, ni, alpha, beta, fresh, sums);
            v.next[row] = (T)(JACOBI ? o.m : o.w);
        }
        moved = true;
        /* (gamma, delta, rr) = the grid's sums, in every block; the updated
         * input published */
        kryl_resident_sum<RESIDENT_SUMS>(sums, partials, stride, counter, generation,
                                         base + (unsigned int)step + 1u,
                                         partials + RESIDENT_SUMS * stride);
        c[KRYL_PIPECG_GAMMA_OLD] = c[KRYL_PIPECG_GAMMA];
        c[KRYL_PIPECG_ALPHA_OLD] = alpha;
        c[KRYL_PIPECG_GAMMA] = sums[0];
        c[KRYL_PIPECG_DELTA] = sums[1];
        c[KRYL_PIPECG_RR] = sums[2];
        if (first_thread) kryl_monitor_record(&local, sums[2], 1);
        T *updated = v.next;
        v.next = in;
        in = updated;
        /* as the record decides in the first thread */
        if (kryl_record_stop(sums[2], &local) != KRYL_STOP_RUNNING) break;
    }
    /* the row's other vectors (its SpMV input is stored: storing it again
     * to `in`, where it is, changes nothing) */
    v.next = in;
    if (owner && moved) pipecg_store<T, JACOBI, JACOBI>(row, o, v);
    if (first_thread) {
        for (int k = 0; k < KRYL_PIPECG_SCALARS; k++) sc[k] = c[k];
        *monitor = local;
    }
}

template <typename T, typename I, int LANES, bool JACOBI>
static kryl_status launch_resident(kryl_cuda_state *s, const cuda_csr *m, kryl_scalar sc,
                                   const pipecg_args<T> &a, double *coef, kryl_monitor *monitor,
                                   int64_t steps, bool *queued)
{
    auto kernel = pipecg_resident_kernel<T, I, LANES, JACOBI>;
    const unsigned int grid = kryl_resident_grid<LANES>(s, kernel, m->nrows);
    *queued = grid > 0; /* a group for every row */
    if (!*queued || steps == 0) return KRYL_SUCCESS;
    /* `steps` times: n = A in;  alpha, beta;  the updates;  gamma, delta, rr */
    KRYL_CUDA_CHECK(kryl_resident_launch(
        s, kernel, grid, m->nrows, static_cast<const I *>(m->row_ptr), (const int32_t *)m->col_idx,
        static_cast<const T *>(m->values), sc.ptr, a, coef, monitor, steps, s->partials,
        s->reduce_blocks, s->counter, s->generation));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_pipecg_spmv_steps(kryl_context ctx, kryl_matrix A, kryl_scalar sc,
                                        const kryl_pipecg_vectors *v, kryl_vector dinv,
                                        kryl_vector next, double *coef, kryl_monitor *monitor,
                                        int64_t steps, bool *queued)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(queued);
    *queued = false;
    KRYL_TRY(kryl_cuda_check_pipecg_step("pipecg_spmv_steps", v, dinv, sc, monitor, true));
    /* a preconditioner other than Jacobi is applied between the steps */
    if (v->u && !dinv) return KRYL_SUCCESS;
    KRYL_TRY(kryl_cuda_check_vectors("pipecg_spmv_steps", v->x, next));
    kryl_vector in = dinv ? v->m : v->w;
    if (next->data == in->data)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda pipecg_spmv_steps: next must not be the vector A multiplies");
    if (steps < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda pipecg_spmv_steps: steps = %lld < 0",
                          (long long)steps);
    const cuda_csr *m = kryl_cuda_vector_csr(A);
    if (m == nullptr || A->fmt.nrows != v->x->n || A->precision != v->x->precision)
        return KRYL_SUCCESS;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    kryl_status st = KRYL_SUCCESS;
    kryl_cuda_with_type(A->precision, [&](auto t) {
        using T = decltype(t);
        const pipecg_args<T> a = kryl_cuda_pipecg_args<T>(v, dinv, next);
        kryl_cuda_with_offsets(m, [&](auto offset) {
            using I = decltype(offset);
            kryl_cuda_with_lanes(m->lanes, [&](auto lanes) {
                constexpr int LANES = decltype(lanes)::value;
                st = dinv ? launch_resident<T, I, LANES, true>(s, m, sc, a, coef, monitor, steps,
                                                               queued)
                          : launch_resident<T, I, LANES, false>(s, m, sc, a, coef, monitor, steps,
                                                                queued);
            });
        });
    });
    return st;
}
