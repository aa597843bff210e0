/* Reading the entries of a Matrix Market file into COO form, expanding
 * symmetric and skew-symmetric storage into both triangles.
 *
 * Conventions beyond the standard (NIST, "The Matrix Market Exchange
 * Formats: Initial Design", 1996):
 *   - comment lines ('%') and blank lines may appear anywhere after the
 *     banner, also between and after the entries;
 *   - symmetric and skew-symmetric coordinate files should store the lower
 *     triangle, but an entry above the diagonal is accepted and mirrored
 *     too.  An entry given in both triangles therefore adds twice to each
 *     position (duplicates are summed when the matrix is built), as for any
 *     other duplicate;
 *   - a skew-symmetric file's diagonal entries must be zero;
 *   - array files give every position, zeros included (the diagonal of a
 *     skew-symmetric array is added as explicit zeros). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/error.h"
#include "core/memory.h"
#include "io/mtx.h"
#include "io/mtx_header.h"
#include "io/mtx_scan.h"
#include "io/mtx_stream.h"

/* Coordinate files are scanned by at most this many threads, each taking
 * about KRYL_MTX_PIECE_BYTES of lines from every refill of the buffer. */
#define KRYL_MTX_MAX_PIECES  64
#define KRYL_MTX_PIECE_BYTES ((int64_t)4 << 20)

typedef struct reader {
    kryl_mtx_stream s;
    kryl_mtx_header h;
    kryl_coo *coo;
    int64_t size_line; /* line number of the size line */
    int64_t line;      /* number of the last line read */
    int64_t stored;    /* entries read so far */
    int64_t max_count; /* COO entries after expansion, at most */
} reader;

static const char *path_of(const reader *r) { return r->s.path; }

/* COO room for the entries: all of them when the file is large enough to
 * hold them (at least min_bytes per stored entry), else grown as read. */
static kryl_status reserve_first(reader *r, int64_t min_bytes)
{
    int64_t expand = r->h.symmetry == KRYL_MTX_GENERAL ? 1 : 2;
    int64_t bound =
        r->s.file_size >= 0 ? expand * (r->s.file_size / min_bytes + 1) : (int64_t)1 << 20;
    int64_t first = r->max_count < bound ? r->max_count : bound;
    return kryl_coo_reserve(r->coo, first < 16 ? 16 : first);
}

/* Refuse a size line whose matrix would not fit in memory: the COO entries
 * (24 bytes each, no more than a plain file's size can hold) and the CSR
 * built from them (12 bytes an entry, 16 bytes a row with the counters). */
static kryl_status check_memory(const reader *r, int64_t min_bytes)
{
    int64_t expand = r->h.symmetry == KRYL_MTX_GENERAL ? 1 : 2;
    int64_t entries = r->max_count;
    if (r->s.file_size >= 0 && expand * (r->s.file_size / min_bytes + 1) < entries)
        entries = expand * (r->s.file_size / min_bytes + 1);
    int64_t bytes = kryl_bytes_mul_add(entries, 36, kryl_bytes_mul_add(r->h.nrows, 16, 8));
    char what[256];
    snprintf(what, sizeof what, "%s:%lld: the size line's %lld x %lld matrix (%lld entries%s)",
             path_of(r), (long long)r->size_line, (long long)r->h.nrows, (long long)r->h.ncols,
             (long long)entries, entries < r->max_count ? " as the file's size allows" : "");
    return kryl_memory_check(bytes, what);
}

/* Room for `need` more entries: twice as many, up to all there can be. */
static kryl_status grow(reader *r, int64_t need)
{
    int64_t capacity = r->coo->capacity;
    capacity = capacity > r->max_count / 2 ? r->max_count : 2 * capacity;
    if (capacity < r->coo->count + need) capacity = r->coo->count + need;
    return kryl_coo_reserve(r->coo, capacity);
}

/* Name the first thing wrong with the entry line at p (fields, indices,
 * value, skew diagonal); nindex is 2 for coordinate and 0 for array lines. */
