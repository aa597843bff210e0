/*
 * bench_dist: CG and SpMV over MPI ranks (docs/DISTRIBUTED.md), unattended.
 *
 *   mpirun -np P bench_dist [--n 256] [--its 50] [--reps 20] [--backend auto]
 *                           [--powerlaw 10000000] [--rgg 10000000] [--rgg-metis]
 *                           [--link-gbs 25] [--strong 1] [--weak 1] [--profile]
 *                           [--converge N]
 *
 * Baseline (same run): the problem on rank 0 alone.  Then, for each overlap
 * mode (vector, naive, task; Kreutzer et al. 2012, section 3), CG and
 * pipelined CG (its one reduction overlapping the SpMV), each against
 * itself on one rank:
 *   strong scaling: the 7-point Poisson matrix on n^3 points split over the ranks;
 *   weak scaling:   n x n x (n P) points, n^3 per rank;
 * with the time per CG iteration and per SpMV (max over ranks), each rank's
 * halo (ghosts, bytes sent per SpMV) and its SpMV time split into compute,
 * communication and waiting, and the model's prediction: the local
 * product by the bandwidth model (eq. 1, kryl_matrix_format_info), plus
 * 8/N_nzr bytes per flop for writing y twice, plus the halo's bytes over a
 * link of --link-gbs GB/s, added (vector) or overlapped (naive, task).
 * Then a communication-heavy case: a power-law matrix of --powerlaw rows
 * built on rank 0, distributed by contiguous ranges and by METIS parts.
 * Last, one random geometric graph of --rgg rows (src/gen/rgg.c) three
 * ways: scrambled numbering in contiguous rows and spatial numbering in
 * contiguous rows (slabs of the cube), each rank generating its own rows,
 * and with --rgg-metis (slow: METIS on rank 0) the scrambled matrix built
 * on rank 0 and split by METIS parts; for each its halo, SpMV per mode and
 * CG in the mode with the fastest SpMV.
 * --profile (P > 1) adds where the strong-scaling iteration's time goes:
 * each rank alone on a problem of its part's size (n x n x n/P, on its own
 * GPU, all at once) against the distributed run, the SpMV, CG with graphs
 * and CG profiled phase by phase (SpMV, reductions, vector updates; the
 * backend synchronised at each phase, launch by launch).
 * --converge N: CG to rtol 1e-8 (true residual) on the 7-point N^3 rows split
 * over the ranks, each generating its own: generation, setup, iterations,
 * time per iteration, device memory and host peak per rank; against
 * rank 0 alone on one rank's part (solves of --its and twice as many
 * iterations, their difference) for the weak-scaling efficiency.
 * --strong 0 / --weak 0 skip those tables.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kryl_mpi.h"

typedef struct bench_args {
    int64_t n, its, reps, powerlaw, rgg, strong, weak, converge;
    bool rgg_metis, profile;
    double link_gbs;
    kryl_backend_kind backend;
} bench_args;

/* One measurement of one matrix in one mode, max over the ranks. */
typedef struct measure {
    double spmv_s, cg_it_s, pipecg_it_s;
    double model_vector_s, model_overlap_s;
} measure;

static int rank, size, local_rank; /* local_rank: among the ranks of this host */

