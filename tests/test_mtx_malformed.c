/* The malformed corpus tests/data/mtx/bad_*.mtx: each file fails with its
 * own status and a message "FILE:LINE: expected ..." naming the line and
 * what was wrong.  Every bad_*.mtx must have a row in the table. */
#define _POSIX_C_SOURCE 200809L

#include "test_mtx_util.h"

#include "io/mtx.h"

typedef struct bad_file {
    const char *file;
    int line; /* 0: the message names the file without a line */
    kryl_status status;
    const char *phrase;
} bad_file;

#ifdef KRYL_HAVE_ZLIB
#define GZIP_STATUS    KRYL_ERR_IO
#define GZIP_TRUNCATED "corrupt or truncated gzip data: unexpected end of file"
#define GZIP_CORRUPT   "corrupt or truncated gzip data"
#else
#define GZIP_STATUS    KRYL_ERR_UNSUPPORTED
#define GZIP_TRUNCATED "built without zlib"
#define GZIP_CORRUPT   "built without zlib"
#endif

static const bad_file bad_files[] = {
    /* banner */
    {"bad_empty.mtx", 1, KRYL_ERR_PARSE, "expected the banner"},
    {"bad_banner.mtx", 1, KRYL_ERR_PARSE, "found '%%MatrixMarkt matrix"},
    {"bad_banner_short.mtx", 1, KRYL_ERR_PARSE, "expected the banner"},
    {"bad_no_banner.mtx", 1, KRYL_ERR_PARSE, "expected the banner"},
    {"bad_object.mtx", 1, KRYL_ERR_PARSE, "expected the object 'matrix', found 'vector'"},
    {"bad_format.mtx", 1, KRYL_ERR_PARSE, "'coordinate' or 'array', found 'sparse'"},
    {"bad_field.mtx", 1, KRYL_ERR_PARSE, "'pattern', found 'float'"},
    {"bad_symmetry.mtx", 1, KRYL_ERR_PARSE, "'skew-symmetric', found 'lower'"},
    {"bad_complex.mtx", 1, KRYL_ERR_UNSUPPORTED, "complex matrices are not supported"},
    {"bad_hermitian.mtx", 1, KRYL_ERR_UNSUPPORTED, "hermitian matrices are not supported"},
    {"bad_banner_extra.mtx", 1, KRYL_ERR_PARSE, "expected the end of the banner, found 'extra'"},
    {"bad_array_pattern.mtx", 1, KRYL_ERR_PARSE, "for the array format, found 'pattern'"},
    /* size line */
    {"bad_no_size.mtx", 3, KRYL_ERR_PARSE, "expected the size line, found the end of the file"},
    {"bad_size_fields.mtx", 3, KRYL_ERR_PARSE,
     "'rows columns entries' of non-negative integers, found '3 3'"},
    {"bad_size_token.mtx", 2, KRYL_ERR_PARSE, "found '3 x 3'"},
    {"bad_size_negative.mtx", 2, KRYL_ERR_PARSE, "non-negative integers, found '-3 3 1'"},
    {"bad_size_extra.mtx", 2, KRYL_ERR_PARSE, "found '3 3 1 7'"},
    {"bad_size_overflow.mtx", 2, KRYL_ERR_INDEX_OVERFLOW,
     "fit in 64 bits, found '99999999999999999999'"},
    {"bad_size_columns.mtx", 2, KRYL_ERR_INDEX_OVERFLOW, "at most 2147483647 columns"},
    {"bad_array_overflow.mtx", 2, KRYL_ERR_INDEX_OVERFLOW, "found 9223372036854775807 x 2"},
    {"bad_entries_overflow.mtx", 2, KRYL_ERR_INDEX_OVERFLOW, "found 9000000000000000000"},
    {"bad_nonsquare_symmetric.mtx", 2, KRYL_ERR_PARSE,
     "square matrix for symmetric storage, found 3 x 4"},
    /* entries */
    {"bad_fields_few.mtx", 4, KRYL_ERR_PARSE, "expected 3 fields (row column value), found 2"},
    {"bad_fields_many.mtx", 4, KRYL_ERR_PARSE, "expected 3 fields (row column value), found 4"},
    {"bad_pattern_value.mtx", 4, KRYL_ERR_PARSE, "expected 2 fields (row column), found 3"},
    {"bad_row_token.mtx", 4, KRYL_ERR_PARSE, "expected a row index (an integer), found 'a'"},
    {"bad_col_token.mtx", 4, KRYL_ERR_PARSE, "expected a column index (an integer), found '2.5'"},
    {"bad_value_token.mtx", 4, KRYL_ERR_PARSE, "expected a real value, found '1.0x'"},
    {"bad_hex_value.mtx", 4, KRYL_ERR_PARSE, "expected a real value, found '0x1p3'"},
    {"bad_exponent.mtx", 4, KRYL_ERR_PARSE, "expected a real value, found '1.0e'"},
    {"bad_dot.mtx", 4, KRYL_ERR_PARSE, "expected a real value, found '.'"},
    {"bad_value_signs.mtx", 4, KRYL_ERR_PARSE, "expected a real value, found '+-1.5'"},
    {"bad_value_points.mtx", 4, KRYL_ERR_PARSE, "expected a real value, found '1.2.3'"},
    {"bad_value_long.mtx", 4, KRYL_ERR_PARSE,
     "expected a real value, found '1234567890123456789012.5x'"},
    {"bad_exponent_sign.mtx", 4, KRYL_ERR_PARSE, "expected a real value, found '1.5e+'"},
    {"bad_value_no_digits.mtx", 4, KRYL_ERR_PARSE, "expected a real value, found '.e5'"},
    {"bad_row_digits.mtx", 4, KRYL_ERR_PARSE,
     "expected a row index (an integer), found '12345678x'"},
    {"bad_binary.mtx", 4, KRYL_ERR_PARSE, "expected a column index (an integer), found '2?'"},
    {"bad_integer_value.mtx", 4, KRYL_ERR_PARSE, "expected an integer value, found '1.5'"},
    {"bad_row_range.mtx", 4, KRYL_ERR_INDEX_OUT_OF_RANGE, "expected a row index in 1..3, found 4"},
    {"bad_row_zero.mtx", 4, KRYL_ERR_INDEX_OUT_OF_RANGE, "expected a row index in 1..3, found 0"},
    {"bad_col_range.mtx", 4, KRYL_ERR_INDEX_OUT_OF_RANGE, "column index in 1..4, found 5"},
    {"bad_index_negative.mtx", 4, KRYL_ERR_INDEX_OUT_OF_RANGE, "row index in 1..3, found -1"},
    {"bad_index_huge.mtx", 4, KRYL_ERR_INDEX_OUT_OF_RANGE, "found 99999999999999999999"},
    {"bad_nan.mtx", 4, KRYL_ERR_INVALID_VALUE, "expected a finite value, found 'nan'"},
    {"bad_inf.mtx", 4, KRYL_ERR_INVALID_VALUE, "expected a finite value, found '-Inf'"},
    {"bad_value_overflow.mtx", 4, KRYL_ERR_INVALID_VALUE, "expected a finite value, found '1e400'"},
    {"bad_value_underflow.mtx", 4, KRYL_ERR_INVALID_VALUE,
     "found '1e-400', which would read as 0 (write 0 if zero is meant)"},
    {"bad_skew_diagonal.mtx", 4, KRYL_ERR_PARSE,
     "zero diagonal in a skew-symmetric matrix, found a(2,2) = 1.5"},
    /* entry count */
    {"bad_truncated.mtx", 7, KRYL_ERR_PARSE,
     "expected 5 entries as the size line (line 3) says, found 3 before the end of the file"},
    {"bad_too_many.mtx", 6, KRYL_ERR_PARSE,
     "expected 2 entries as the size line (line 2) says, found more"},
    {"bad_trailing.mtx", 6, KRYL_ERR_PARSE,
     "only comments and blank lines after the last entry, found 'END'"},
    /* array values */
    {"bad_array_fields.mtx", 4, KRYL_ERR_PARSE, "expected 1 field (value), found 2"},
    {"bad_array_truncated.mtx", 7, KRYL_ERR_PARSE,
     "expected 6 entries as the size line (line 2) says, found 4"},
    {"bad_array_too_many.mtx", 6, KRYL_ERR_PARSE,
     "expected 3 entries as the size line (line 2) says, found more"},
    {"bad_array_nan.mtx", 4, KRYL_ERR_INVALID_VALUE, "expected a finite value, found 'NaN'"},
    /* compressed data (gzip magic bytes in a .mtx file) */
    {"bad_gzip_truncated.mtx", 0, GZIP_STATUS, GZIP_TRUNCATED},
    {"bad_gzip_corrupt.mtx", 0, GZIP_STATUS, GZIP_CORRUPT},
};
static const int bad_file_count = (int)(sizeof bad_files / sizeof bad_files[0]);

