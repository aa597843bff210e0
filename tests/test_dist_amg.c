/* Algebraic multigrid over ranks (run under mpirun with 1 to 4 ranks):
 * PCG with smoothed and with plain aggregation on 2-D and 3-D Poisson, with
 * the greedy and the parallel coarsening, and GMRES with the defaults on
 * convection-diffusion,
 * the rows split evenly and unevenly (one rank with three rows or none), the
 * small coarse levels agglomerated on rank 0 (the default) or kept over
 * the ranks, the first level in a sorted format's order, converges by the
 * true residual to the single-process solution within 20% more
 * iterations than on one process; every level's rows and entries summed
 * over the ranks are the level's global ones, every coarse matrix is
 * P'AP of the gathered level above (and exactly symmetric for a
 * symmetric matrix); a solve from a good x0 never returns a worse x; every
 * rank queues the same batches of steps, and no more cycles than a batch
 * past the stop; a near-nullspace of the caller's is refused over several
 * ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg/amg.h"
#include "core/objects.h"
#include "dist_support.h"
#include "solvers/solver_impl.h"

static int rank, size;

/* The rows [begin, end) this rank takes of n: even (first < 0), or rank
 * 0 `first` rows and the others the rest evenly. */
static void rows_of(int64_t n, int64_t first, int64_t *begin, int64_t *end)
{
    bool uneven = first >= 0 && size > 1;
    first = uneven ? first : 0;
    int parts = uneven ? size - 1 : size, me = uneven ? rank - 1 : rank;
    if (me < 0) {
        *begin = 0;
        *end = first;
        return;
    }
    *begin = first + (n - first) * me / parts;
    *end = first + (n - first) * (me + 1) / parts;
}

/* dA: this rank's rows of sA (whole on every process), split as rows_of says. */
static kryl_matrix split(kryl_context dctx, kryl_matrix sA, int64_t first)
{
    const kryl_csr *a = &sA->host->csr;
    int64_t begin, end;
    rows_of(a->nrows, first, &begin, &end);
    int64_t nnz = a->row_ptr[end] - a->row_ptr[begin];
    int64_t *row_ptr = malloc((size_t)(end - begin + 1) * sizeof *row_ptr);
    int64_t *cols = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *cols);
    for (int64_t i = begin; i <= end; i++) row_ptr[i - begin] = a->row_ptr[i] - a->row_ptr[begin];
    for (int64_t k = 0; k < nnz; k++) cols[k] = a->col_idx[a->row_ptr[begin] + k];
    kryl_matrix dA = NULL;
    CHECK_OK(kryl_matrix_create_csr(&dA, dctx, a->nrows, a->ncols, begin, end, row_ptr, cols,
                                    a->values + a->row_ptr[begin]));
    free(row_ptr);
    free(cols);
    return dA;
}

/* G (every rank) = the whole matrix whose rows the ranks hold in M (rank order). */
static void gather_all(const kryl_csr *M, kryl_csr *G)
{
    int64_t mine[2] = {M->nrows, kryl_csr_nnz(M)};
    int64_t *all = malloc(2 * (size_t)size * sizeof *all);
    MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, MPI_COMM_WORLD);
    int *rc = malloc(4 * (size_t)size * sizeof *rc), *rd = rc + size, *ec = rc + 2 * size,
        *ed = rc + 3 * size;
    int64_t rows = 0, nnz = 0;
    for (int p = 0; p < size; p++) {
        rc[p] = (int)all[2 * p];
        rd[p] = (int)rows;
        ec[p] = (int)all[2 * p + 1];
        ed[p] = (int)nnz;
        rows += all[2 * p];
        nnz += all[2 * p + 1];
    }
    kryl_csr_alloc(G, rows, M->ncols, nnz);
    int64_t *len = malloc((size_t)(M->nrows + 1) * sizeof *len),
            *lens = malloc((size_t)(rows + 1) * sizeof *lens);
    for (int64_t i = 0; i < M->nrows; i++) len[i] = M->row_ptr[i + 1] - M->row_ptr[i];
    MPI_Allgatherv(len, (int)M->nrows, MPI_INT64_T, lens, rc, rd, MPI_INT64_T, MPI_COMM_WORLD);
    MPI_Allgatherv(M->col_idx, (int)mine[1], MPI_INT32_T, G->col_idx, ec, ed, MPI_INT32_T,
                   MPI_COMM_WORLD);
    MPI_Allgatherv(M->values, (int)mine[1], MPI_DOUBLE, G->values, ec, ed, MPI_DOUBLE,
                   MPI_COMM_WORLD);
    for (int64_t i = 0; i < rows; i++) G->row_ptr[i + 1] = G->row_ptr[i] + lens[i];
    free(all);
    free(rc);
    free(len);
    free(lens);
}

