/* Parsing of the banner "%%MatrixMarket matrix <format> <field> <symmetry>"
 * and of the size line that follows the comments. */
#include "io/mtx_header.h"

#include <ctype.h>
#include <string.h>

#include "core/error.h"
#include "io/mtx_scan.h"

static const char banner_form[] = "'%%MatrixMarket matrix <format> <field> <symmetry>'";
#define MAX_WORDS 8

typedef struct words {
    int count;
    char *start[MAX_WORDS];
    size_t length[MAX_WORDS];
} words;

/* Split the line at p (ending in '\n') into blank-separated words. */
static void split(char *p, words *w)
{
    w->count = 0;
    for (;;) {
        p = kryl_mtx_skip_blanks(p);
        if (*p == '\n') return;
        char *q = p;
        while (!kryl_mtx_is_token_end(*q)) q++;
        if (w->count < MAX_WORDS) {
            w->start[w->count] = p;
            w->length[w->count] = (size_t)(q - p);
        }
        w->count++;
        p = q;
    }
}

static bool is_keyword(const words *w, int k, const char *keyword)
{
    if (w->length[k] != strlen(keyword)) return false;
    for (size_t i = 0; i < w->length[k]; i++)
        if (tolower((unsigned char)w->start[k][i]) != keyword[i]) return false;
    return true;
}

/* Index of the keyword that word k is, or -1. */
static int which_keyword(const words *w, int k, const char *const *keywords, int n)
{
    for (int i = 0; i < n; i++)
        if (is_keyword(w, k, keywords[i])) return i;
    return -1;
}

static kryl_status parse_banner(const char *path, char *line, kryl_mtx_header *h)
{
    static const char *const formats[] = {"coordinate", "array"};
    static const char *const fields[] = {"real", "integer", "pattern", "complex"};
    static const char *const symmetries[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
    char text[80];
    words w;
    split(line, &w);
    if (w.count < 5 || !is_keyword(&w, 0, "%%matrixmarket"))
        return KRYL_ERROR(KRYL_ERR_PARSE, "%s:1: expected the banner %s, found '%s'", path,
                          banner_form, kryl_mtx_line_text(line, text, sizeof text));
    if (!is_keyword(&w, 1, "matrix"))
        return KRYL_ERROR(KRYL_ERR_PARSE, "%s:1: expected the object 'matrix', found '%s'", path,
                          kryl_mtx_token_text(w.start[1], text, sizeof text));
    int format = which_keyword(&w, 2, formats, 2);
    if (format < 0)
        return KRYL_ERROR(KRYL_ERR_PARSE,
                          "%s:1: expected the format 'coordinate' or 'array', found '%s'", path,
                          kryl_mtx_token_text(w.start[2], text, sizeof text));
    int field = which_keyword(&w, 3, fields, 4);
    if (field == 3)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "%s:1: expected the field 'real', 'integer' or 'pattern', found "
                          "'complex': complex matrices are not supported",
                          path);
    if (field < 0)
        return KRYL_ERROR(KRYL_ERR_PARSE,
                          "%s:1: expected the field 'real', 'integer' or 'pattern', found '%s'",
                          path, kryl_mtx_token_text(w.start[3], text, sizeof text));
    int symmetry = which_keyword(&w, 4, symmetries, 4);
    if (symmetry == 3)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "%s:1: expected the symmetry 'general', 'symmetric' or "
                          "'skew-symmetric', found 'hermitian': hermitian matrices are not "
                          "supported",
                          path);
    if (symmetry < 0)
        return KRYL_ERROR(KRYL_ERR_PARSE,
                          "%s:1: expected the symmetry 'general', 'symmetric' or "
                          "'skew-symmetric', found '%s'",
                          path, kryl_mtx_token_text(w.start[4], text, sizeof text));
    if (w.count > 5)
        return KRYL_ERROR(KRYL_ERR_PARSE, "%s:1: expected the end of the banner, found '%s'", path,
                          kryl_mtx_token_text(w.start[5], text, sizeof text));
    if (format == KRYL_MTX_ARRAY && field == KRYL_MTX_PATTERN)
        return KRYL_ERROR(KRYL_ERR_PARSE,
                          "%s:1: expected the field 'real' or 'integer' for the array format, "
                          "found 'pattern'",
                          path);
    h->format = (kryl_mtx_format)format;
    h->field = (kryl_mtx_field)field;
    h->symmetry = (kryl_mtx_symmetry)symmetry;
    return KRYL_SUCCESS;
}

