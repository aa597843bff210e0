/* Block Jacobi preconditioner: one block is IC(0) / ILU(0) itself, one row
 * per block is Jacobi, and the block counts between converge (by the true
 * residual) in a number of iterations between the two, with contiguous and
 * METIS blocks; on generated and real matrices, with a reordering, with the
 * shifted IC(0) fallback, and with bad block counts and partitions refused.
 * The METIS blocks drop fewer entries than contiguous ones (read from the
 * log line that reports the partition). */
#include "order/order.h"
#include "precond/precond.h"
#include "test_krylov_support.h"

/* The partitions this build offers: contiguous, and metis with METIS. */
static int partitions(kryl_partition_kind *kinds)
{
    kinds[0] = KRYL_PARTITION_CONTIGUOUS;
    kinds[1] = KRYL_PARTITION_METIS;
    return kryl_order_have_metis() ? 2 : 1;
}

/* Iterations of method + precond (blocks and partition for bjacobi, order)
 * on A x = b, checked to converge; -1 when the backend refuses (see
 * kt_supported). */
static int64_t iterations(kryl_matrix A, const double *b, kryl_method method,
                          kryl_precond_kind kind, int blocks, kryl_partition_kind partition,
                          kryl_order_kind order, const char *what)
{
    char label[160];
    snprintf(label, sizeof label, "%s + %s(blocks %d, %s) on %s (%s)", kryl_method_name(method),
             kryl_precond_name(kind), blocks, kryl_partition_name(partition), what,
             kryl_backend_name(kryl_context_backend(A->ctx)));
    kryl_solver_options o;
    kt_options(&o, method, kind, 1e-8, 5000);
    o.blocks = blocks;
    o.partition = partition;
    o.order = order;
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    if (!kt_supported(A->ctx, &s, label)) return -1;
    kt_check_converged(&s, label);
    return s.r.iterations;
}

/* bjacobi(1 block) = factor, factor <= bjacobi(k blocks) <= Jacobi + 2
 * for k = 2, 7, default, and bjacobi(n blocks) = bjacobi(n + 10 blocks) =
 * Jacobi within 1, for the given partition. */
static void check_blocks_partition(kryl_matrix A, kryl_method method, kryl_precond_kind factor,
                                   kryl_partition_kind partition, const char *what)
{
    double *b = kt_rhs(A, 11);
    int64_t n = kt_rows(A);
    const kryl_partition_kind p = partition;
    const kryl_order_kind none = KRYL_ORDER_NONE;
    int64_t it_factor = iterations(A, b, method, factor, 0, p, none, what);
    int64_t it_jacobi = iterations(A, b, method, KRYL_PRECOND_JACOBI, 0, p, none, what);
    int64_t it_one = iterations(A, b, method, KRYL_PRECOND_BJACOBI, 1, p, none, what);
    if (it_one >= 0) {
        printf("%-12s %-8s %-10s %s: %lld, jacobi %lld, bjacobi(1) %lld", what,
               kryl_method_name(method), kryl_partition_name(p), kryl_precond_name(factor),
               (long long)it_factor, (long long)it_jacobi, (long long)it_one);
        CHECK(it_one == it_factor, "%s: bjacobi with 1 block took %lld iterations, %s %lld", what,
              (long long)it_one, kryl_precond_name(factor), (long long)it_factor);
        const int counts[] = {2, 7, 0};
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            int64_t it = iterations(A, b, method, KRYL_PRECOND_BJACOBI, counts[k], p, none, what);
            printf(", bjacobi(%d) %lld", counts[k], (long long)it);
            CHECK(it_one <= it && it <= it_jacobi + 2,
                  "%s: bjacobi with %d blocks took %lld iterations, expected %lld..%lld", what,
                  counts[k], (long long)it, (long long)it_one, (long long)(it_jacobi + 2));
        }
        const int beyond[] = {(int)n, (int)n + 10};
        for (size_t k = 0; k < 2; k++) {
            int64_t it_n = iterations(A, b, method, KRYL_PRECOND_BJACOBI, beyond[k], p, none, what);
            printf(", bjacobi(%d >= n) %lld", beyond[k], (long long)it_n);
            CHECK(llabs(it_n - it_jacobi) <= 1,
                  "%s: bjacobi with %d blocks >= n (1x1 blocks) took %lld iterations, Jacobi "
                  "%lld",
                  what, beyond[k], (long long)it_n, (long long)it_jacobi);
        }
        printf("\n");
    }
    free(b);
}