/* Level l + 1's matrix is P' A P of level l's, gathered whole. */
/* This rank's host rows of level l. */
static const kryl_csr *level_rows(const amg_hierarchy *h, int l)
{
    return &amg_level_matrix(&h->levels[l])->host->csr;
}

static void check_galerkin(const amg_hierarchy *h, int l, const char *label)
{
    kryl_csr A, P, Ac, R, AP, RAP;
    gather_all(level_rows(h, l), &A);
    gather_all(&h->levels[l].P->host->csr, &P);
    gather_all(level_rows(h, l + 1), &Ac);
    CHECK_OK(kryl_csr_transpose(&P, &R));
    CHECK_OK(kryl_csr_multiply(&A, &P, &AP, 1));
    CHECK_OK(kryl_csr_multiply(&R, &AP, &RAP, 1));
    int64_t n = Ac.nrows;
    double *dense = calloc((size_t)(n * n + 1), sizeof *dense), worst = 0.0, largest = 0.0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = RAP.row_ptr[i]; k < RAP.row_ptr[i + 1]; k++)
            dense[i * n + RAP.col_idx[k]] += RAP.values[k];
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = Ac.row_ptr[i]; k < Ac.row_ptr[i + 1]; k++)
            dense[i * n + Ac.col_idx[k]] -= Ac.values[k];
    for (int64_t k = 0; k < kryl_csr_nnz(&Ac); k++) largest = fmax(largest, fabs(Ac.values[k]));
    for (int64_t k = 0; k < n * n; k++) worst = fmax(worst, fabs(dense[k]));
    CHECK(worst <= 1e-12 * largest, "%s: level %d is not P'AP of level %d: off by %g of %g", label,
          l + 1, l, worst, largest);
    free(dense);
    kryl_csr *all[] = {&A, &P, &Ac, &R, &AP, &RAP};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kryl_csr_free(all[i]);
}

/* The cycles a solve runs: the preconditioner's applies, counted. */
static int64_t applies;
static kryl_status (*uncounted_apply)(kryl_precond *pc, kryl_vector r, kryl_vector z);

static kryl_status counted_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    applies++;
    return uncounted_apply(pc, r, z);
}

/* Every rank of a distributed solve took the same batches; no solve ran
 * more cycles than the start's, one an iteration and those of a batch's
 * steps past the stop. */