#define DIE_UNLESS(call)                                                                           \
    do {                                                                                           \
        kryl_status st_ = (call);                                                                  \
        if (st_ != KRYL_SUCCESS) {                                                                 \
            fprintf(stderr, "rank %d: %s failed: %s\n", rank, #call, kryl_last_error());           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

static double max_over_ranks(double v, MPI_Comm comm)
{
    double m = v;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

/* Seconds per y = A x (x = 1), the best of three rounds of reps, max over ranks.
 * kryl_vector_fill synchronises the device at the end of a round. */
static double time_spmv(kryl_matrix A, int64_t reps, MPI_Comm comm)
{
    kryl_vector x = NULL, y = NULL;
    DIE_UNLESS(kryl_vector_create(&x, A, KRYL_DOUBLE));
    DIE_UNLESS(kryl_vector_create(&y, A, KRYL_DOUBLE));
    DIE_UNLESS(kryl_vector_fill(x, 1.0));
    DIE_UNLESS(kryl_matrix_spmv(A, 1.0, x, 0.0, y));
    double best = INFINITY;
    for (int round = 0; round < 3; round++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        for (int64_t k = 0; k < reps; k++) DIE_UNLESS(kryl_matrix_spmv(A, 1.0, x, 0.0, y));
        DIE_UNLESS(kryl_vector_fill(x, 1.0));
        best = fmin(best, (MPI_Wtime() - t0) / (double)reps);
    }
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&y);
    return max_over_ranks(best, comm);
}

/* The second of two solves of `method` with options o (b = 1, x0 = 0): the
 * first also sets up what the transport opens lazily (NCCL's reduction
 * channels: about 0.9 s on two H200s). */
static kryl_result solve_twice(kryl_matrix A, const kryl_solver_options *o)
{
    kryl_solver s = NULL;
    kryl_vector b = NULL, x = NULL;
    kryl_result r;
    DIE_UNLESS(kryl_solver_create(&s, A, o));
    DIE_UNLESS(kryl_vector_create(&b, A, KRYL_DOUBLE));
    DIE_UNLESS(kryl_vector_create(&x, A, KRYL_DOUBLE));
    DIE_UNLESS(kryl_vector_fill(b, 1.0));
    for (int solve = 0; solve < 2; solve++) {
        DIE_UNLESS(kryl_vector_fill(x, 0.0));
        DIE_UNLESS(kryl_solver_solve(s, b, x, &r));
    }
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    kryl_solver_destroy(&s);
    return r;
}

/* Options running all `its` iterations of `method`. */
static kryl_solver_options fixed_iterations(kryl_method method, int64_t its)
{
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = method;
    o.rtol = 1e-300; /* run all its iterations */
    o.max_iterations = its;
    o.record_history = false;
    return o;
}

/* Seconds per iteration of `method` (its iterations), max over ranks. */
static double time_method(kryl_matrix A, kryl_method method, int64_t its, MPI_Comm comm)
{
    kryl_solver_options o = fixed_iterations(method, its);
    kryl_result r = solve_twice(A, &o);
    return max_over_ranks(r.iterations > 0 ? r.solve_s / (double)r.iterations : 0.0, comm);
}

/* The model's SpMV seconds of this rank's part: vector mode adds the
 * halo's transfer, the overlapped modes hide it behind the local product. */
static void model(kryl_matrix A, const bench_args *a, measure *m)
{
    kryl_format_info f;
    kryl_dist_info d;
    DIE_UNLESS(kryl_matrix_format_info(A, KRYL_FORMAT_CSR, &f));
    DIE_UNLESS(kryl_matrix_dist_info(A, &d));
    double split = d.size > 1 && f.bandwidth > 0.0 ? 16.0 * (double)d.rows / f.bandwidth : 0.0;
    /* bytes received ~ bytes sent for a symmetric pattern */
    double halo = 2.0 * (double)d.bytes_sent / (a->link_gbs * 1e9);
    m->model_vector_s = max_over_ranks(f.predicted_seconds + split + halo, MPI_COMM_WORLD);
    m->model_overlap_s = max_over_ranks(fmax(f.predicted_seconds, halo) + split, MPI_COMM_WORLD);
}

/* Rank 0 prints every rank's part and SpMV split (from the counters). */
static void print_ranks(kryl_matrix A, kryl_context ctx)
{
    kryl_dist_info mine, *all = calloc((size_t)size, sizeof *all);
    DIE_UNLESS(kryl_matrix_dist_info(A, &mine));
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    for (int p = 0; rank == 0 && p < size; p++) {
        double k = all[p].spmvs > 0 ? 1e3 / (double)all[p].spmvs : 0.0;
        printf("      rank %d: %10lld rows %9lld ghosts %3d nbrs %9.3f MB/SpMV   "
               "per SpMV compute %.3f comm %.3f wait %.3f ms\n",
               p, (long long)all[p].rows, (long long)all[p].ghosts, all[p].neighbours,
               1e-6 * (double)all[p].bytes_sent, k * all[p].compute_s, k * all[p].comm_s,
               k * all[p].wait_s);
    }
    free(all);
    DIE_UNLESS(kryl_context_reset_dist_stats(ctx));
}

static const char *mode_names[] = {"vector", "naive", "task"};

/* Every mode on A: a table row per mode and the per-rank lines. */
static void run_modes(const char *title, kryl_matrix A, kryl_context ctx, const bench_args *a,
                      const measure *base, bool strong)
{
    int64_t n = 0, nnz = 0;
    kryl_matrix_size(A, &n, NULL, &nnz);
    if (rank == 0) {
        printf("\n%s: %lld rows, %lld nonzeros, %d ranks\n", title, (long long)n, (long long)nnz,
               size);
        printf("  %-7s %10s %10s %10s %10s %8s %12s %8s\n", "mode", "CG ms/it", "SpMV ms",
               "model vec", "model ovl", strong ? "speedup" : "weak eff", "pipecg ms/it",
               strong ? "speedup" : "weak eff");
    }
    measure m;
    model(A, a, &m);
    for (int mode = KRYL_OVERLAP_VECTOR; mode <= KRYL_OVERLAP_TASK; mode++) {
        DIE_UNLESS(kryl_context_set_overlap(ctx, (kryl_overlap)mode));
        DIE_UNLESS(kryl_context_reset_dist_stats(ctx));
        m.spmv_s = time_spmv(A, a->reps, MPI_COMM_WORLD);
        DIE_UNLESS(kryl_context_reset_dist_stats(ctx));
        m.cg_it_s = time_method(A, KRYL_METHOD_CG, a->its, MPI_COMM_WORLD);
        m.pipecg_it_s = time_method(A, KRYL_METHOD_PIPECG, a->its, MPI_COMM_WORLD);
        /* strong: T1 / TP (ideal P); weak: T1 / TP (ideal 1); each method against itself */
        double ratio = m.cg_it_s > 0.0 ? base->cg_it_s / m.cg_it_s : 0.0;
        double pipe_ratio = m.pipecg_it_s > 0.0 ? base->pipecg_it_s / m.pipecg_it_s : 0.0;
        if (rank == 0)
            printf("  %-7s %10.3f %10.3f %10.3f %10.3f %8.2f %12.3f %8.2f\n", mode_names[mode],
                   1e3 * m.cg_it_s, 1e3 * m.spmv_s, 1e3 * m.model_vector_s,
                   1e3 * (mode == KRYL_OVERLAP_VECTOR ? m.model_vector_s : m.model_overlap_s),
                   ratio, 1e3 * m.pipecg_it_s, pipe_ratio);
        if (size > 1) print_ranks(A, ctx);
    }
}

/* The baseline: the n^3 problem on rank 0 alone (broadcast to all). */
static void baseline(const bench_args *a, measure *base)
{
    memset(base, 0, sizeof *base);
    if (rank == 0) {
        kryl_context_options co;
        kryl_context_options_init(&co);
        co.backend = a->backend;
        kryl_context one = NULL;
        DIE_UNLESS(kryl_context_create_mpi(&one, &co, MPI_COMM_SELF));
        kryl_generator_options g;
        kryl_generator_options_init(&g, KRYL_GEN_POISSON3D7, a->n);
        int64_t rows = 0, estimate;
        DIE_UNLESS(kryl_generator_size(&g, &rows, &estimate));
        kryl_matrix A = NULL;
        DIE_UNLESS(kryl_matrix_generate(&A, one, &g, 0, rows));
        base->spmv_s = time_spmv(A, a->reps, MPI_COMM_SELF);
        base->cg_it_s = time_method(A, KRYL_METHOD_CG, a->its, MPI_COMM_SELF);
        base->pipecg_it_s = time_method(A, KRYL_METHOD_PIPECG, a->its, MPI_COMM_SELF);
        printf("baseline, 1 rank (%s): poisson3d %lld^3: CG %.3f ms/it, pipecg %.3f ms/it, "
               "SpMV %.3f ms\n",
               kryl_context_device_name(one), (long long)a->n, 1e3 * base->cg_it_s,
               1e3 * base->pipecg_it_s, 1e3 * base->spmv_s);
        kryl_matrix_destroy(&A);
        kryl_context_destroy(&one);
    }
    MPI_Bcast(base, (int)sizeof *base, MPI_BYTE, 0, MPI_COMM_WORLD);
}

/* The 7-point Poisson matrix on nx x ny x nz points, each rank its block. */
static kryl_matrix poisson(kryl_context ctx, int64_t nx, int64_t ny, int64_t nz)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_POISSON3D7, nx);
    g.ny = ny;
    g.nz = nz;
    int64_t rows = 0, estimate;
    DIE_UNLESS(kryl_generator_size(&g, &rows, &estimate));
    kryl_matrix A = NULL;
    DIE_UNLESS(kryl_matrix_generate(&A, ctx, &g, 0, rows));
    return A;
}

/* A host context of one process (omp, else ref) for a matrix built whole on rank 0. */
static kryl_context host_context(void)
{
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = KRYL_BACKEND_OMP;
    if (!kryl_backend_available(KRYL_BACKEND_OMP)) co.backend = KRYL_BACKEND_REF;
    kryl_context one = NULL;
    DIE_UNLESS(kryl_context_create(&one, &co));
    return one;
}

/* A's halo (the most ghosts of a rank, bytes sent per SpMV summed over the
 * ranks) and its SpMV seconds in each overlap mode (max over ranks). */
static void halo_and_spmv(kryl_matrix A, kryl_context ctx, const bench_args *a, double *ghosts,
                          double *bytes, double t[3])
{
    kryl_dist_info d;
    DIE_UNLESS(kryl_matrix_dist_info(A, &d));
    double mine = (double)d.bytes_sent;
    *ghosts = max_over_ranks((double)d.ghosts, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, bytes, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int mode = KRYL_OVERLAP_VECTOR; mode <= KRYL_OVERLAP_TASK; mode++) {
        DIE_UNLESS(kryl_context_set_overlap(ctx, (kryl_overlap)mode));
        t[mode] = time_spmv(A, a->reps, MPI_COMM_WORLD);
    }
}

/* The power-law matrix built on rank 0, distributed both ways; SpMV only. */
static void powerlaw(kryl_context ctx, const bench_args *a)
{
    kryl_matrix whole = NULL;
    kryl_context one = NULL;
    if (rank == 0) {
        one = host_context();
        kryl_generator_options g;
        kryl_generator_options_init(&g, KRYL_GEN_POWERLAW, a->powerlaw);
        DIE_UNLESS(kryl_matrix_generate(&whole, one, &g, 0, a->powerlaw));
        printf("\npowerlaw: %lld rows built on rank 0; SpMV ms per mode (max over ranks)\n",
               (long long)a->powerlaw);
        printf("  %-10s %9s %12s %14s %9s %9s %9s\n", "partition", "split s", "max ghosts",
               "sum MB/SpMV", "vector", "naive", "task");
    }
    const kryl_partition_kind parts[] = {KRYL_PARTITION_CONTIGUOUS, KRYL_PARTITION_METIS};
    for (int k = 0; k < 2; k++) {
        DIE_UNLESS(kryl_context_set_partition(ctx, parts[k]));
        double t0 = MPI_Wtime();
        kryl_matrix A = NULL;
        kryl_status st = kryl_matrix_distribute(&A, ctx, whole);
        if (st == KRYL_ERR_UNSUPPORTED) {
            if (rank == 0) printf("  %-10s (not in this build)\n", kryl_partition_name(parts[k]));
            continue;
        }
        DIE_UNLESS(st);
        double split_s = MPI_Wtime() - t0;
        double ghosts, bytes, t[3];
        halo_and_spmv(A, ctx, a, &ghosts, &bytes, t);
        if (rank == 0)
            printf("  %-10s %9.2f %12.0f %14.3f %9.3f %9.3f %9.3f\n", kryl_partition_name(parts[k]),
                   split_s, ghosts, 1e-6 * bytes, 1e3 * t[0], 1e3 * t[1], 1e3 * t[2]);
        kryl_matrix_destroy(&A);
    }
    kryl_matrix_destroy(&whole);
    kryl_context_destroy(&one);
}

/* One way of numbering and splitting the rgg graph: a table row with its
 * build and split seconds (split < 0: none), halo, SpMV per mode and CG in
 * the mode with the fastest SpMV. */
static void rgg_row(const char *label, kryl_matrix A, kryl_context ctx, const bench_args *a,
                    double build_s, double split_s)
{
    double ghosts, bytes, t[3];
    halo_and_spmv(A, ctx, a, &ghosts, &bytes, t);
    /* t is the max over ranks, so every rank picks the same mode */
    int best = KRYL_OVERLAP_VECTOR;
    for (int mode = KRYL_OVERLAP_NAIVE; mode <= KRYL_OVERLAP_TASK; mode++)
        if (t[mode] < t[best]) best = mode;
    DIE_UNLESS(kryl_context_set_overlap(ctx, (kryl_overlap)best));
    double cg_s = time_method(A, KRYL_METHOD_CG, a->its, MPI_COMM_WORLD);
    if (rank == 0) {
        char split[16] = "-";
        if (split_s >= 0.0) snprintf(split, sizeof split, "%.2f", split_s);
        printf("  %-21s %8.2f %8s %11.0f %12.3f %9.3f %9.3f %9.3f %9.3f %s\n", label, build_s,
               split, ghosts, 1e-6 * bytes, 1e3 * t[0], 1e3 * t[1], 1e3 * t[2], 1e3 * cg_s,
               mode_names[best]);
    }
}

/* The random geometric graph of --rgg rows: scrambled and spatial numbering,
 * each rank generating its contiguous rows; with --rgg-metis also the
 * scrambled matrix built on rank 0 and split by METIS parts. */
static void rgg(kryl_context ctx, const bench_args *a)
{
    if (rank == 0) {
        printf("\nrgg: random geometric graph, %lld rows of 8 entries on average; SpMV ms per "
               "mode and CG ms/it in the fastest (max over ranks)\n",
               (long long)a->rgg);
        printf("  %-21s %8s %8s %11s %12s %9s %9s %9s %9s %s\n", "numbering, rows", "build s",
               "split s", "max ghosts", "sum MB/SpMV", "vector", "naive", "task", "CG ms/it",
               "CG in");
    }
    const kryl_generator_kind kinds[2] = {KRYL_GEN_RGG, KRYL_GEN_RGG_SPATIAL};
    const char *labels[2] = {"scrambled, contiguous", "spatial, contiguous"};
    for (int k = 0; k < 2; k++) {
        kryl_generator_options g;
        kryl_generator_options_init(&g, kinds[k], a->rgg);
        kryl_matrix A = NULL;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        DIE_UNLESS(kryl_matrix_generate(&A, ctx, &g, 0, a->rgg));
        double build_s = max_over_ranks(MPI_Wtime() - t0, MPI_COMM_WORLD);
        rgg_row(labels[k], A, ctx, a, build_s, -1.0);
        kryl_matrix_destroy(&A);
    }
    if (!a->rgg_metis) {
        if (rank == 0) printf("  %-21s (with --rgg-metis)\n", "scrambled, METIS");
        return;
    }
    kryl_matrix whole = NULL;
    kryl_context one = NULL;
    double build_s = 0.0;
    if (rank == 0) {
        one = host_context();
        kryl_generator_options g;
        kryl_generator_options_init(&g, KRYL_GEN_RGG, a->rgg);
        double t0 = MPI_Wtime();
        DIE_UNLESS(kryl_matrix_generate(&whole, one, &g, 0, a->rgg));
        build_s = MPI_Wtime() - t0;
    }
    DIE_UNLESS(kryl_context_set_partition(ctx, KRYL_PARTITION_METIS));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    kryl_matrix A = NULL;
    kryl_status st = kryl_matrix_distribute(&A, ctx, whole);
    if (st == KRYL_ERR_UNSUPPORTED) {
        if (rank == 0) printf("  %-21s (not in this build)\n", "scrambled, METIS");
    } else {
        DIE_UNLESS(st);
        double split_s = max_over_ranks(MPI_Wtime() - t0, MPI_COMM_WORLD);
        rgg_row("scrambled, METIS", A, ctx, a, build_s, split_s);
    }
    kryl_matrix_destroy(&A);
    kryl_matrix_destroy(&whole);
    kryl_context_destroy(&one);
}

/* This rank's place among the ranks of its host, which names its GPU as
 * kryl_context_create_mpi chooses it (one rank per GPU).  Collective. */
static int node_local_rank(void)
{
    MPI_Comm node;
    int local = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
    return local;
}

/* A context of this process alone on this rank's GPU. */
static kryl_context alone_context(const bench_args *a)
{
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = a->backend;
    co.device = local_rank;
    kryl_context one = NULL;
    DIE_UNLESS(kryl_context_create_mpi(&one, &co, MPI_COMM_SELF));
    return one;
}

/* ms per iteration (max over ranks): CG replayed as graphs, the SpMV, and CG
 * profiled phase by phase (launch by launch, synchronised at each phase). */
typedef struct breakdown {
    double cg, spmv, spmv_phase, reduction, vector, iteration;
} breakdown;

static breakdown measure_breakdown(kryl_matrix A, const bench_args *a)
{
    breakdown b;
    b.spmv = 1e3 * time_spmv(A, a->reps, MPI_COMM_WORLD);
    b.cg = 1e3 * time_method(A, KRYL_METHOD_CG, a->its, MPI_COMM_WORLD);
    kryl_solver_options o = fixed_iterations(KRYL_METHOD_CG, a->its);
    o.profile = true;
    kryl_result r = solve_twice(A, &o);
    double k = r.iterations > 0 ? 1e3 / (double)r.iterations : 0.0;
    b.spmv_phase = max_over_ranks(k * r.profile.spmv, MPI_COMM_WORLD);
    b.reduction = max_over_ranks(k * r.profile.reduction, MPI_COMM_WORLD);
    b.vector = max_over_ranks(k * r.profile.vector, MPI_COMM_WORLD);
    b.iteration = max_over_ranks(k * r.profile.iteration, MPI_COMM_WORLD);
    return b;
}

static void print_breakdown(const char *label, const breakdown *b)
{
    if (rank == 0)
        printf("  %-30s %9.4f %9.4f %11.4f %10.4f %9.4f %10.4f\n", label, b->cg, b->spmv,
               b->spmv_phase, b->reduction, b->vector, b->iteration);
}

/* Where the strong-scaling iteration's time goes: every rank alone on a
 * problem of its part's size, at once on every GPU, against the
 * distributed run of A (the context's overlap mode). */
static void profile(kryl_matrix A, kryl_context ctx, const bench_args *a, const measure *base)
{
    kryl_dist_info d;
    DIE_UNLESS(kryl_matrix_dist_info(A, &d));
    DIE_UNLESS(kryl_context_set_overlap(ctx, KRYL_OVERLAP_NAIVE));
    /* this rank's rows as whole planes of n x n */
    int64_t planes = d.rows / (a->n * a->n) > 0 ? d.rows / (a->n * a->n) : 1;
    kryl_context one = alone_context(a);
    kryl_matrix part = poisson(one, a->n, a->n, planes);
    breakdown alone = measure_breakdown(part, a);
    kryl_matrix_destroy(&part);
    kryl_context_destroy(&one);
    breakdown dist = measure_breakdown(A, a);
    breakdown diff = {dist.cg - alone.cg,
                      dist.spmv - alone.spmv,
                      dist.spmv_phase - alone.spmv_phase,
                      dist.reduction - alone.reduction,
                      dist.vector - alone.vector,
                      dist.iteration - alone.iteration};
    char label[64];
    if (rank == 0) {
        printf("\nwhere the time goes: ms per CG iteration (max over ranks), %d ranks, naive "
               "overlap; profiled = launch by launch, synchronised at each phase\n",
               size);
        printf("  %-30s %9s %9s %11s %10s %9s %10s\n", "run", "CG", "SpMV", "prof SpMV",
               "reduction", "vector", "iteration");
        printf("  %-30s %9.4f %9s  (one rank's CG on the whole problem / %d)\n", "ideal",
               1e3 * base->cg_it_s / size, "", size);
    }
    snprintf(label, sizeof label, "each rank alone, %lldx%lldx%lld", (long long)a->n,
             (long long)a->n, (long long)planes);
    print_breakdown(label, &alone);
    print_breakdown("distributed", &dist);
    print_breakdown("distributed - alone", &diff);
    if (rank == 0)
        printf("  efficiency %.1f%% (ideal / distributed CG); alone / ideal %.1f%%: the part "
               "not due to communication\n",
               100.0 * 1e3 * base->cg_it_s / size / dist.cg,
               100.0 * 1e3 * base->cg_it_s / size / alone.cg);
    DIE_UNLESS(kryl_context_reset_dist_stats(ctx));
}

/* Peak resident host memory of this process, GiB. */
static double host_peak_gib(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / (1024.0 * 1024.0); /* kilobytes on Linux */
}

static double device_peak_gib(kryl_context ctx)
{
    kryl_device_memory m;
    DIE_UNLESS(kryl_context_device_memory(ctx, &m));
    return (double)m.peak / (1024.0 * 1024.0 * 1024.0);
}

/* CG to 1e-8 (true residual) on n^3 rows split over the ranks, each rank
 * generating its rows, against rank 0 alone on one rank's part. */
static void converge(kryl_context ctx, const bench_args *a)
{
    const int64_t n = a->converge, planes = n / size > 0 ? n / size : 1;
    double alone_s = 0.0;
    if (rank == 0) {
        kryl_context one = alone_context(a);
        kryl_matrix part = poisson(one, n, n, planes);
        /* per iteration from solves of its and 2 its: a solve's start and true
         * residual would weigh on a short solve, not on the long one it is set against */
        kryl_solver_options o = fixed_iterations(KRYL_METHOD_CG, a->its);
        double short_s = solve_twice(part, &o).solve_s;
        o.max_iterations = 2 * a->its;
        alone_s = (solve_twice(part, &o).solve_s - short_s) / (double)a->its;
        printf("\nconverge: one rank alone on %lldx%lldx%lld: CG %.3f ms/it, device peak %.2f "
               "GiB, host peak %.2f GiB\n",
               (long long)n, (long long)n, (long long)planes, 1e3 * alone_s, device_peak_gib(one),
               host_peak_gib());
        fflush(stdout);
        kryl_matrix_destroy(&part);
        kryl_context_destroy(&one);
    }
    MPI_Bcast(&alone_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    kryl_matrix A = poisson(ctx, n, n, n);
    double gen_s = max_over_ranks(MPI_Wtime() - t0, MPI_COMM_WORLD);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_CG;
    o.rtol = 1e-8;
    o.max_iterations = 100000;
    o.record_history = false;
    kryl_solver s = NULL;
    kryl_vector b = NULL, x = NULL;
    kryl_result r;
    t0 = MPI_Wtime();
    DIE_UNLESS(kryl_solver_create(&s, A, &o));
    double setup_s = max_over_ranks(MPI_Wtime() - t0, MPI_COMM_WORLD);
    DIE_UNLESS(kryl_vector_create(&b, A, KRYL_DOUBLE));
    DIE_UNLESS(kryl_vector_create(&x, A, KRYL_DOUBLE));
    DIE_UNLESS(kryl_vector_fill(b, 1.0));
    DIE_UNLESS(kryl_vector_fill(x, 0.0));
    DIE_UNLESS(kryl_solver_solve(s, b, x, &r));
    double it_s =
        max_over_ranks(r.iterations > 0 ? r.solve_s / (double)r.iterations : 0.0, MPI_COMM_WORLD);
    double mine[2] = {device_peak_gib(ctx), host_peak_gib()},
           *all = calloc(2 * (size_t)size, sizeof *all);
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int64_t rows = 0, nnz = 0;
    kryl_matrix_size(A, &rows, NULL, &nnz);
    if (rank == 0) {
        printf("converge: %lld^3 = %lld rows, %lld nonzeros on %d ranks: generated in %.1f s, "
               "setup %.1f s; CG %s in %lld iterations, true relres %.2e, solve %.2f s, "
               "%.3f ms/it; weak efficiency %.3f (alone %.3f ms/it)\n",
               (long long)n, (long long)rows, (long long)nnz, size, gen_s, setup_s,
               r.converged ? "converged" : "did NOT converge", (long long)r.iterations, r.relres,
               r.solve_s, 1e3 * it_s, it_s > 0.0 ? alone_s / it_s : 0.0, 1e3 * alone_s);
        for (int p = 0; p < size; p++)
            printf("  rank %d: device peak %.2f GiB, host peak %.2f GiB\n", p, all[2 * p],
                   all[2 * p + 1]);
    }
    free(all);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&A);
}

/* The usage line, and the end of the run. */
static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: bench_dist [--n N] [--its K] [--reps R] [--backend B] "
                        "[--powerlaw ROWS (0: skip)] [--rgg ROWS (0: skip)] [--rgg-metis] "
                        "[--link-gbs GB/s] [--strong 0|1] [--weak 0|1] [--profile] "
                        "[--converge N]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* --name value pairs and the switches --rgg-metis, --profile; anything else stops the
 * run with the usage line. */
static void parse(int argc, char **argv, bench_args *a)
{
    *a = (bench_args){.n = 256,
                      .its = 50,
                      .reps = 20,
                      .powerlaw = 10000000,
                      .rgg = 10000000,
                      .strong = 1,
                      .weak = 1,
                      .link_gbs = 25.0};
    const struct {
        const char *name;
        int64_t *value;
    } counts[] = {{"--n", &a->n},       {"--its", &a->its},
                  {"--reps", &a->reps}, {"--powerlaw", &a->powerlaw},
                  {"--rgg", &a->rgg},   {"--strong", &a->strong},
                  {"--weak", &a->weak}, {"--converge", &a->converge}};
    const struct {
        const char *name;
        bool *on;
    } switches[] = {{"--rgg-metis", &a->rgg_metis}, {"--profile", &a->profile}};
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i];
        bool known = false;
        for (size_t s = 0; s < sizeof switches / sizeof *switches; s++)
            if (strcmp(k, switches[s].name) == 0) *switches[s].on = known = true;
        if (known) continue;
        if (i + 1 == argc) usage();
        const char *v = argv[++i];
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
            if (strcmp(k, counts[c].name) == 0) {
                *counts[c].value = atoll(v);
                known = true;
            }
        if (strcmp(k, "--link-gbs") == 0)
            a->link_gbs = atof(v);
        else if (strcmp(k, "--backend") == 0)
            DIE_UNLESS(kryl_backend_from_name(v, &a->backend));
        else if (!known)
            usage();
    }
    if (a->n < 2 || a->its < 1 || a->reps < 1 || a->powerlaw < 0 || a->rgg < 0 || a->converge < 0 ||
        !(a->link_gbs > 0.0)) {
        if (rank == 0) fprintf(stderr, "bench_dist: sizes and counts must be positive\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    local_rank = node_local_rank();
    bench_args a;
    parse(argc, argv, &a);
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = a.backend;
    kryl_context ctx = NULL;
    DIE_UNLESS(kryl_context_create_mpi(&ctx, &co, MPI_COMM_WORLD));
    if (rank == 0)
        printf("bench_dist: %d ranks, backend %s (%s), MPI thread level %d, CG %lld its, "
               "SpMV best of 3 x %lld, link %.0f GB/s in the model\n",
               size, kryl_backend_name(kryl_context_backend(ctx)), kryl_context_device_name(ctx),
               provided, (long long)a.its, (long long)a.reps, a.link_gbs);
    measure base;
    if (a.strong || a.weak) baseline(&a, &base);
    kryl_matrix A = NULL;
    if (a.strong) {
        A = poisson(ctx, a.n, a.n, a.n);
        run_modes("strong scaling, poisson3d n^3", A, ctx, &a, &base, true);
        if (a.profile && size > 1) profile(A, ctx, &a, &base);
        kryl_matrix_destroy(&A);
    }
    if (a.weak && size > 1) {
        A = poisson(ctx, a.n, a.n, a.n * size);
        run_modes("weak scaling, poisson3d n^3 per rank", A, ctx, &a, &base, false);
        kryl_matrix_destroy(&A);
    }
    if (a.powerlaw > 0) powerlaw(ctx, &a);
    if (a.rgg > 0) rgg(ctx, &a);
    if (a.converge > 0) converge(ctx, &a);
    kryl_context_destroy(&ctx);
    MPI_Finalize();
    return 0;
}