/* a*b/2 for a or b even, without overflow where a*b/2 fits */
static int64_t half_product(int64_t a, int64_t b) { return a % 2 == 0 ? a / 2 * b : b / 2 * a; }

/* Values an array file stores: all, or the lower triangle with or without
 * the diagonal; -1 when the matrix has more than INT64_MAX entries. */
static int64_t array_entries(const kryl_mtx_header *h)
{
    int64_t n = h->nrows, m = h->ncols;
    if (m != 0 && n > INT64_MAX / m) return -1;
    if (h->symmetry == KRYL_MTX_GENERAL) return n * m;
    /* n(n+1)/2 or n(n-1)/2, both fit as n*n does */
    return h->symmetry == KRYL_MTX_SYMMETRIC ? half_product(n, n + 1) : half_product(n, n - 1);
}

static kryl_status parse_size(const char *path, int64_t line_no, char *line, kryl_mtx_header *h)
{
    bool coordinate = h->format == KRYL_MTX_COORDINATE;
    const char *form = coordinate ? "'rows columns entries'" : "'rows columns'";
    int want = coordinate ? 3 : 2;
    char text[80];
    words w;
    split(line, &w);
    int64_t size[3] = {0, 0, 0};
    for (int k = 0; k < want && k < w.count; k++) {
        char *end = NULL;
        kryl_mtx_scan st = kryl_mtx_scan_int(w.start[k], &size[k], &end);
        if (st == KRYL_MTX_SCAN_OVERFLOW)
            return KRYL_ERROR(
                KRYL_ERR_INDEX_OVERFLOW, "%s:%lld: expected sizes that fit in 64 bits, found '%s'",
                path, (long long)line_no, kryl_mtx_token_text(w.start[k], text, sizeof text));
        if (st != KRYL_MTX_SCAN_OK || size[k] < 0) w.count = -1; /* reported below */
    }
    if (w.count != want)
        return KRYL_ERROR(KRYL_ERR_PARSE,
                          "%s:%lld: expected the size line %s of non-negative integers, found "
                          "'%s'",
                          path, (long long)line_no, form,
                          kryl_mtx_line_text(line, text, sizeof text));
    h->nrows = size[0];
    h->ncols = size[1];
    if (h->ncols > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "%s:%lld: expected at most %d columns (column indices are 32-bit), "
                          "found %lld",
                          path, (long long)line_no, INT32_MAX, (long long)h->ncols);
    if (h->symmetry != KRYL_MTX_GENERAL && h->nrows != h->ncols)
        return KRYL_ERROR(KRYL_ERR_PARSE,
                          "%s:%lld: expected a square matrix for %s storage, found %lld x %lld",
                          path, (long long)line_no,
                          h->symmetry == KRYL_MTX_SYMMETRIC ? "symmetric" : "skew-symmetric",
                          (long long)h->nrows, (long long)h->ncols);
    h->entries = coordinate ? size[2] : array_entries(h);
    if (!coordinate && h->entries < 0)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "%s:%lld: expected an array of at most %lld values, found %lld x %lld",
                          path, (long long)line_no, (long long)INT64_MAX, (long long)h->nrows,
                          (long long)h->ncols);
    if (h->symmetry != KRYL_MTX_GENERAL && h->entries > INT64_MAX / 2)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "%s:%lld: expected at most %lld entries (twice as many after "
                          "expanding the symmetry must fit in 64 bits), found %lld",
                          path, (long long)line_no, (long long)(INT64_MAX / 2),
                          (long long)h->entries);
    return KRYL_SUCCESS;
}

kryl_status kryl_mtx_read_header(kryl_mtx_stream *s, kryl_mtx_header *header, int64_t *line)
{
    char *p = NULL;
    KRYL_TRY(kryl_mtx_stream_getline(s, &p));
    if (p == NULL)
        return KRYL_ERROR(KRYL_ERR_PARSE,
                          "%s:1: expected the banner %s, found the end of the file (an empty file)",
                          s->path, banner_form);
    KRYL_TRY(parse_banner(s->path, p, header));
    int64_t n = 1;
    /* skip the comments and blank lines up to the size line */
    for (;;) {
        KRYL_TRY(kryl_mtx_stream_getline(s, &p));
        n++;
        if (p == NULL)
            return KRYL_ERROR(KRYL_ERR_PARSE,
                              "%s:%lld: expected the size line, found the end of the file", s->path,
                              (long long)n);
        char *first = kryl_mtx_skip_blanks(p);
        if (*first != '%' && *first != '\n') break;
    }
    *line = n;
    return parse_size(s->path, n, p, header);
}
