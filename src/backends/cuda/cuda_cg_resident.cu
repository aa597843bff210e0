/* Many steps of CG with one reduction (cg1_terms and cg1_update after
 * q = A p) in ONE cooperative launch, for small problems where a step is a
 * chain of latencies rather than a stream of bytes (as pipelined CG's
 * resident kernel, cuda_pipecg_resident.cu).
 *
 * A CG step needs its new direction p everywhere before the next SpMV, and
 * p comes after the step's reduction: two grid barriers a step.  One is
 * enough when each row, instead of reading its neighbours' new p, rebuilds
 * it from what they published before the barrier: p_j' = dinv_j (r_j -
 * alpha q_j) + beta p_j, with their r, p and q of the step and the alpha
 * and beta that every block computes from the reduction (the one-reduction
 * recurrence of D'Azevedo, Eijkhout & Romine 1993 needs nothing else).  The
 * published triples alternate between two buffers, so no block overwrites
 * what a slower one still reads; each row's own x, r and p stay in
 * registers and are stored once, at the end.  The rebuilt value and the
 * owner's are computed by the same device functions (cuda_cg.cuh), so they
 * agree to the bit. */
#include "backends/cuda/cuda_cg.cuh"
#include "backends/cuda/cuda_krylov.cuh"
#include "backends/cuda/cuda_resident.cuh"

/* The published vectors of a step: r, p, q (each n). */
enum { PUBLISHED = 3, PUB_R = 0, PUB_P = 1, PUB_Q = 2 };

/* The partials (N x stride) then the totals must fit the workspace. */
static_assert(KRYL_CG1_TERMS + 1 <= KRYL_CUDA_MAX_REDUCED, "partials and totals must fit");

/* Up to `steps` steps of cg1_terms + cg1_update after q = A p, with their
 * monitor records, stopping where cg1_update would.  Each group of LANES
 * threads owns a row for the whole launch.  scratch: 2 x PUBLISHED x n. */
