/* Reading Matrix Market files: the valid corpus in tests/data/mtx checked
 * entry by entry against hand-written expectations (symmetric, skew,
 * pattern, integer and array expansion), gzip streams, lines that cross
 * the reader's buffer, and the errors of opening. */
#define _POSIX_C_SOURCE 200809L

#include "test_mtx_util.h"

#include "io/mtx.h"

#ifdef KRYL_HAVE_ZLIB
#include <zlib.h>
#endif

#define MAX_EXPECTED 12

typedef struct good_file {
    const char *file;
    kryl_mtx_format format;
    kryl_mtx_field field;
    kryl_mtx_symmetry symmetry;
    int64_t nrows, ncols, entries;
    int count;                      /* COO entries after expansion */
    double expect[MAX_EXPECTED][3]; /* row, column (0-based), value, in reading order */
} good_file;

#define COORD   KRYL_MTX_COORDINATE
#define ARRAY   KRYL_MTX_ARRAY
#define REAL    KRYL_MTX_REAL
#define INTEGER KRYL_MTX_INTEGER
#define PATTERN KRYL_MTX_PATTERN
#define GEN     KRYL_MTX_GENERAL
#define SYM     KRYL_MTX_SYMMETRIC
#define SKEW    KRYL_MTX_SKEW_SYMMETRIC

static const good_file good_files[] = {
    {"good_general.mtx",
     COORD,
     REAL,
     GEN,
     3,
     4,
     5,
     5,
     {{0, 0, 1.5}, {1, 2, -2e-3}, {2, 3, 0.25}, {0, 3, 7.0}, {2, 0, -0.0}}},
    {"good_crlf.mtx",
     COORD,
     REAL,
     GEN,
     3,
     4,
     5,
     5,
     {{0, 0, 1.5}, {1, 2, -2e-3}, {2, 3, 0.25}, {0, 3, 7.0}, {2, 0, -0.0}}},
    {"good_keywords_case.mtx", COORD, REAL, GEN, 2, 2, 1, 1, {{1, 0, 3.25}}},
    /* the upper-triangle entry (1,3) is mirrored like a lower one */
    {"good_symmetric.mtx",
     COORD,
     REAL,
     SYM,
     3,
     3,
     4,
     6,
     {{0, 0, 4}, {1, 0, -1}, {0, 1, -1}, {2, 2, 2}, {0, 2, 0.5}, {2, 0, 0.5}}},
    {"good_both_triangles.mtx",
     COORD,
     REAL,
     SYM,
     2,
     2,
     3,
     5,
     {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {0, 1, 2}, {1, 0, 2}}},
    /* a(j,i) = -a(i,j); the zero diagonal entry is kept once */
    {"good_skew.mtx",
     COORD,
     REAL,
     SKEW,
     3,
     3,
     3,
     5,
     {{1, 0, 1.5}, {0, 1, -1.5}, {2, 1, -2}, {1, 2, 2}, {2, 2, 0}}},
    {"good_pattern.mtx",
     COORD,
     PATTERN,
     SYM,
     3,
     3,
     3,
     5,
     {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {2, 1, 1}, {1, 2, 1}}},
    {"good_pattern_general.mtx", COORD, PATTERN, GEN, 2, 3, 2, 2, {{0, 2, 1}, {1, 0, 1}}},
    /* 2^53 + 1 rounds to even: 2^53 */
    {"good_integer.mtx",
     COORD,
     INTEGER,
     GEN,
     2,
     2,
     3,
     3,
     {{0, 0, -7}, {1, 1, 12}, {0, 1, 9007199254740992.0}}},
    {"good_array.mtx",
     ARRAY,
     REAL,
     GEN,
     3,
     2,
     6,
     6,
     {{0, 0, 1}, {1, 0, 2}, {2, 0, 3}, {0, 1, 4}, {1, 1, 5}, {2, 1, 6}}},
    {"good_array_symmetric.mtx",
     ARRAY,
     REAL,
     SYM,
     3,
     3,
     6,
     9,
     {{0, 0, 1},
      {1, 0, 2},
      {0, 1, 2},
      {2, 0, 3},
      {0, 2, 3},
      {1, 1, 4},
      {2, 1, 5},
      {1, 2, 5},
      {2, 2, 6}}},
    /* the diagonal a skew-symmetric array leaves out comes last, as zeros */
    {"good_array_skew.mtx",
     ARRAY,
     REAL,
     SKEW,
     3,
     3,
     3,
     9,
     {{1, 0, 1},
      {0, 1, -1},
      {2, 0, 2},
      {0, 2, -2},
      {2, 1, 3},
      {1, 2, -3},
      {0, 0, 0},
      {1, 1, 0},
      {2, 2, 0}}},
    {"good_array_integer.mtx", ARRAY, INTEGER, GEN, 2, 1, 2, 2, {{0, 0, 5}, {1, 0, -3}}},
    {"good_empty.mtx", COORD, REAL, GEN, 3, 3, 0, 0, {{0}}},
    {"good_zero_size.mtx", COORD, REAL, GEN, 0, 0, 0, 0, {{0}}},
    {"good_vector_column.mtx",
     ARRAY,
     REAL,
     GEN,
     4,
     1,
     4,
     4,
     {{0, 0, 1.5}, {1, 0, -2}, {2, 0, 0}, {3, 0, 1000}}},
    {"good_vector_row.mtx", ARRAY, REAL, GEN, 1, 3, 3, 3, {{0, 0, 7}, {0, 1, 8}, {0, 2, 9}}},
    {"good_vector_coordinate.mtx",
     COORD,
     REAL,
     GEN,
     5,
     1,
     3,
     3,
     {{1, 0, 1.25}, {4, 0, -4}, {1, 0, 0.5}}},
};
static const int good_file_count = (int)(sizeof good_files / sizeof good_files[0]);