static kryl_status diagnose(const reader *r, char *p, int nindex)
{
    const kryl_mtx_header *h = &r->h;
    const char *path = path_of(r);
    long long line = (long long)r->line;
    bool has_value = h->field != KRYL_MTX_PATTERN;
    int want = nindex + (has_value ? 1 : 0);
    char *token[4];
    int count = 0;
    /* token[k] = the start of the k-th blank-separated field */
    for (char *q = kryl_mtx_skip_blanks(p); *q != '\n'; q = kryl_mtx_skip_blanks(q)) {
        if (count < 4) token[count] = q;
        count++;
        while (!kryl_mtx_is_token_end(*q)) q++;
    }
    char text[80];
    if (count != want)
        return KRYL_ERROR(KRYL_ERR_PARSE, "%s:%lld: expected %d field%s (%s), found %d: '%s'", path,
                          line, want, want == 1 ? "" : "s",
                          nindex == 0 ? "value"
                          : has_value ? "row column value"
                                      : "row column",
                          count, kryl_mtx_line_text(p, text, sizeof text));
    int64_t index[2] = {0, 0};
    for (int k = 0; k < nindex; k++) {
        const char *name = k == 0 ? "row" : "column";
        int64_t bound = k == 0 ? h->nrows : h->ncols;
        char *end = NULL;
        kryl_mtx_scan st = kryl_mtx_scan_int(token[k], &index[k], &end);
        if (st == KRYL_MTX_SCAN_SYNTAX)
            return KRYL_ERROR(KRYL_ERR_PARSE,
                              "%s:%lld: expected a %s index (an integer), found '%s'", path, line,
                              name, kryl_mtx_token_text(token[k], text, sizeof text));
        if (st != KRYL_MTX_SCAN_OK || index[k] < 1 || index[k] > bound)
            return KRYL_ERROR(KRYL_ERR_INDEX_OUT_OF_RANGE,
                              "%s:%lld: expected a %s index in 1..%lld, found %s", path, line, name,
                              (long long)bound, kryl_mtx_token_text(token[k], text, sizeof text));
    }
    if (has_value) {
        double v = 0.0;
        char *end = NULL;
        char *t = token[nindex];
        bool integer = h->field == KRYL_MTX_INTEGER;
        kryl_mtx_scan st =
            integer ? kryl_mtx_scan_integer_value(t, &v, &end) : kryl_mtx_scan_real(t, &v, &end);
        if (st == KRYL_MTX_SCAN_NONFINITE)
            return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                              "%s:%lld: expected a finite value, found '%s'", path, line,
                              kryl_mtx_token_text(t, text, sizeof text));
        if (st == KRYL_MTX_SCAN_UNDERFLOW)
            return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                              "%s:%lld: expected a value a double can hold, found '%s', which "
                              "would read as 0 (write 0 if zero is meant)",
                              path, line, kryl_mtx_token_text(t, text, sizeof text));
        if (st != KRYL_MTX_SCAN_OK)
            return KRYL_ERROR(KRYL_ERR_PARSE, "%s:%lld: expected %s value, found '%s'", path, line,
                              integer ? "an integer" : "a real",
                              kryl_mtx_token_text(t, text, sizeof text));
        if (h->symmetry == KRYL_MTX_SKEW_SYMMETRIC && nindex == 2 && index[0] == index[1] &&
            v != 0.0)
            return KRYL_ERROR(KRYL_ERR_PARSE,
                              "%s:%lld: expected a zero diagonal in a skew-symmetric matrix, "
                              "found a(%lld,%lld) = %s",
                              path, line, (long long)index[0], (long long)index[1],
                              kryl_mtx_token_text(t, text, sizeof text));
    }
    return KRYL_ERROR(KRYL_ERR_INTERNAL, "%s:%lld: cannot read the entry '%s'", path, line,
                      kryl_mtx_line_text(p, text, sizeof text));
}

