/* Matrix Market coordinate files read on several threads: the entries are
 * those (and in the order) one thread reads, on files of many pieces and
 * buffer refills (each read in parts by the threads, the end of the file
 * inside one part) with comments and blank lines anywhere, general and
 * symmetric; and a bad line, an extra entry, garbage after the last entry
 * and a truncated file are reported at the exact line, wherever the pieces
 * fall. */
#define _POSIX_C_SOURCE 200809L
#ifdef _OPENMP
#include <omp.h>
#else
static void omp_set_num_threads(int threads) { (void)threads; } /* one thread only */
#endif

#include "io/mtx.h"
#include "test_mtx_util.h"

/* Entry k of the file: row, column and a value with 17 digits. */
static void entry(int64_t k, int64_t n, int64_t *i, int64_t *j, double *v)
{
    *i = k % n + 1;
    *j = (k * 7 + 3) % n + 1;
    if (*j > *i) { /* lower triangle, for the symmetric files */
        int64_t t = *i;
        *i = *j;
        *j = t;
    }
    *v = 1.0 / (double)(k + 3) - 0.25 * (double)(k % 5);
}

typedef enum defect { NONE, BAD_TOKEN, OUT_OF_RANGE, EXTRA_ENTRY, GARBAGE, TRUNCATED } defect;

/* A file of `count` entries announced (count +- 1 for EXTRA_ENTRY and
 * TRUNCATED), a comment every 97 entries and a blank line every 89, the
 * defect at entry `at`; *defect_line is the line the reader must name. */
static bool write_file(const char *path, const char *symmetry, int64_t count, int64_t n, defect d,
                       int64_t at, int64_t *defect_line)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) return false;
    int64_t announced = d == EXTRA_ENTRY ? count - 1 : d == TRUNCATED ? count + 1 : count;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real %s\n%% a comment\n%lld %lld %lld\n",
            symmetry, (long long)n, (long long)n, (long long)announced);
    int64_t line = 3;
    for (int64_t k = 0; k < count; k++) {
        if (k % 97 == 5) fprintf(f, "%% comment at entry %lld\n", (long long)k), line++;
        if (k % 89 == 7) fprintf(f, "  \n"), line++;
        int64_t i, j;
        double v;
        entry(k, n, &i, &j, &v);
        line++;
        if (k == at && d == BAD_TOKEN) {
            fprintf(f, "%lld x%lld %.17g\n", (long long)i, (long long)j, v);
            *defect_line = line;
        } else if (k == at && d == OUT_OF_RANGE) {
            fprintf(f, "%lld %lld %.17g\n", (long long)i, (long long)(n + 1), v);
            *defect_line = line;
        } else {
            fprintf(f, "%lld %lld %.17g\n", (long long)i, (long long)j, v);
        }
        if (k == count - 1 && d == EXTRA_ENTRY) *defect_line = line;
    }
    if (d == GARBAGE) fprintf(f, "%% fine\n\nnot an entry\n"), *defect_line = line + 3;
    if (d == TRUNCATED) *defect_line = line + 1;
    return fclose(f) == 0;
}

/* Read path on `threads` threads. */
static kryl_status read_on(const char *path, int threads, kryl_coo *coo)
{
    omp_set_num_threads(threads);
    kryl_status st = kryl_mtx_read(path, NULL, coo);
    return st;
}

static void check_same_entries(const char *path, const char *what)
{
    kryl_coo one, many;
    CHECK_OK(read_on(path, 1, &one));
    const int threads[] = {2, 3, 7};
    for (int t = 0; t < 3; t++) {
        CHECK_OK(read_on(path, threads[t], &many));
        bool same = one.count == many.count;
        for (int64_t k = 0; same && k < one.count; k++)
            same = one.rows[k] == many.rows[k] && one.cols[k] == many.cols[k] &&
                   memcmp(&one.values[k], &many.values[k], sizeof(double)) == 0;
        CHECK(same, "%s on %d threads: %lld entries, not the %lld one thread reads", what,
              threads[t], (long long)many.count, (long long)one.count);
        kryl_coo_free(&many);
    }
    kryl_coo_free(&one);
}

/* The error names path:line, on one thread and on several. */
static void check_defect(const char *path, defect d, kryl_status expected, int64_t line,
                         const char *what)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%lld:", path, (long long)line);
    const int threads[] = {1, 2, 3, 7};
    for (int t = 0; t < 4; t++) {
        kryl_coo coo;
        kryl_status st = read_on(path, threads[t], &coo);
        CHECK(st == expected && strstr(kryl_last_error(), where) != NULL,
              "%s (defect %d) on %d threads: %s '%s', expected %s at '%s'", what, (int)d,
              threads[t], kryl_strerror(st), kryl_last_error(), kryl_strerror(expected), where);
    }
}

int main(void)
{
    scratch_init();
    char path[512];
    scratch_path(path, sizeof path, "parallel.mtx");
    int64_t line = 0;
    /* ~3 MB: several pieces in one refill; ~12 MB: several refills too */
    const int64_t sizes[] = {100000, 400000};
    for (int s = 0; s < 2; s++) {
        const int64_t count = sizes[s], n = 5000;
        CHECK(write_file(path, "general", count, n, NONE, -1, &line), "cannot write %s", path);
        check_same_entries(path, "general");
        CHECK(write_file(path, "symmetric", count, n, NONE, -1, &line), "cannot write %s", path);
        check_same_entries(path, "symmetric");
        /* defects early, in the middle (another piece), at the end */
        const int64_t at[] = {3, count / 2 + 11, count - 1};
        for (int a = s == 0 ? 0 : 1; a < (s == 0 ? 3 : 2); a++) { /* the big file: the middle */
            CHECK(write_file(path, "general", count, n, BAD_TOKEN, at[a], &line), "write");
            check_defect(path, BAD_TOKEN, KRYL_ERR_PARSE, line, "bad token");
            CHECK(write_file(path, "symmetric", count, n, OUT_OF_RANGE, at[a], &line), "write");
            check_defect(path, OUT_OF_RANGE, KRYL_ERR_INDEX_OUT_OF_RANGE, line, "out of range");
        }
        CHECK(write_file(path, "general", count, n, EXTRA_ENTRY, -1, &line), "write");
        check_defect(path, EXTRA_ENTRY, KRYL_ERR_PARSE, line, "extra entry");
        CHECK(write_file(path, "general", count, n, GARBAGE, -1, &line), "write");
        check_defect(path, GARBAGE, KRYL_ERR_PARSE, line, "garbage after the entries");
        CHECK(write_file(path, "general", count, n, TRUNCATED, -1, &line), "write");
        check_defect(path, TRUNCATED, KRYL_ERR_PARSE, line, "truncated");
    }
    scratch_cleanup();
    return test_summary("test_mtx_parallel");
}