static void check_good_file(const good_file *g)
{
    char path[1024];
    kryl_mtx_header h;
    kryl_coo coo;
    kryl_status st = kryl_mtx_read(data_path(path, sizeof path, g->file), &h, &coo);
    CHECK(st == KRYL_SUCCESS, "%s: %s", g->file, kryl_last_error());
    if (st != KRYL_SUCCESS) return;
    CHECK(h.format == g->format && h.field == g->field && h.symmetry == g->symmetry,
          "%s: header kinds %d %d %d", g->file, (int)h.format, (int)h.field, (int)h.symmetry);
    CHECK(h.nrows == g->nrows && h.ncols == g->ncols && h.entries == g->entries,
          "%s: header %lld x %lld, %lld entries", g->file, (long long)h.nrows, (long long)h.ncols,
          (long long)h.entries);
    CHECK(coo.nrows == g->nrows && coo.ncols == g->ncols, "%s: coo %lld x %lld", g->file,
          (long long)coo.nrows, (long long)coo.ncols);
    CHECK(coo.count == g->count, "%s: %lld entries, expected %d", g->file, (long long)coo.count,
          g->count);
    for (int k = 0; k < g->count && k < coo.count; k++) {
        const double *e = g->expect[k];
        CHECK(coo.rows[k] == (int64_t)e[0] && coo.cols[k] == (int64_t)e[1] &&
                  same_double(coo.values[k], e[2]),
              "%s: entry %d is (%lld, %lld, %.17g), expected (%g, %g, %.17g)", g->file, k,
              (long long)coo.rows[k], (long long)coo.cols[k], coo.values[k], e[0], e[1], e[2]);
    }
    kryl_coo_free(&coo);
}

/* Every good_*.mtx of the corpus has expectations in the table. */
static void check_corpus_listed(void)
{
    char dir_path[1024];
    DIR *dir = opendir(data_path(dir_path, sizeof dir_path, ""));
    CHECK(dir != NULL, "cannot open %s", dir_path);
    if (dir == NULL) return;
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
        if (strncmp(e->d_name, "good_", 5) != 0) continue;
        bool listed = false;
        for (int i = 0; i < good_file_count; i++)
            listed |= strcmp(good_files[i].file, e->d_name) == 0;
        CHECK(listed, "%s has no expectations in good_files", e->d_name);
    }
    closedir(dir);
}

/* A symmetric entry given in both triangles is summed like a duplicate. */
static void check_both_triangles_summed(void)
{
    char path[1024];
    kryl_coo coo;
    kryl_csr csr;
    CHECK_OK(kryl_mtx_read(data_path(path, sizeof path, "good_both_triangles.mtx"), NULL, &coo));
    CHECK_OK(kryl_csr_from_coo(&csr, &coo, coo.nrows, 0, coo.nrows));
    CHECK(kryl_csr_nnz(&csr) == 3, "nnz %lld", (long long)kryl_csr_nnz(&csr));
    if (kryl_csr_nnz(&csr) == 3) {
        CHECK(csr.col_idx[1] == 1 && csr.values[1] == 3.0, "a(0,1) = %g", csr.values[1]);
        CHECK(csr.col_idx[2] == 0 && csr.values[2] == 3.0, "a(1,0) = %g", csr.values[2]);
    }
    kryl_csr_free(&csr);
    kryl_coo_free(&coo);
}

/* A file of n entries "i j v" whose lines have varied widths, with a
 * comment line longer than the reader's buffer and no final newline;
 * entry k is (k % 997, (k * 31) % 1009, k / 4 - 1000). */
static char *long_file_text(int64_t n, size_t *size)
{
    size_t capacity = (size_t)n * 40 + 4 * 1024 * 1024;
    char *text = malloc(capacity);
    size_t used = (size_t)snprintf(
        text, capacity, "%%%%MatrixMarket matrix coordinate real general\n997 1009 %lld\n",
        (long long)n);
    for (int64_t k = 0; k < n; k++) {
        if (k == n / 2) {
            /* a 3 MB comment line */
            text[used++] = '%';
            memset(text + used, 'c', 3 * 1024 * 1024);
            used += 3 * 1024 * 1024;
            text[used++] = '\n';
        }
        used += (size_t)snprintf(text + used, capacity - used, "%lld%*s%lld %.2f%s",
                                 (long long)(k % 997 + 1), (int)(k % 5) + 1, "",
                                 (long long)((k * 31) % 1009 + 1), (double)k / 4.0 - 1000.0,
                                 k + 1 < n ? "\n" : "");
    }
    *size = used;
    return text;
}