/* A line that is neither an entry, a comment nor blank after the last entry. */
static kryl_status too_many(const reader *r, char *p)
{
    char text[80];
    double number = 0.0;
    char *end = NULL;
    if (kryl_mtx_scan_real(kryl_mtx_skip_blanks(p), &number, &end) == KRYL_MTX_SCAN_OK)
        return KRYL_ERROR(KRYL_ERR_PARSE,
                          "%s:%lld: expected %lld entries as the size line (line %lld) says, "
                          "found more: '%s'",
                          path_of(r), (long long)r->line, (long long)r->h.entries,
                          (long long)r->size_line, kryl_mtx_line_text(p, text, sizeof text));
    return KRYL_ERROR(KRYL_ERR_PARSE,
                      "%s:%lld: expected only comments and blank lines after the last entry, "
                      "found '%s'",
                      path_of(r), (long long)r->line, kryl_mtx_line_text(p, text, sizeof text));
}

static kryl_status truncated(const reader *r)
{
    return KRYL_ERROR(KRYL_ERR_PARSE,
                      "%s:%lld: expected %lld entries as the size line (line %lld) says, found "
                      "%lld before the end of the file",
                      path_of(r), (long long)r->line + 1, (long long)r->h.entries,
                      (long long)r->size_line, (long long)r->stored);
}

/* Scan one coordinate entry line at p; returns the '\n' ending it, or NULL
 * when the line is not a well-formed entry within the matrix. */
static inline char *scan_entry(const kryl_mtx_header *h, char *p, int64_t *i, int64_t *j, double *v)
{
    char *q = p;
    if (kryl_mtx_scan_int(q, i, &q) != KRYL_MTX_SCAN_OK || !kryl_mtx_is_blank(*q)) return NULL;
    q = kryl_mtx_skip_blanks(q);
    if (kryl_mtx_scan_int(q, j, &q) != KRYL_MTX_SCAN_OK) return NULL;
    *v = 1.0;
    if (h->field != KRYL_MTX_PATTERN) {
        if (!kryl_mtx_is_blank(*q)) return NULL;
        q = kryl_mtx_skip_blanks(q);
        kryl_mtx_scan st = h->field == KRYL_MTX_REAL ? kryl_mtx_scan_real(q, v, &q)
                                                     : kryl_mtx_scan_integer_value(q, v, &q);
        if (st != KRYL_MTX_SCAN_OK) return NULL;
    }
    q = kryl_mtx_skip_blanks(q);
    /* 1 <= i <= nrows and 1 <= j <= ncols, as unsigned compares */
    if (*q != '\n' || (uint64_t)(*i - 1) >= (uint64_t)h->nrows ||
        (uint64_t)(*j - 1) >= (uint64_t)h->ncols)
        return NULL;
    return q;
}

/* The entries of one piece of whole lines, scanned by one thread into its
 * own arrays; it stops at the first line that is not an entry. */
typedef struct piece {
    char *begin, *end; /* [begin, end): whole lines */
    kryl_coo coo;      /* its entries (mirrors included) */
    int64_t stored;    /* entry lines read */
    int64_t lines;     /* lines read, up to and including the bad one */
    char *bad;         /* the first line that is not a well-formed entry, or NULL */
} piece;

/* Room for every entry the piece can hold (twice for mirrored storage):
 * an entry line has at least 4 bytes ("1 1\n"), so no counting pass; the
 * pages past the entries are never touched. */
static kryl_status piece_reserve(piece *pc, int64_t need)
{
    return kryl_coo_reserve(&pc->coo, need * ((pc->end - pc->begin) / 4 + 1));
}