static void check_batches(kryl_solver s, const kryl_result *r, bool distributed, const char *label)
{
    int64_t interval[2] = {s->batch_interval, -s->batch_interval};
    if (distributed) MPI_Allreduce(MPI_IN_PLACE, interval, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    CHECK(interval[0] == -interval[1], "%s: batches of %lld to %lld steps on the ranks", label,
          (long long)-interval[1], (long long)interval[0]);
    CHECK(applies <= r->iterations + s->batch_interval,
          "%s: %lld cycles for %lld iterations in batches of %lld", label, (long long)applies,
          (long long)r->iterations, (long long)s->batch_interval);
}

/* Solve A x = b from x (global on every rank: set, then the solution), its result. */
static kryl_result solve(kryl_matrix A, const kryl_solver_options *o, const double *b, double *x,
                         const char *label, bool check_levels, bool spread)
{
    kryl_solver s = NULL;
    kryl_vector vb = NULL, vx = NULL;
    kryl_result r;
    memset(&r, 0, sizeof r);
    int64_t n = 0;
    kryl_matrix_size(A, &n, NULL, NULL);
    kryl_status st = kryl_solver_create(&s, A, o);
    CHECK(st == KRYL_SUCCESS, "%s: setup: %s", label, kryl_last_error());
    if (st != KRYL_SUCCESS) return r;
    CHECK_OK(kryl_vector_create(&vb, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&vx, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set_global(vb, A, b));
    CHECK_OK(kryl_vector_set_global(vx, A, x));
    uncounted_apply = s->pc->apply;
    s->pc->apply = counted_apply;
    applies = 0;
    CHECK_OK(kryl_solver_solve(s, vb, vx, &r));
    check_batches(s, &r, A->ctx->dist != NULL, label);
    CHECK_OK(kryl_vector_get_global(vx, A, x));
    if (A->ctx->dist) MPI_Bcast(x, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (check_levels) {
        /* every level's rows and entries over the ranks are the global ones */
        const amg_hierarchy *h = s->pc->data;
        for (int l = 0; l < h->nlevels; l++) {
            int64_t mine[2] = {level_rows(h, l)->nrows, kryl_csr_nnz(level_rows(h, l))}, all[2];
            MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            CHECK(all[0] == h->info.rows[l] && all[1] == h->info.nnz[l],
                  "%s: level %d holds %lld rows and %lld entries over the ranks, the hierarchy "
                  "says %lld and %lld",
                  label, l, (long long)all[0], (long long)all[1], (long long)h->info.rows[l],
                  (long long)h->info.nnz[l]);
            if (l + 1 < h->nlevels && o->format == KRYL_FORMAT_CSR) check_galerkin(h, l, label);
            /* agglomerated: the coarse levels on rank 0 alone */
            if (l > 0 && !spread && rank > 0)
                CHECK(level_rows(h, l)->nrows == 0, "%s: rank %d holds %lld rows of level %d",
                      label, rank, (long long)level_rows(h, l)->nrows, l);
            if (l > 0 && h->levels[0].symmetric)
                CHECK(kryl_host_matrix_is_symmetric(h->levels[l].Ab->host, 0.0),
                      "%s: coarse level %d is not exactly symmetric", label, l);
        }
        CHECK(h->nlevels >= 2, "%s: only %d level", label, h->nlevels);
    }
    kryl_vector_destroy(&vb);
    kryl_vector_destroy(&vx);
    kryl_solver_destroy(&s);
    return r;
}

/* One hierarchy's options (the others the defaults). */
typedef struct amg_case {
    kryl_generator_kind kind;
    int64_t n;
    kryl_amg_aggregation aggregation;
    kryl_amg_smoother smoother;
    kryl_format format; /* SELL sorts the rows: level 0's transfers follow */
    int64_t first;      /* rank 0's rows (the others share the rest), or -1: an even split */
    bool spread;        /* coarse levels kept over the ranks (else the small ones go to rank 0) */
    kryl_method method;
    kryl_amg_coarsening coarsening;
} amg_case;

static void check_case(kryl_context dctx, kryl_context sctx, const amg_case *c, const char *backend)
{
    kryl_generator_kind kind = c->kind;
    int64_t n = c->n;
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, n);
    int64_t rows = 0, estimate;
    kryl_generator_size(&g, &rows, &estimate);
    kryl_matrix sA = NULL;
    CHECK_OK(kryl_matrix_generate(&sA, sctx, &g, 0, rows));
    kryl_matrix dA = split(dctx, sA, c->first);
    char label[160];
    char split_name[48] = "even";
    if (c->first >= 0)
        snprintf(split_name, sizeof split_name, "rank 0 %lld rows", (long long)c->first);
    snprintf(label, sizeof label, "%s %s n=%lld %s %s %s %s, %s%s, %d ranks", backend,
             kryl_generator_name(kind), (long long)n, kryl_amg_aggregation_name(c->aggregation),
             kryl_amg_coarsening_name(c->coarsening), kryl_amg_smoother_name(c->smoother),
             kryl_format_name(c->format), split_name, c->spread ? ", spread" : "", size);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = c->method;
    o.precond = KRYL_PRECOND_AMG;
    o.amg.aggregation = c->aggregation;
    o.amg.coarsening = c->coarsening; /* the one-process hierarchy's, on every backend */
    o.amg.smoother = c->smoother;
    o.format = c->format;
    o.amg.coarse_size = 64;
    o.rtol = 1e-8;
    double *b = test_dist_rhs(rows);
    double *xd = calloc((size_t)rows, sizeof *xd), *xs = calloc((size_t)rows, sizeof *xs);
    /* KRYL_AMG_AGGLOMERATE=0: never to rank 0 */
    if (c->spread) setenv("KRYL_AMG_AGGLOMERATE", "0", 1);
    kryl_result rd = solve(dA, &o, b, xd, label, true, c->spread);
    unsetenv("KRYL_AMG_AGGLOMERATE");
    kryl_result rs = solve(sA, &o, b, xs, label, false, false);
    CHECK(rd.converged && rd.relres <= o.rtol,
          "%s: no convergence over ranks (%s, %lld its, true relres %g)", label,
          kryl_reason_name(rd.reason), (long long)rd.iterations, rd.relres);
    CHECK((double)rd.iterations <= 1.2 * (double)rs.iterations + 1.0,
          "%s: %lld iterations over ranks against %lld on one process", label,
          (long long)rd.iterations, (long long)rs.iterations);
    double diff = test_rel_diff(xd, xs, rows);
    CHECK(diff <= 1e-6, "%s: solutions differ by %g", label, diff);
    if (rank == 0)
        printf("%s: %lld iterations (one process %lld), relres %.2e\n", label,
               (long long)rd.iterations, (long long)rs.iterations, rd.relres);
    /* from a good x0 (the solution to 1e-8), three iterations never give a worse x */
    o.rtol = 1e-30;
    o.max_iterations = 3;
    kryl_result again = solve(dA, &o, b, xd, label, false, false);
    CHECK(again.relres <= rd.relres * (1.0 + 1e-12),
          "%s: from x0 with relres %g the solve returned relres %g", label, rd.relres,
          again.relres);
    free(b);
    free(xd);
    free(xs);
    kryl_matrix_destroy(&dA);
    kryl_matrix_destroy(&sA);
}

/* A caller's near-nullspace is refused over several ranks, on every rank. */
static void check_nullspace_refused(kryl_context dctx, kryl_context sctx)
{
    if (size == 1) return;
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_POISSON2D5, 12);
    kryl_matrix sA = NULL;
    CHECK_OK(kryl_matrix_generate(&sA, sctx, &g, 0, 144));
    kryl_matrix dA = split(dctx, sA, -1);
    double ones[144];
    for (int i = 0; i < 144; i++) ones[i] = 1.0;
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_PCG;
    o.precond = KRYL_PRECOND_AMG;
    o.amg.nullspace = ones;
    o.amg.nullspace_vectors = 1;
    kryl_solver s = NULL;
    kryl_status st = kryl_solver_create(&s, dA, &o);
    CHECK(st != KRYL_SUCCESS, "a caller's near-nullspace over %d ranks was taken", size);
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&dA);
    kryl_matrix_destroy(&sA);
}