template <typename I, int LANES, bool JACOBI>
__global__ __launch_bounds__(KRYL_CUDA_THREADS, RESIDENT_BLOCKS_PER_SM) void cg1_resident_kernel(
    int64_t nrows, const I *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
    const double *__restrict__ values, double *x, double *r, double *p,
    const double *__restrict__ dinv, double *scratch, kryl_monitor *monitor, int64_t steps,
    double *partials, unsigned int stride, unsigned int *counter, unsigned int *generation)
{
    constexpr int N = JACOBI ? KRYL_CG1_TERMS : KRYL_CG1_RDR;
    constexpr int DEPTH = RESIDENT_DEPTH<LANES>;
    kryl_monitor local = *monitor;
    if (local.stop != KRYL_STOP_RUNNING) return;
    const unsigned int base = *(volatile unsigned int *)generation;
    const bool first_thread = blockIdx.x == 0 && threadIdx.x == 0;
    const int lane = (int)(threadIdx.x % LANES);
    const int64_t row = ((int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x) / LANES;
    const bool owner = row < nrows && lane == 0;
    const auto entries = load_row_entries<double, I, LANES, DEPTH>(row < nrows ? row : -1, lane,
                                                                   row_ptr, col_idx, values);
    double xi = 0.0, ri = 0.0, pi = 0.0, di = 1.0;
    if (owner) {
        xi = x[row];
        ri = r[row];
        pi = p[row];
        if (JACOBI) di = dinv[row];
    }
    double alpha = 0.0, beta = 0.0; /* of the step before */
    bool moved = false;             /* xi, ri, pi differ from what is stored */
    for (int64_t step = 0; step < steps; step++) {
        double *pub = scratch + (size_t)(step % 2) * PUBLISHED * nrows;
        const double *prev = scratch + (size_t)((step + 1) % 2) * PUBLISHED * nrows;
        double qi;
        if (step == 0) {
            /* q = A p, p as stored before the launch */
            qi = row_entries_sum<false>(entries, col_idx, values, p);
        } else {
            /* q = A p', p'_j rebuilt from the r, p, q row j published a step
             * ago (plain loads: after the barrier's acquire, L1 serves a
             * row's neighbours j - 1, j, j + 1 from one line) */
            qi = row_entries_dot(entries, col_idx, values, [&](int32_t j) {
                const double dj = JACOBI ? __ldg(&dinv[j]) : 1.0;
                const double rj = cg1_next_r(__ldca(&prev[PUB_R * nrows + j]),
                                             __ldca(&prev[PUB_Q * nrows + j]), alpha);
                return cg1_next_p<JACOBI>(rj, __ldca(&prev[PUB_P * nrows + j]), dj, beta);
            });
        }
        double t[N] = {};
        if (owner) {
            pub[PUB_R * nrows + row] = ri;
            pub[PUB_P * nrows + row] = pi;
            pub[PUB_Q * nrows + row] = qi;
            cg1_add_terms<JACOBI>(t, pi, qi, ri, di);
        }
        /* t = the grid's sums, in every block; the triples published */
        kryl_resident_sum<N>(t, partials, stride, counter, generation,
                             base + (unsigned int)step + 1u, partials + N * stride);
        /* the same alpha, beta and decision in every block (the first
         * thread's copy of the monitor records the exact ||r||) */
        double rr_new;
        if (!cg1_coefficients<JACOBI>(t, &local, &alpha, &beta, &rr_new)) break;
        if (owner) {
            /* x += alpha p;  r -= alpha q;  p = dinv .* r + beta p */
            xi += alpha * pi;
            ri = cg1_next_r(ri, qi, alpha);
            pi = cg1_next_p<JACOBI>(ri, pi, di, beta);
        }
        moved = true;
        if (first_thread) kryl_monitor_record(&local, rr_new, 1);
        /* as the record decides in the first thread */
        if (kryl_record_stop(rr_new, &local) != KRYL_STOP_RUNNING) break;
    }
    if (owner && moved) {
        x[row] = xi;
        r[row] = ri;
        p[row] = pi;
    }
    if (first_thread) *monitor = local;
}

template <typename I, int LANES, bool JACOBI>
static kryl_status launch_cg1_resident(kryl_cuda_state *s, const cuda_csr *m, kryl_vector p,
                                       kryl_vector x, kryl_vector r, kryl_vector dinv,
                                       double *scratch, kryl_monitor *monitor, int64_t steps,
                                       bool *queued)
{
    auto kernel = cg1_resident_kernel<I, LANES, JACOBI>;
    const unsigned int grid = kryl_resident_grid<LANES>(s, kernel, m->nrows);
    *queued = grid > 0; /* a group for every row */
    if (!*queued || steps == 0) return KRYL_SUCCESS;
    /* `steps` times: q = A p;  t;  alpha, beta;  x, r, p;  ||r|| recorded */
    KRYL_CUDA_CHECK(kryl_resident_launch(
        s, kernel, grid, m->nrows, static_cast<const I *>(m->row_ptr), (const int32_t *)m->col_idx,
        static_cast<const double *>(m->values), static_cast<double *>(x->data),
        static_cast<double *>(r->data), static_cast<double *>(p->data),
        dinv ? static_cast<const double *>(dinv->data) : nullptr, scratch, monitor, steps,
        s->partials, s->reduce_blocks, s->counter, s->generation));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_cg1_steps(kryl_context ctx, kryl_matrix A, kryl_vector p, kryl_vector x,
                                kryl_vector r, kryl_vector dinv, void *scratch,
                                kryl_monitor *monitor, int64_t steps, bool *queued)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(queued);
    KRYL_REQUIRE_ARG(monitor);
    *queued = false;
    KRYL_TRY(kryl_cuda_check_vectors("cg1_steps", r, p));
    KRYL_TRY(kryl_cuda_check_vectors("cg1_steps", r, x));
    if (dinv) KRYL_TRY(kryl_cuda_check_vectors("cg1_steps", r, dinv));
    if (steps < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda cg1_steps: steps = %lld < 0",
                          (long long)steps);
    if (steps > 0 && scratch == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda cg1_steps: scratch is NULL");
    const cuda_csr *m = kryl_cuda_vector_csr(A);
    if (m == nullptr || A->precision != KRYL_DOUBLE || r->precision != KRYL_DOUBLE ||
        A->fmt.nrows != r->n)
        return KRYL_SUCCESS;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    kryl_status st = KRYL_SUCCESS;
    double *work = static_cast<double *>(scratch);
    kryl_cuda_with_offsets(m, [&](auto offset) {
        using I = decltype(offset);
        kryl_cuda_with_lanes(m->lanes, [&](auto lanes) {
            constexpr int LANES = decltype(lanes)::value;
            st = dinv ? launch_cg1_resident<I, LANES, true>(s, m, p, x, r, dinv, work, monitor,
                                                            steps, queued)
                      : launch_cg1_resident<I, LANES, false>(s, m, p, x, r, dinv, work, monitor,
                                                             steps, queued);
        });
    });
    return st;
}
