/* Memory stays bounded on hostile input: a size line announcing more than
 * the memory limit is refused before anything is allocated, naming the
 * file, the line and the bytes; a file without line ends (/dev/zero) ends
 * with an error after one bounded buffer; a FIFO that streams entries
 * forever ends at the count its size line gave; a generated matrix larger
 * than the limit is refused with its size, and so is a whole solve whose
 * estimate does not fit; the limit comes from
 * kryl_set_max_memory, KRYL_MAX_MEMORY or the memory available. */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test_mtx_util.h"

#include "io/mtx.h"

static void test_parse_bytes(void)
{
    int64_t b = 0;
    CHECK(kryl_parse_bytes("123", &b) == KRYL_SUCCESS && b == 123, "123 -> %lld", (long long)b);
    CHECK(kryl_parse_bytes("64k", &b) == KRYL_SUCCESS && b == 65536, "64k -> %lld", (long long)b);
    CHECK(kryl_parse_bytes("1.5G", &b) == KRYL_SUCCESS && b == 1610612736, "1.5G -> %lld",
          (long long)b);
    CHECK(kryl_parse_bytes("8GiB", &b) == KRYL_SUCCESS && b == 8LL << 30, "8GiB");
    CHECK(kryl_parse_bytes("2TB", &b) == KRYL_SUCCESS && b == 2LL << 40, "2TB");
    CHECK_STATUS(kryl_parse_bytes("12x", &b), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_parse_bytes("-1G", &b), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_parse_bytes("", &b), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_parse_bytes("99999999T", &b), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_set_max_memory(-2), KRYL_ERR_INVALID_ARGUMENT);
}

/* A 77-byte file whose size line announces 2^31 - 1 rows (34 GB of CSR). */
static void test_huge_size_line(void)
{
    char path[512];
    scratch_path(path, sizeof path, "huge.mtx");
    CHECK(write_text(path, "%%MatrixMarket matrix coordinate real general\n"
                           "2147483647 2147483647 1\n1 1 1\n"),
          "write");
    kryl_coo coo;
    CHECK_OK(kryl_set_max_memory(1LL << 30));
    CHECK_STATUS(kryl_mtx_read(path, NULL, &coo), KRYL_ERR_OUT_OF_MEMORY);
    const char *e = kryl_last_error();
    CHECK(strstr(e, "huge.mtx:2: the size line's 2147483647 x 2147483647 matrix") != NULL &&
              strstr(e, "needs 34.4 GB") != NULL && strstr(e, "(34359738396 bytes)") != NULL &&
              strstr(e, "--max-memory") != NULL,
          "%s", e);
    /* the environment variable, when no limit is set by the call */
    CHECK_OK(kryl_set_max_memory(0));
    setenv("KRYL_MAX_MEMORY", "2G", 1);
    CHECK_STATUS(kryl_mtx_read(path, NULL, &coo), KRYL_ERR_OUT_OF_MEMORY);
    CHECK(strstr(kryl_last_error(), "2.15 GB of KRYL_MAX_MEMORY") != NULL, "%s", kryl_last_error());
    unsetenv("KRYL_MAX_MEMORY");
    /* a matrix within the limit reads */
    CHECK_OK(kryl_set_max_memory(1LL << 20));
    CHECK(write_text(path, "%%MatrixMarket matrix coordinate real general\n1000 1000 1\n1 1 1\n"),
          "write");
    CHECK_OK(kryl_mtx_read(path, NULL, &coo));
    kryl_coo_free(&coo);
    CHECK_OK(kryl_set_max_memory(0));
}

static void test_dev_zero(void)
{
    struct stat st;
    if (stat("/dev/zero", &st) != 0) return;
    kryl_coo coo;
    CHECK_STATUS(kryl_mtx_read("/dev/zero", NULL, &coo), KRYL_ERR_PARSE);
    CHECK(strstr(kryl_last_error(), "/dev/zero: expected lines of at most 64 MiB") != NULL, "%s",
          kryl_last_error());
}

/* A child writes `header` and then `entry` forever into a FIFO; the read
 * must end with `status` and a message holding `expect`. */
static void check_fifo(const char *header, const char *entry, kryl_status status,
                       const char *expect)
{
    char path[512];
    scratch_path(path, sizeof path, "stream.mtx");
    remove(path);
    if (mkfifo(path, 0600) != 0) return;
    pid_t child = fork();
    if (child == 0) {
        signal(SIGPIPE, SIG_IGN);
        FILE *f = fopen(path, "w");
        if (f == NULL) _exit(1);
        fputs(header, f);
        while (fputs(entry, f) >= 0) continue;
        _exit(0);
    }
    kryl_coo coo;
    CHECK_STATUS(kryl_mtx_read(path, NULL, &coo), status);
    CHECK(strstr(kryl_last_error(), expect) != NULL, "%s", kryl_last_error());
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    remove(path);
}