/* check_blocks_partition for every partition of this build. */
static void check_blocks(kryl_matrix A, kryl_method method, kryl_precond_kind factor,
                         const char *what)
{
    kryl_partition_kind kinds[2];
    int np = partitions(kinds);
    for (int k = 0; k < np; k++) check_blocks_partition(A, method, factor, kinds[k], what);
}

/* The blocks are taken in the reordered matrix's rows: still converges. */
static void check_reordered(kryl_matrix A, kryl_method method, const char *what)
{
    double *b = kt_rhs(A, 3);
    kryl_partition_kind kinds[2];
    int np = partitions(kinds);
    for (int k = 0; k < np; k++)
        iterations(A, b, method, KRYL_PRECOND_BJACOBI, 7, kinds[k], KRYL_ORDER_RCM, what);
    free(b);
}

/* options.block_factor: ILUT blocks with GMRES meet the true residual, one
 * ILUT block is ILUT itself, a kind that is no factorization is refused. */
static void check_block_factor(kryl_matrix A, const char *what)
{
    double *b = kt_rhs(A, 5);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_ILUT, 1e-8, 2000);
    kt_solve ilut = kt_run(A, &o, b, NULL, NULL);
    o.precond = KRYL_PRECOND_BJACOBI;
    o.block_factor = KRYL_PRECOND_ILUT;
    o.blocks = 1;
    kt_solve one = kt_run(A, &o, b, NULL, NULL);
    o.blocks = 7;
    kt_solve seven = kt_run(A, &o, b, NULL, NULL);
    if (kt_supported(A->ctx, &ilut, what) && kt_supported(A->ctx, &seven, what)) {
        kt_check_converged(&seven, what);
        CHECK(one.r.iterations == ilut.r.iterations,
              "%s: bjacobi with 1 ilut block took %lld iterations, ilut %lld", what,
              (long long)one.r.iterations, (long long)ilut.r.iterations);
        printf("%-12s gmres ilut %lld, bjacobi(1, ilut) %lld, bjacobi(7, ilut) %lld\n", what,
               (long long)ilut.r.iterations, (long long)one.r.iterations,
               (long long)seven.r.iterations);
    }
    o.block_factor = KRYL_PRECOND_JACOBI;
    kryl_solver s = NULL;
    CHECK(kryl_solver_create(&s, A, &o) == KRYL_ERR_INVALID_ARGUMENT &&
              strstr(kryl_last_error(), "ilut") != NULL,
          "%s: block factorization jacobi: %s", what, kryl_last_error());
    free(b);
}

