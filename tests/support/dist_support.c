/* Support for the distributed tests: MPI start and finish, and the check
 * of a distributed solve against the single-process one. */
#ifdef KRYL_HAVE_MPI
#include "dist_support.h"

#include <stdlib.h>

static int dist_rank;

int test_dist_init(int *argc, char ***argv, int *size)
{
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &dist_rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return dist_rank;
}

int test_dist_finish(const char *name)
{
    int failures = 0, checks = 0;
    MPI_Allreduce(&test_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&test_checks, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (dist_rank == 0)
        printf("%s on %d ranks: %d passed, %d failed\n", name, size, checks - failures, failures);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}

kryl_context test_dist_context(kryl_backend_kind kind)
{
    kryl_context_options o;
    kryl_context_options_init(&o);
    o.backend = kind;
    o.threads = kind == KRYL_BACKEND_OMP ? 2 : 0;
    kryl_context ctx = NULL;
    kryl_status st = kryl_context_create_mpi(&ctx, &o, MPI_COMM_WORLD);
    if (st != KRYL_SUCCESS) {
        fprintf(stderr, "rank %d: cannot create a %s context: %s\n", dist_rank,
                kryl_backend_name(kind), kryl_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return ctx;
}

void test_dist_each_backend(test_dist_body body)
{
    const kryl_backend_kind kinds[] = {KRYL_BACKEND_REF, KRYL_BACKEND_OMP, KRYL_BACKEND_CUDA};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (!kryl_backend_available(kinds[k])) continue;
        kryl_context dctx = test_dist_context(kinds[k]);
        kryl_context sctx = test_context(kinds[k]);
        body(dctx, sctx, kryl_backend_name(kinds[k]));
        kryl_context_destroy(&sctx);
        kryl_context_destroy(&dctx);
    }
}

int test_dist_run(int *argc, char ***argv, const char *name, int max_ranks, int *rank, int *size,
                  test_dist_body body)
{
    int ranks = 1;
    int me = test_dist_init(argc, argv, &ranks);
    if (rank) *rank = me;
    if (size) *size = ranks;
    if (max_ranks > 0 && test_dist_too_many_ranks(name, max_ranks)) return TEST_SKIP_CODE;
    test_dist_each_backend(body);
    return test_dist_finish(name);
}

kryl_matrix test_dist_distribute(kryl_context dctx, kryl_matrix sA, kryl_partition_kind part)
{
    CHECK_OK(kryl_context_set_partition(dctx, part));
    kryl_matrix dA = NULL;
    kryl_status st = kryl_matrix_distribute(&dA, dctx, sA);
    if (st == KRYL_ERR_UNSUPPORTED) return NULL; /* a build without METIS */
    CHECK(st == KRYL_SUCCESS, "distribute (%s): %s", kryl_partition_name(part), kryl_last_error());
    return dA;
}

double *test_dist_rhs(int64_t n)
{
    double *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    /* b_i = 1 + (i mod 7) / 7 */
    for (int64_t i = 0; b && i < n; i++) b[i] = 1.0 + (double)(i % 7) / 7.0;
    return b;
}

/* Solve A x = b with x0 = 0; x_out gets the solution (global on rank 0
 * for a distributed A). */
static kryl_status solve(kryl_matrix A, const kryl_solver_options *opt, const double *b,
                         double *x_out, kryl_result *res)
{
    kryl_solver s = NULL;
    kryl_vector vb = NULL, vx = NULL;
    kryl_status st = kryl_solver_create(&s, A, opt);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&vb, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&vx, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_set_global(vb, A, b);
    if (st == KRYL_SUCCESS) st = kryl_solver_solve(s, vb, vx, res);
    if (st == KRYL_SUCCESS) st = kryl_vector_get_global(vx, A, x_out);
    kryl_vector_destroy(&vb);
    kryl_vector_destroy(&vx);
    kryl_solver_destroy(&s);
    return st;
}

int64_t test_dist_compare(kryl_matrix dA, kryl_matrix sA, const kryl_solver_options *opt,
                          double tol, const char *label)
{
    int64_t n = 0;
    kryl_matrix_size(sA, &n, NULL, NULL);
    double *b = test_dist_rhs(n);
    double *xd = calloc((size_t)n + 1, sizeof *xd), *xs = calloc((size_t)n + 1, sizeof *xs);
    kryl_result rd, rs;
    kryl_status std = solve(dA, opt, b, xd, &rd);
    CHECK(std == KRYL_SUCCESS, "%s: distributed solve: %s", label, kryl_last_error());
    kryl_status sts = solve(sA, opt, b, xs, &rs);
    CHECK(sts == KRYL_SUCCESS, "%s: serial solve: %s", label, kryl_last_error());
    if (std == KRYL_SUCCESS && sts == KRYL_SUCCESS) {
        CHECK(rd.converged, "%s: distributed solve did not converge (%s, %lld its, relres %g)",
              label, kryl_reason_name(rd.reason), (long long)rd.iterations, rd.relres);
        if (dist_rank == 0) {
            double diff = test_rel_diff(xd, xs, n);
            CHECK(diff <= tol, "%s: distributed and serial solutions differ by %g (> %g)", label,
                  diff, tol);
        }
    }
    free(b);
    free(xd);
    free(xs);
    return std == KRYL_SUCCESS ? rd.iterations : -1;
}

int64_t test_dist_compare_modes(kryl_context dctx, kryl_matrix dA, kryl_matrix sA,
                                const kryl_solver_options *opt, double tol, const char *label)
{
    char what[256];
    int64_t its[3] = {0, 0, 0};
    for (int mode = KRYL_OVERLAP_VECTOR; mode <= KRYL_OVERLAP_TASK; mode++) {
        CHECK_OK(kryl_context_set_overlap(dctx, (kryl_overlap)mode));
        snprintf(what, sizeof what, "%s, overlap %s", label, kryl_overlap_name((kryl_overlap)mode));
        its[mode] = test_dist_compare(dA, sA, opt, tol, what);
    }
    CHECK(its[0] == its[1] && its[1] == its[2],
          "%s: iterations differ between modes: %lld %lld %lld", label, (long long)its[0],
          (long long)its[1], (long long)its[2]);
    CHECK_OK(kryl_context_set_overlap(dctx, KRYL_OVERLAP_NAIVE));
    return its[KRYL_OVERLAP_NAIVE];
}

bool test_dist_too_many_ranks(const char *name, int max_ranks)
{
    int size = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size <= max_ranks) return false;
    if (rank == 0) printf("%s: written for at most %d ranks, skipped\n", name, max_ranks);
    MPI_Finalize();
    return true;
}
#else
typedef int dist_support_empty; /* ISO C: a translation unit is never empty */
#endif
