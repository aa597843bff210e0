/* METIS graph partitioning (kryl_partition_metis): every part id in range,
 * no empty part when nparts <= n, one row per part when nparts >= n,
 * parts balanced by nonzeros, fewer cut entries than contiguous row ranges
 * on grids with many parts, awkward graphs (no edges, empty rows, a dense row, one row,
 * several components), determinism and refusals; without METIS the call
 * is refused saying what is missing. */
#include "test_order_util.h"

/* Stored entries a_ij with part[i] != part[j]: what block Jacobi drops. */
static int64_t cut_entries(const kryl_csr *A, const int32_t *part)
{
    int64_t cut = 0;
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            cut += part[A->col_idx[e]] != part[i];
    return cut;
}

/* nparts contiguous ranges of about n / nparts rows: the baseline. */
static void contiguous(int64_t n, int32_t nparts, int32_t *part)
{
    for (int64_t i = 0; i < n; i++) part[i] = (int32_t)(i * nparts / n);
}

/* part is a valid partition of A into nparts, balanced by row lengths. */
static void check_valid(const kryl_csr *A, int32_t nparts, const int32_t *part, const char *what)
{
    const int64_t n = A->nrows;
    int64_t *rows = calloc((size_t)nparts, sizeof *rows);
    int64_t *weight = calloc((size_t)nparts, sizeof *weight);
    int64_t bad = -1, heaviest_row = 1, total = 0;
    for (int64_t i = 0; i < n; i++) {
        if (part[i] < 0 || part[i] >= nparts) {
            if (bad < 0) bad = i;
            continue;
        }
        const int64_t w =
            A->row_ptr[i + 1] - A->row_ptr[i] > 0 ? A->row_ptr[i + 1] - A->row_ptr[i] : 1;
        rows[part[i]]++;
        weight[part[i]] += w;
        total += w;
        heaviest_row = w > heaviest_row ? w : heaviest_row;
    }
    CHECK(bad < 0, "%s, %d parts: part[%lld] = %d is out of range", what, (int)nparts,
          (long long)bad, bad >= 0 ? part[bad] : 0);
    int64_t empty = 0, heaviest = 0;
    for (int32_t p = 0; p < nparts; p++) {
        empty += rows[p] == 0;
        heaviest = weight[p] > heaviest ? weight[p] : heaviest;
    }
    const int64_t expected_empty = nparts > n ? nparts - n : 0;
    CHECK(empty == expected_empty, "%s, %d parts of %lld rows: %lld empty parts, expected %lld",
          what, (int)nparts, (long long)n, (long long)empty, (long long)expected_empty);
    /* METIS allows 3% imbalance; moving rows into empty parts adds a row */
    const double limit = 1.1 * (double)total / (double)nparts + 2.0 * (double)heaviest_row;
    CHECK((double)heaviest <= limit,
          "%s, %d parts: the heaviest part holds %lld entries, more than %.0f (total %lld)", what,
          (int)nparts, (long long)heaviest, limit, (long long)total);
    if (nparts >= n)
        for (int64_t i = 0; i < n; i++)
            CHECK(part[i] == i,
                  "%s, %d parts >= n = %lld: part[%lld] = %d, expected one row "
                  "per part",
                  what, (int)nparts, (long long)n, (long long)i, part[i]);
    free(rows);
    free(weight);
}

/* Partition A into each of the counts; valid, deterministic, and with many
 * parts (16, 64) fewer cut entries than contiguous ranges when cut_better
 * (with 2 parts a grid's halves are already a minimal cut, and with ~n
 * parts nearly every entry is cut either way). */