/* Scan the piece's lines: entries, comments and blank lines. */
static void scan_piece(const kryl_mtx_header *h, piece *pc)
{
    const bool general = h->symmetry == KRYL_MTX_GENERAL;
    const double mirror = h->symmetry == KRYL_MTX_SKEW_SYMMETRIC ? -1.0 : 1.0;
    int64_t *restrict rows = pc->coo.rows, *restrict cols = pc->coo.cols;
    double *restrict values = pc->coo.values;
    int64_t count = 0, stored = 0, lines = 0;
    char *const end = pc->end;
    pc->bad = NULL;
    for (char *p = pc->begin; p < end;) {
        lines++;
        char *q = kryl_mtx_skip_blanks(p);
        if (*q == '%') q = memchr(q, '\n', (size_t)(end - q));
        if (*q == '\n') {
            p = q + 1;
            continue;
        }
        int64_t i, j;
        double v;
        q = scan_entry(h, q, &i, &j, &v);
        if (q == NULL || (i == j && mirror < 0.0 && v != 0.0)) {
            pc->bad = p;
            break;
        }
        /* a(i,j) = v, and a(j,i) = +-v for symmetric storage */
        rows[count] = i - 1;
        cols[count] = j - 1;
        values[count++] = v;
        if (!general && i != j) {
            rows[count] = j - 1;
            cols[count] = i - 1;
            values[count++] = mirror * v;
        }
        stored++;
        p = q + 1;
    }
    pc->coo.count = count;
    pc->stored = stored;
    pc->lines = lines;
}

/* The line of the piece's entry number `k` (0-based) and its number among
 * the piece's lines (1-based), by scanning the piece again. */
static char *piece_entry_line(const kryl_mtx_header *h, const piece *pc, int64_t k, int64_t *line)
{
    *line = 0;
    for (char *p = pc->begin; p < pc->end;) {
        ++*line;
        char *q = kryl_mtx_skip_blanks(p);
        if (*q == '%') q = memchr(q, '\n', (size_t)(pc->end - q));
        if (*q != '\n' && k-- == 0) return p;
        if (*q != '\n') {
            int64_t i, j;
            double v;
            q = scan_entry(h, q, &i, &j, &v);
        }
        p = q + 1;
    }
    return NULL; /* not reached: the piece has more than k entries */
}

/* Append the pieces' entries to the COO in order, or report the first
 * problem in file order: a line after the last entry the size line
 * announced, or a line that is not an entry. */
static kryl_status merge_pieces(reader *r, piece *pcs, int npieces)
{
    kryl_coo *coo = r->coo;
    int64_t total = 0;
    for (int t = 0; t < npieces; t++) {
        const piece *pc = &pcs[t];
        const int64_t room = r->h.entries - r->stored; /* entries still announced */
        if (pc->stored > room) {
            int64_t local;
            char *p = piece_entry_line(&r->h, pc, room, &local);
            r->line += local;
            return too_many(r, p);
        }
        if (pc->bad) {
            r->line += pc->lines;
            return pc->stored == room ? too_many(r, pc->bad) : diagnose(r, pc->bad, 2);
        }
        r->stored += pc->stored;
        r->line += pc->lines;
        total += pc->coo.count;
    }
    if (coo->count + total > coo->capacity) KRYL_TRY(grow(r, total));
    int64_t at[KRYL_MTX_MAX_PIECES];
    for (int t = 0; t < npieces; t++)
        at[t] = t == 0 ? coo->count : at[t - 1] + pcs[t - 1].coo.count;
#ifdef _OPENMP
#pragma omp parallel for num_threads(npieces) schedule(static, 1) if (total > (1 << 16))
#endif
    for (int t = 0; t < npieces; t++) {
        const kryl_coo *from = &pcs[t].coo;
        const size_t n = (size_t)from->count;
        memcpy(coo->rows + at[t], from->rows, n * sizeof *coo->rows);
        memcpy(coo->cols + at[t], from->cols, n * sizeof *coo->cols);
        memcpy(coo->values + at[t], from->values, n * sizeof *coo->values);
    }
    coo->count += total;
    return KRYL_SUCCESS;
}

/* Cut [begin, end) into npieces of about equal bytes at line ends. */
static void cut_pieces(char *begin, char *end, piece *pcs, int npieces)
{
    char *from = begin;
    for (int t = 0; t < npieces; t++) {
        char *to = t == npieces - 1 ? end : begin + (end - begin) * (t + 1) / npieces;
        if (to < from) to = from;
        if (to < end && to > from) to = (char *)memchr(to - 1, '\n', (size_t)(end - to + 1)) + 1;
        pcs[t].begin = from;
        pcs[t].end = to;
        from = to;
    }
}