static void check_long_entries(const char *label, const kryl_coo *coo, int64_t n)
{
    CHECK(coo->count == n, "%s: %lld entries, expected %lld", label, (long long)coo->count,
          (long long)n);
    int64_t bad = 0;
    /* count the entries that differ from their formula */
    for (int64_t k = 0; k < coo->count && k < n; k++)
        bad += coo->rows[k] != k % 997 || coo->cols[k] != (k * 31) % 1009 ||
               coo->values[k] != (double)k / 4.0 - 1000.0;
    CHECK(bad == 0, "%s: %lld entries differ", label, (long long)bad);
}

/* Lines crossing the reader's buffer, a line longer than it, no final newline. */
static void test_long_file(void)
{
    const int64_t n = 300000;
    size_t size = 0;
    char *text = long_file_text(n, &size);
    char path[512];
    scratch_path(path, sizeof path, "long.mtx");
    CHECK(write_bytes(path, text, size), "cannot write %s", path);
    kryl_coo coo;
    kryl_status st = kryl_mtx_read(path, NULL, &coo);
    CHECK(st == KRYL_SUCCESS, "%s", kryl_last_error());
    if (st == KRYL_SUCCESS) check_long_entries("long.mtx", &coo, n);
    kryl_coo_free(&coo);
#ifdef KRYL_HAVE_ZLIB
    scratch_path(path, sizeof path, "long.mtx.gz");
    gzFile gz = gzopen(path, "wb");
    CHECK(gz != NULL, "gzopen %s", path);
    if (gz != NULL) {
        CHECK(gzwrite(gz, text, (unsigned)size) == (int)size, "gzwrite");
        CHECK(gzclose(gz) == Z_OK, "gzclose");
        st = kryl_mtx_read(path, NULL, &coo);
        CHECK(st == KRYL_SUCCESS, "%s", kryl_last_error());
        if (st == KRYL_SUCCESS) check_long_entries("long.mtx.gz", &coo, n);
        kryl_coo_free(&coo);
    }
#endif
    free(text);
}

/* gzip files are recognised by their magic bytes, whatever their name. */
static void test_gzip_small(void)
{
    char path[512], plain[1024];
    scratch_path(path, sizeof path, "symmetric_gzipped.mtx");
    data_path(plain, sizeof plain, "good_symmetric.mtx");
#ifdef KRYL_HAVE_ZLIB
    static const char text[] = "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n"
                               "1 1 4.0\n2 1 -1.0\n3 3 2.0\n1 3 0.5\n";
    gzFile gz = gzopen(path, "wb");
    CHECK(gz != NULL, "gzopen %s", path);
    if (gz == NULL) return;
    gzwrite(gz, text, (unsigned)strlen(text));
    gzclose(gz);
    kryl_coo a, b;
    CHECK_OK(kryl_mtx_read(path, NULL, &a));
    CHECK_OK(kryl_mtx_read(plain, NULL, &b));
    CHECK(a.count == 6 && b.count == 6, "counts %lld %lld", (long long)a.count, (long long)b.count);
    for (int64_t k = 0; k < a.count && k < b.count; k++)
        CHECK(a.rows[k] == b.rows[k] && a.cols[k] == b.cols[k] &&
                  same_double(a.values[k], b.values[k]),
              "entry %lld differs", (long long)k);
    kryl_coo_free(&a);
    kryl_coo_free(&b);
#else
    CHECK(write_bytes(path, "\x1f\x8b\x08\x00", 4), "write %s", path);
    kryl_coo coo;
    CHECK_STATUS(kryl_mtx_read(path, NULL, &coo), KRYL_ERR_UNSUPPORTED);
    CHECK(strstr(kryl_last_error(), "built without zlib") != NULL, "%s", kryl_last_error());
#endif
}

static void test_open_errors(void)
{
    kryl_coo coo;
    kryl_mtx_header h;
    char path[512];
    scratch_path(path, sizeof path, "does_not_exist.mtx");
    CHECK_STATUS(kryl_mtx_read(path, &h, &coo), KRYL_ERR_IO);
    CHECK(strstr(kryl_last_error(), "does_not_exist.mtx: cannot open") != NULL, "%s",
          kryl_last_error());
    CHECK(coo.rows == NULL && coo.count == 0, "coo not cleared on failure");
    CHECK_STATUS(kryl_mtx_read(scratch_dir, &h, &coo), KRYL_ERR_IO);
    CHECK_STATUS(kryl_mtx_read(NULL, &h, &coo), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_mtx_read(path, &h, NULL), KRYL_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    scratch_init();
    for (int i = 0; i < good_file_count; i++) check_good_file(&good_files[i]);
    check_corpus_listed();
    check_both_triangles_summed();
    test_long_file();
    test_gzip_small();
    test_open_errors();
    scratch_cleanup();
    return test_summary("test_mtx_read");
}