static void test_fifo(void)
{
    check_fifo("%%MatrixMarket matrix coordinate real general\n10 10 5\n", "1 1 1\n",
               KRYL_ERR_PARSE, "stream.mtx:8: expected 5 entries as the size line (line 2) says");
    CHECK_OK(kryl_set_max_memory(1LL << 30));
    check_fifo("%%MatrixMarket matrix coordinate real general\n1000000 1000000 1000000000000\n",
               "1 1 1\n", KRYL_ERR_OUT_OF_MEMORY, "stream.mtx:2: the size line's");
    check_fifo("%%MatrixMarket matrix coordinate real general\n", "%% a comment without end ",
               KRYL_ERR_PARSE, "expected lines of at most 64 MiB");
    CHECK_OK(kryl_set_max_memory(0));
}

static void test_generated(void)
{
    kryl_context ctx = test_context(KRYL_BACKEND_REF);
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_POISSON3D7, 1200);
    kryl_matrix A = NULL;
    CHECK_OK(kryl_set_max_memory(1LL << 30));
    CHECK_STATUS(kryl_matrix_generate(&A, ctx, &g, 0, 1728000000), KRYL_ERR_OUT_OF_MEMORY);
    CHECK(strstr(kryl_last_error(), "poisson3d with 1728000000 rows") != NULL &&
              strstr(kryl_last_error(), "GB of host memory") != NULL,
          "%s", kryl_last_error());
    CHECK(A == NULL, "no matrix on failure");
    kryl_generator_options_init(&g, KRYL_GEN_POISSON3D7, 10);
    CHECK_OK(kryl_matrix_generate(&A, ctx, &g, 0, 1000));
    kryl_matrix_destroy(&A);
    CHECK_OK(kryl_set_max_memory(0));
    kryl_context_destroy(&ctx);
}

/* A whole solve estimated from the size alone, and refused with its parts
 * before anything is allocated. */
static void test_solve_estimate(void)
{
    kryl_context ctx = test_context(KRYL_BACKEND_REF);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_GMRES;
    o.restart = 30;
    o.precond = KRYL_PRECOND_ILU0;
    o.format = KRYL_FORMAT_SELL;
    const int64_t n = 1728000000, nnz = 12087360000;
    kryl_memory_estimate e;
    CHECK_OK(kryl_solver_estimate_memory(ctx, n, nnz, &o, &e));
    CHECK(e.device == 0 && e.matrix == 12 * nnz + 8 * (n + 1) && e.format > e.matrix &&
              e.precond == 3 * e.matrix && e.vectors == 8 * n * (8 + 34) &&
              e.host == e.matrix + e.format + e.precond + e.vectors,
          "estimate: host %lld, matrix %lld, format %lld, precond %lld, vectors %lld",
          (long long)e.host, (long long)e.matrix, (long long)e.format, (long long)e.precond,
          (long long)e.vectors);
    CHECK_OK(kryl_set_max_memory(1LL << 30));
    CHECK_STATUS(kryl_solver_check_memory(ctx, n, nnz, &o, "poisson3d", NULL),
                 KRYL_ERR_OUT_OF_MEMORY);
    const char *m = kryl_last_error();
    CHECK(strstr(m, "poisson3d (1728000000 rows") != NULL &&
              strstr(m, "the matrix 159 GB") != NULL && strstr(m, "of host memory") != NULL &&
              strstr(m, "1.07 GB of the limit") != NULL,
          "%s", m);
    CHECK_OK(kryl_solver_check_memory(ctx, 1000, 5000, &o, "small", &e));
    CHECK(e.host > 0 && e.host < (1 << 20), "a small solve: %lld bytes", (long long)e.host);
    CHECK_STATUS(kryl_solver_estimate_memory(ctx, -1, 0, &o, &e), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_OK(kryl_set_max_memory(0));
    kryl_context_destroy(&ctx);
}

int main(void)
{
    scratch_init();
    test_parse_bytes();
    test_huge_size_line();
    test_dev_zero();
    test_fifo();
    test_generated();
    test_solve_estimate();
    scratch_cleanup();
    return test_summary("test_memory_limit");
}