/* Read the entries of a coordinate file: each refill of the stream's
 * buffer is cut into pieces at line ends, the threads scan one piece each
 * into their own arrays, and the pieces are appended in order; a problem
 * is reported at the first line it concerns, numbered from the lines the
 * pieces before it counted. */
static kryl_status read_coordinate(reader *r)
{
    kryl_mtx_stream *s = &r->s;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    if (threads > KRYL_MTX_MAX_PIECES) threads = KRYL_MTX_MAX_PIECES;
    /* a few MB of lines per thread each refill: the pieces outweigh the fork */
    KRYL_TRY(kryl_mtx_stream_reserve(s, (size_t)threads * KRYL_MTX_PIECE_BYTES));
    piece pcs[KRYL_MTX_MAX_PIECES];
    memset(pcs, 0, sizeof pcs);
    const int64_t need = r->h.symmetry == KRYL_MTX_GENERAL ? 1 : 2;
    kryl_status st = KRYL_SUCCESS;
    for (;;) {
        if (s->next == s->end) st = kryl_mtx_stream_refill(s);
        if (st != KRYL_SUCCESS || s->next == s->end) break;
        const int64_t bytes = s->end - s->next;
        int npieces = bytes < KRYL_MTX_PIECE_BYTES / 4 ? 1 : threads;
        cut_pieces(s->next, s->end, pcs, npieces);
        kryl_status failed[KRYL_MTX_MAX_PIECES];
#ifdef _OPENMP
#pragma omp parallel for num_threads(npieces) schedule(static, 1)
#endif
        for (int t = 0; t < npieces; t++) {
            failed[t] = piece_reserve(&pcs[t], need);
            if (failed[t] == KRYL_SUCCESS) scan_piece(&r->h, &pcs[t]);
        }
        for (int t = 0; t < npieces && st == KRYL_SUCCESS; t++)
            if (failed[t] != KRYL_SUCCESS)
                st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                "%s: cannot allocate the entries of %lld "
                                "bytes of lines",
                                path_of(r), (long long)bytes);
        if (st == KRYL_SUCCESS) st = merge_pieces(r, pcs, npieces);
        if (st != KRYL_SUCCESS) break;
        s->next = s->end;
    }
    for (int t = 0; t < KRYL_MTX_MAX_PIECES; t++) kryl_coo_free(&pcs[t].coo);
    KRYL_TRY(st);
    return r->stored < r->h.entries ? truncated(r) : KRYL_SUCCESS;
}

/* Read the values of an array file, column by column (of the lower
 * triangle for symmetric storage), one per line. */
static kryl_status read_array(reader *r)
{
    const kryl_mtx_header *h = &r->h;
    kryl_coo *coo = r->coo;
    bool lower = h->symmetry != KRYL_MTX_GENERAL;
    bool skew = h->symmetry == KRYL_MTX_SKEW_SYMMETRIC;
    int64_t skip = skew ? 1 : 0; /* rows above the first stored one of a column */
    double mirror = h->symmetry == KRYL_MTX_SKEW_SYMMETRIC ? -1.0 : 1.0;
    int64_t i = lower ? skip : 0, j = 0; /* 0-based position of the next value */
    for (;;) {
        char *p = NULL;
        KRYL_TRY(kryl_mtx_stream_getline(&r->s, &p));
        if (p == NULL) break;
        r->line++;
        char *q = kryl_mtx_skip_blanks(p);
        if (*q == '%' || *q == '\n') continue;
        if (r->stored == h->entries) return too_many(r, p);
        double v;
        kryl_mtx_scan st = h->field == KRYL_MTX_REAL ? kryl_mtx_scan_real(q, &v, &q)
                                                     : kryl_mtx_scan_integer_value(q, &v, &q);
        if (st != KRYL_MTX_SCAN_OK || *kryl_mtx_skip_blanks(q) != '\n') return diagnose(r, p, 0);
        int64_t need = lower && i != j ? 2 : 1;
        if (coo->count + need > coo->capacity) KRYL_TRY(grow(r, need));
        /* a(i,j) = v, and a(j,i) = +-v below the diagonal of symmetric storage */
        KRYL_TRY(kryl_coo_push(coo, i, j, v));
        if (lower && i != j) KRYL_TRY(kryl_coo_push(coo, j, i, mirror * v));
        r->stored++;
        if (++i == h->nrows) {
            j++;
            i = lower ? j + skip : 0;
        }
    }
    if (r->stored < h->entries) return truncated(r);
    /* the zero diagonal a skew-symmetric array leaves out */
    for (int64_t k = 0; skew && k < h->nrows; k++) KRYL_TRY(kryl_coo_push(coo, k, k, 0.0));
    return KRYL_SUCCESS;
}