static void test_backend(kryl_backend_kind kind)
{
    kryl_context ctx = kt_context(kind);
    kryl_matrix P2 = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    kryl_matrix P3 = kt_generate(ctx, KRYL_GEN_POISSON3D7, 12);
    kryl_matrix C = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 40);
    check_blocks(P2, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, "poisson2d");
    check_blocks(P3, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, "poisson3d");
    check_blocks(C, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, "convdiff2d");
    check_block_factor(C, "convdiff2d");
    check_reordered(P2, KRYL_METHOD_PCG, "poisson2d, rcm");
    check_reordered(C, KRYL_METHOD_BICGSTAB, "convdiff2d, rcm");
    kryl_matrix_destroy(&P2);
    kryl_matrix_destroy(&P3);
    kryl_matrix_destroy(&C);
    const char *real[] = {"nos4.mtx", "494_bus.mtx"};
    for (size_t k = 0; k < sizeof real / sizeof real[0]; k++) {
        kryl_matrix A = kt_read(ctx, real[k]);
        if (A == NULL) continue;
        check_blocks(A, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, real[k]);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* Counts the warnings that mention a shifted IC(0). */
static void count_shift_warnings(kryl_log_level level, const char *message, void *user)
{
    if (level == KRYL_LOG_WARNING && strstr(message, "shifted IC(0)") != NULL) ++*(int *)user;
}

/* bcsstk06 has no IC(0), nor have its 7 contiguous blocks: every block is
 * factored shifted, with a warning. */
static void test_shift_fallback(void)
{
    int warnings = 0;
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = KRYL_BACKEND_REF;
    co.log = count_shift_warnings;
    co.log_user = &warnings;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &co));
    kryl_matrix A = kt_read(ctx, "bcsstk06.mtx");
    if (A != NULL) {
        double *b = kt_rhs(A, 5);
        int64_t it = iterations(A, b, KRYL_METHOD_PCG, KRYL_PRECOND_BJACOBI, 7,
                                KRYL_PARTITION_CONTIGUOUS, KRYL_ORDER_NONE, "bcsstk06");
        printf("bcsstk06     pcg      contiguous bjacobi(7), shifted IC(0): %lld\n", (long long)it);
        CHECK(warnings == 1, "bcsstk06: %d warnings about the shifted IC(0), expected 1", warnings);
        free(b);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* What the bjacobi log line reports. */
typedef struct drop_log {
    char partition[32];
    long long blocks, smallest, largest, dropped, nnz;
    int lines;
} drop_log;

/* Parses "bjacobi: P partition, B blocks of S to L rows; D of N entries ...". */
static void read_drop_line(kryl_log_level level, const char *message, void *user)
{
    drop_log *d = user, line;
    if (level != KRYL_LOG_INFO) return;
    if (sscanf(message, "bjacobi: %31s partition, %lld blocks of %lld to %lld rows; %lld of %lld",
               line.partition, &line.blocks, &line.smallest, &line.largest, &line.dropped,
               &line.nnz) != 6)
        return;
    line.lines = d->lines + 1;
    *d = line;
}

/* PCG (2-D Poisson) and GMRES (convection-diffusion) with 64 blocks of each
 * partition on ref: both converge by the true residual, the log names the
 * partition and its blocks (none empty), and METIS drops fewer entries;
 * auto is metis when the build has METIS, contiguous otherwise. */
static void test_dropped(void)
{
    drop_log d;
    kryl_context ctx = kt_context_logging(KRYL_BACKEND_REF, 0, false, read_drop_line, &d);
    const struct {
        kryl_generator_kind kind;
        kryl_method method;
    } problems[] = {{KRYL_GEN_POISSON2D5, KRYL_METHOD_PCG},
                    {KRYL_GEN_CONVDIFF2D, KRYL_METHOD_GMRES}};
    for (size_t q = 0; q < 2; q++) {
        kryl_matrix A = kt_generate(ctx, problems[q].kind, 64);
        const char *what = kryl_generator_name(problems[q].kind);
        double *b = kt_rhs(A, 5);
        kryl_partition_kind kinds[3] = {KRYL_PARTITION_CONTIGUOUS, KRYL_PARTITION_AUTO,
                                        KRYL_PARTITION_METIS};
        int np = kryl_order_have_metis() ? 3 : 2;
        long long dropped[3] = {0, 0, 0};
        for (int k = 0; k < np; k++) {
            memset(&d, 0, sizeof d);
            int64_t it = iterations(A, b, problems[q].method, KRYL_PRECOND_BJACOBI, 64, kinds[k],
                                    KRYL_ORDER_NONE, what);
            const bool metis = kinds[k] == KRYL_PARTITION_METIS ||
                               (kinds[k] == KRYL_PARTITION_AUTO && kryl_order_have_metis());
            const char *expected = metis ? "metis" : "contiguous";
            CHECK(d.lines == 1 && strcmp(d.partition, expected) == 0 && d.blocks == 64 &&
                      d.smallest >= 1 && d.nnz > 0,
                  "%s, partition %s: %d log lines, partition '%s', %lld blocks of %lld..%lld "
                  "rows",
                  what, kryl_partition_name(kinds[k]), d.lines, d.partition, d.blocks, d.smallest,
                  d.largest);
            dropped[k] = d.dropped;
            printf("%-12s %-8s 64 %-10s blocks of %lld..%lld rows: %lld iterations, %lld of %lld "
                   "entries dropped\n",
                   what, kryl_method_name(problems[q].method), kryl_partition_name(kinds[k]),
                   d.smallest, d.largest, (long long)it, d.dropped, d.nnz);
        }
        if (np == 3) {
            CHECK(dropped[2] < dropped[0], "%s: metis dropped %lld entries, contiguous %lld", what,
                  dropped[2], dropped[0]);
            CHECK(dropped[1] == dropped[2], "%s: auto dropped %lld entries, metis %lld", what,
                  dropped[1], dropped[2]);
        } else {
            CHECK(dropped[1] == dropped[0], "%s: auto dropped %lld entries, contiguous %lld", what,
                  dropped[1], dropped[0]);
        }
        free(b);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* A negative block count is refused naming the option. */
static void test_refusal(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 10);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_BJACOBI, 1e-8, 100);
    o.blocks = -3;
    kryl_solver s = NULL;
    kryl_status st = kryl_solver_create(&s, A, &o);
    CHECK(st == KRYL_ERR_INVALID_ARGUMENT && strstr(kryl_last_error(), "blocks") != NULL,
          "blocks -3: expected invalid_argument naming blocks, got %s: %s", kryl_strerror(st),
          kryl_last_error());
    kryl_solver_destroy(&s);
    /* an unknown partition is refused naming the option */
    o.blocks = 4;
    o.partition = (kryl_partition_kind)7;
    st = kryl_solver_create(&s, A, &o);
    CHECK(st == KRYL_ERR_INVALID_ARGUMENT && strstr(kryl_last_error(), "partition") != NULL,
          "partition 7: expected invalid_argument naming partition, got %s: %s", kryl_strerror(st),
          kryl_last_error());
    kryl_solver_destroy(&s);
    /* metis without METIS is refused saying what is missing */
    o.partition = KRYL_PARTITION_METIS;
    st = kryl_solver_create(&s, A, &o);
    if (kryl_order_have_metis())
        CHECK(st == KRYL_SUCCESS, "partition metis: %s", kryl_last_error());
    else
        CHECK(st == KRYL_ERR_UNSUPPORTED && strstr(kryl_last_error(), "METIS") != NULL &&
                  strstr(kryl_last_error(), "contiguous") != NULL,
              "partition metis without METIS: expected unsupported naming METIS and the "
              "contiguous partition, got %s: %s",
              kryl_strerror(st), kryl_last_error());
    kryl_solver_destroy(&s);
    CHECK(strcmp(kryl_partition_name(KRYL_PARTITION_METIS), "metis") == 0,
          "kryl_partition_name(metis) = %s", kryl_partition_name(KRYL_PARTITION_METIS));
    kryl_partition_kind parsed = KRYL_PARTITION_AUTO;
    CHECK_OK(kryl_partition_from_name("contiguous", &parsed));
    CHECK(parsed == KRYL_PARTITION_CONTIGUOUS, "contiguous parsed as %d", (int)parsed);
    CHECK_STATUS(kryl_partition_from_name("scotch", &parsed), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "auto|contiguous|metis") != NULL,
          "the refusal of 'scotch' lists the names: %s", kryl_last_error());
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) test_backend(kinds[k]);
    test_shift_fallback();
    test_dropped();
    test_refusal();
    return test_summary("test_precond_bjacobi");
}