static void body(kryl_context dctx, kryl_context sctx, const char *backend)
{
    const amg_case cases[] = {
        {KRYL_GEN_POISSON2D5, 48, KRYL_AMG_SMOOTHED, KRYL_AMG_CHEBYSHEV, KRYL_FORMAT_CSR, -1, false,
         KRYL_METHOD_PCG, KRYL_AMG_GREEDY},
        {KRYL_GEN_POISSON2D5, 48, KRYL_AMG_SMOOTHED, KRYL_AMG_CHEBYSHEV, KRYL_FORMAT_CSR, 3, true,
         KRYL_METHOD_PCG, KRYL_AMG_GREEDY},
        {KRYL_GEN_POISSON2D5, 40, KRYL_AMG_SMOOTHED, KRYL_AMG_CHEBYSHEV, KRYL_FORMAT_CSR, 0, false,
         KRYL_METHOD_PCG, KRYL_AMG_GREEDY},
        {KRYL_GEN_POISSON3D7, 14, KRYL_AMG_SMOOTHED, KRYL_AMG_CHEBYSHEV, KRYL_FORMAT_CSR, 3, false,
         KRYL_METHOD_PCG, KRYL_AMG_GREEDY},
        {KRYL_GEN_POISSON3D7, 14, KRYL_AMG_SMOOTHED, KRYL_AMG_CHEBYSHEV, KRYL_FORMAT_CSR, -1, true,
         KRYL_METHOD_PCG, KRYL_AMG_GREEDY},
        {KRYL_GEN_POISSON3D7, 14, KRYL_AMG_PLAIN, KRYL_AMG_JACOBI, KRYL_FORMAT_CSR, -1, true,
         KRYL_METHOD_PCG, KRYL_AMG_GREEDY},
        {KRYL_GEN_POISSON3D7, 12, KRYL_AMG_SMOOTHED, KRYL_AMG_MCGS, KRYL_FORMAT_SELL, 3, false,
         KRYL_METHOD_PCG, KRYL_AMG_GREEDY},
        /* ILU(0) of each rank's rows: IC(0) under CG, ILU(0) under GMRES (the default there) */
        {KRYL_GEN_POISSON3D7, 14, KRYL_AMG_SMOOTHED, KRYL_AMG_ILU0, KRYL_FORMAT_CSR, -1, false,
         KRYL_METHOD_PCG, KRYL_AMG_GREEDY},
        {KRYL_GEN_CONVDIFF2D, 48, KRYL_AMG_AUTO_AGGREGATION, KRYL_AMG_AUTO_SMOOTHER,
         KRYL_FORMAT_CSR, -1, false, KRYL_METHOD_GMRES, KRYL_AMG_GREEDY},
        /* the parallel coarsening: the backend's operation on each rank's diagonal block,
         * and the host's code where level 0 is stored sorted (SELL) */
        {KRYL_GEN_POISSON3D7, 14, KRYL_AMG_SMOOTHED, KRYL_AMG_CHEBYSHEV, KRYL_FORMAT_CSR, 3, false,
         KRYL_METHOD_PCG, KRYL_AMG_PARALLEL},
        {KRYL_GEN_POISSON2D5, 48, KRYL_AMG_SMOOTHED, KRYL_AMG_CHEBYSHEV, KRYL_FORMAT_SELL, -1, true,
         KRYL_METHOD_PCG, KRYL_AMG_PARALLEL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        check_case(dctx, sctx, &cases[c], backend);
    check_nullspace_refused(dctx, sctx);
}

int main(int argc, char **argv)
{
    return test_dist_run(&argc, &argv, "test_dist_amg", 0, &rank, &size, body);
}