kryl_status kryl_mtx_read(const char *path, kryl_mtx_header *header, kryl_coo *coo)
{
    KRYL_REQUIRE_ARG(path);
    KRYL_REQUIRE_ARG(coo);
    memset(coo, 0, sizeof *coo);
    if (header != NULL) memset(header, 0, sizeof *header);
    reader r;
    memset(&r, 0, sizeof r);
    r.coo = coo;
    KRYL_TRY(kryl_mtx_stream_open(&r.s, path));
    kryl_status st = kryl_mtx_read_header(&r.s, &r.h, &r.size_line);
    if (st == KRYL_SUCCESS) {
        r.line = r.size_line;
        coo->nrows = r.h.nrows;
        coo->ncols = r.h.ncols;
        bool coordinate = r.h.format == KRYL_MTX_COORDINATE;
        int64_t expand = r.h.symmetry == KRYL_MTX_GENERAL ? 1 : 2;
        r.max_count = coordinate ? expand * r.h.entries : r.h.nrows * r.h.ncols;
        st = check_memory(&r, coordinate ? 4 : 2);
        if (st == KRYL_SUCCESS) st = reserve_first(&r, coordinate ? 4 : 2);
    }
    if (st == KRYL_SUCCESS)
        st = r.h.format == KRYL_MTX_COORDINATE ? read_coordinate(&r) : read_array(&r);
    kryl_mtx_stream_close(&r.s);
    if (st != KRYL_SUCCESS) {
        kryl_coo_free(coo);
        return st;
    }
    if (header != NULL) *header = r.h;
    return KRYL_SUCCESS;
}

kryl_status kryl_mtx_name_line_of(const char *path, int64_t row, int64_t col, kryl_status status)
{
    reader r;
    memset(&r, 0, sizeof r);
    int64_t found = 0;
    if (kryl_mtx_stream_open(&r.s, path) != KRYL_SUCCESS) return status;
    char *p = NULL;
    bool general = true;
    if (kryl_mtx_read_header(&r.s, &r.h, &r.size_line) == KRYL_SUCCESS &&
        r.h.format == KRYL_MTX_COORDINATE) {
        general = r.h.symmetry == KRYL_MTX_GENERAL;
        r.line = r.size_line;
        /* the last entry line at (row, col), or at (col, row) in symmetric storage */
        while (kryl_mtx_stream_getline(&r.s, &p) == KRYL_SUCCESS && p != NULL) {
            r.line++;
            int64_t i, j;
            double v;
            if (scan_entry(&r.h, kryl_mtx_skip_blanks(p), &i, &j, &v) == NULL) continue;
            if ((i - 1 == row && j - 1 == col) || (!general && i - 1 == col && j - 1 == row))
                found = r.line;
        }
    }
    kryl_mtx_stream_close(&r.s);
    char where[512];
    if (found > 0)
        snprintf(where, sizeof where, "%s:%lld (the last of them)", path, (long long)found);
    else
        snprintf(where, sizeof where, "%s", path);
    return kryl_error_prefix(status, where);
}