static void check_matrix(const kryl_csr *A, const char *what, bool cut_better)
{
    const int64_t n = A->nrows;
    const int32_t counts[] = {
        1, 2, 3, 7, 16, 64, (int32_t)(n > 1 ? n - 1 : 1), (int32_t)n, (int32_t)n + 5};
    int32_t *part = malloc((size_t)(n + 1) * sizeof *part);
    int32_t *again = malloc((size_t)(n + 1) * sizeof *again);
    int32_t *ranges = malloc((size_t)(n + 1) * sizeof *ranges);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        const int32_t np = counts[k];
        if (np < 1) continue;
        kryl_status st = kryl_partition_metis(A, np, part);
        CHECK(st == KRYL_SUCCESS, "%s, %d parts: %s", what, (int)np, kryl_last_error());
        if (st != KRYL_SUCCESS) continue;
        check_valid(A, np, part, what);
        CHECK_OK(kryl_partition_metis(A, np, again));
        CHECK(memcmp(part, again, (size_t)n * sizeof *part) == 0,
              "%s, %d parts: two calls gave different partitions", what, (int)np);
        if ((np != 16 && np != 64) || np >= n) continue;
        contiguous(n, np, ranges);
        const int64_t cut = cut_entries(A, part), cut_ranges = cut_entries(A, ranges);
        printf("%-16s n=%-6lld %2d parts: %6lld cut entries (contiguous %6lld) of %lld\n", what,
               (long long)n, (int)np, (long long)cut, (long long)cut_ranges,
               (long long)kryl_csr_nnz(A));
        if (cut_better)
            CHECK(cut < cut_ranges, "%s, %d parts: METIS cuts %lld entries, contiguous %lld", what,
                  (int)np, (long long)cut, (long long)cut_ranges);
    }
    free(part);
    free(again);
    free(ranges);
}

static void check_generated(kryl_generator_kind kind, int64_t n)
{
    kryl_csr A;
    if (!order_gen(&A, kind, n)) return;
    check_matrix(&A, kryl_generator_name(kind), true);
    gen_csr_free(&A);
}

/* Random patterns of every awkward shape (nonsymmetric: the graph is
 * symmetrised), including a graph without edges and one row. */
static void check_shapes(void)
{
    for (int s = 0; s < TEST_SHAPE_COUNT; s++) {
        const int64_t n = s == TEST_SHAPE_SINGLE ? 1 : 300;
        kryl_csr A;
        test_random_csr(&A, (test_shape)s, n, n, 17 + (uint64_t)s);
        check_matrix(&A, test_shape_name((test_shape)s), false);
        kryl_csr_free(&A);
    }
}

/* Two paths and isolated rows: still one valid part per request. */
static void check_disconnected(void)
{
    kryl_csr A;
    order_two_paths(&A);
    check_matrix(&A, "two paths", false);
    kryl_csr_free(&A);
}

static void check_real(const char *file)
{
    kryl_csr A;
    if (!order_read_real(&A, file)) return;
    check_matrix(&A, file, false);
    kryl_csr_free(&A);
}

/* Bad arguments are refused naming what was wrong. */
static void check_refusals(void)
{
    kryl_csr A;
    test_random_csr(&A, TEST_SHAPE_RANDOM, 20, 20, 3);
    int32_t part[20];
    CHECK_STATUS(kryl_partition_metis(&A, 0, part), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "0 parts") != NULL, "nparts 0: %s", kryl_last_error());
    CHECK_STATUS(kryl_partition_metis(&A, -2, part), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_partition_metis(&A, 4, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_partition_metis(NULL, 4, part), KRYL_ERR_INVALID_ARGUMENT);
    kryl_csr_free(&A);
    test_random_csr(&A, TEST_SHAPE_RANDOM, 20, 25, 3);
    CHECK_STATUS(kryl_partition_metis(&A, 4, part), KRYL_ERR_NOT_SQUARE);
    kryl_csr_free(&A);
}

/* Without METIS: refused, saying what is missing and what is lost. */
static void check_without_metis(void)
{
    kryl_csr A;
    test_random_csr(&A, TEST_SHAPE_RANDOM, 20, 20, 3);
    int32_t part[20];
    CHECK_STATUS(kryl_partition_metis(&A, 4, part), KRYL_ERR_UNSUPPORTED);
    CHECK(strstr(kryl_last_error(), "METIS") != NULL && strstr(kryl_last_error(), "contiguous"),
          "the refusal names METIS and the contiguous fallback: %s", kryl_last_error());
    kryl_csr_free(&A);
}

int main(void)
{
    if (!kryl_order_have_metis()) {
        check_without_metis();
        printf("test_order_partition: this build has no METIS; only the refusal checked\n");
        return test_summary("test_order_partition");
    }
    check_generated(KRYL_GEN_POISSON2D5, 64);
    check_generated(KRYL_GEN_POISSON3D7, 16);
    check_generated(KRYL_GEN_CONVDIFF2D, 40);
    check_shapes();
    check_disconnected();
    check_real("1138_bus.mtx");
    check_real("bcsstk06.mtx");
    check_real("west0479.mtx");
    check_refusals();
    return test_summary("test_order_partition");
}