static void check_bad_file(const bad_file *b)
{
    char path[1024], where[256];
    kryl_coo coo;
    kryl_status st = kryl_mtx_read(data_path(path, sizeof path, b->file), NULL, &coo);
    const char *msg = kryl_last_error();
    CHECK(st == b->status, "%s: status %s, expected %s (%s)", b->file, kryl_strerror(st),
          kryl_strerror(b->status), msg);
    if (b->line > 0)
        snprintf(where, sizeof where, "%s:%d: ", b->file, b->line);
    else
        snprintf(where, sizeof where, "%s: ", b->file);
    CHECK(strstr(msg, where) != NULL, "%s: message '%s' does not name '%s'", b->file, msg, where);
    CHECK(strstr(msg, b->phrase) != NULL, "%s: message '%s' lacks '%s'", b->file, msg, b->phrase);
    CHECK(coo.rows == NULL && coo.count == 0, "%s: entries left after failure", b->file);
}

/* Every bad_*.mtx of the corpus is in the table (and so is tested). */
static void check_corpus_listed(void)
{
    char dir_path[1024];
    DIR *dir = opendir(data_path(dir_path, sizeof dir_path, ""));
    CHECK(dir != NULL, "cannot open %s", dir_path);
    if (dir == NULL) return;
    int found = 0;
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
        if (strncmp(e->d_name, "bad_", 4) != 0) continue;
        found++;
        bool listed = false;
        for (int i = 0; i < bad_file_count; i++)
            listed |= strcmp(bad_files[i].file, e->d_name) == 0;
        CHECK(listed, "%s has no row in bad_files", e->d_name);
    }
    closedir(dir);
    CHECK(found == bad_file_count, "%d bad_*.mtx files, %d rows", found, bad_file_count);
}

int main(void)
{
    for (int i = 0; i < bad_file_count; i++) check_bad_file(&bad_files[i]);
    check_corpus_listed();
    return test_summary("test_mtx_malformed");
}
