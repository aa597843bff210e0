/* Buffered line source over plain files (stdio) and gzip streams (zlib). */
#define _POSIX_C_SOURCE 200809L /* pread, fileno, ftello */
#include "io/mtx_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/error.h"
#include "core/host_threads.h"
#include "core/huge_pages.h"
#include "io/mtx_scan.h"

#ifdef KRYL_HAVE_ZLIB
#include <zlib.h>
#endif

/* Bytes read at a time; lines longer than this grow the buffer, up to
 * KRYL_MTX_LINE_MAX (an entry line is under 100 bytes: a longer line is
 * not Matrix Market, e.g. /dev/zero, and must not take all memory). */
#define KRYL_MTX_CHUNK    ((size_t)1 << 20)
#define KRYL_MTX_LINE_MAX ((size_t)64 << 20)

static bool is_gzip(const char *bytes, size_t n)
{
    return n >= 2 && (unsigned char)bytes[0] == 0x1f && (unsigned char)bytes[1] == 0x8b;
}

/* Read up to `want` bytes at s->fill; sets s->eof when the file ends. */
/* The least bytes read by several threads at once, and the least each reads. */
#define KRYL_MTX_SPLIT_READ ((size_t)4 << 20)
#define KRYL_MTX_READ_PART  ((size_t)1 << 20)

/* pread of [at, at + n) into to until n bytes or the end of the file;
 * the bytes read, *err the errno of a failure (else 0). */
static size_t pread_all(int fd, char *to, size_t n, off_t at, int *err)
{
    size_t done = 0;
    *err = 0;
    while (done < n) {
        ssize_t got = pread(fd, to + done, n - done, at + (off_t)done);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) *err = errno;
        if (got <= 0) break;
        done += (size_t)got;
    }
    return done;
}

/* Up to `want` bytes of a plain file into s->fill: a large read in parts
 * at their offsets on the host's threads (the copy out of the page cache
 * is a good share of a parse on many threads, too much for one thread),
 * else through stdio.  The bytes read, *err as pread_all's. */
static size_t read_plain(kryl_mtx_stream *s, size_t want, int *err)
{
    const int fd = fileno(s->file);
    const off_t at = s->file_size >= 0 && want >= KRYL_MTX_SPLIT_READ ? ftello(s->file) : -1;
    if (fd < 0 || at < 0) {
        size_t got = fread(s->fill, 1, want, s->file);
        *err = ferror(s->file) ? (errno != 0 ? errno : EIO) : 0;
        return got;
    }
    int parts = kryl_host_max_threads();
    if (parts > KRYL_HOST_MAX_TEAM) parts = KRYL_HOST_MAX_TEAM;
    if ((size_t)parts > want / KRYL_MTX_READ_PART) parts = (int)(want / KRYL_MTX_READ_PART);
    size_t got[KRYL_HOST_MAX_TEAM];
    int errs[KRYL_HOST_MAX_TEAM];
    KRYL_HOST_PARALLEL_FOR(parts)
    for (int p = 0; p < parts; p++) {
        size_t lo = want * (size_t)p / (size_t)parts, hi = want * (size_t)(p + 1) / (size_t)parts;
        got[p] = pread_all(fd, s->fill + lo, hi - lo, at + (off_t)lo, &errs[p]);
    }
    /* the bytes up to the first part cut short (by the end of the file) */
    size_t total = 0;
    *err = 0;
    for (int p = 0; p < parts; p++) {
        total += got[p];
        *err = errs[p];
        if (got[p] < want * (size_t)(p + 1) / (size_t)parts - want * (size_t)p / (size_t)parts ||
            *err != 0)
            break;
    }
    if (fseeko(s->file, at + (off_t)total, SEEK_SET) != 0 && *err == 0) *err = errno;
    return total;
}

static kryl_status read_bytes(kryl_mtx_stream *s, size_t want)
{
    size_t got = 0;
    if (want > ((size_t)1 << 30)) want = (size_t)1 << 30;
#ifdef KRYL_HAVE_ZLIB
    if (s->gz != NULL) {
        int n = gzread((gzFile)s->gz, s->fill, (unsigned)want);
        int zerr = Z_OK;
        const char *zmsg = gzerror((gzFile)s->gz, &zerr);
        size_t path_len = strlen(s->path);
        /* zlib's message is "PATH: what"; keep the what */
        if (strncmp(zmsg, s->path, path_len) == 0 && strncmp(zmsg + path_len, ": ", 2) == 0)
            zmsg += path_len + 2;
        if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END))
            return KRYL_ERROR(KRYL_ERR_IO, "%s: corrupt or truncated gzip data: %s", s->path,
                              zerr == Z_ERRNO ? strerror(errno) : zmsg);
        got = (size_t)n;
        if (got == 0) s->eof = true;
        s->fill += got;
        return KRYL_SUCCESS;
    }
#endif
    int err = 0;
    got = read_plain(s, want, &err);
    if (err != 0) return KRYL_ERROR(KRYL_ERR_IO, "%s: cannot read: %s", s->path, strerror(err));
    if (got < want) s->eof = true;
    s->fill += got;
    return KRYL_SUCCESS;
}

static kryl_status open_gzip(kryl_mtx_stream *s)
{
#ifdef KRYL_HAVE_ZLIB
    fclose(s->file);
    s->file = NULL;
    s->file_size = -1;
    gzFile gz = gzopen(s->path, "rb");
    if (gz == NULL)
        return KRYL_ERROR(KRYL_ERR_IO, "%s: cannot open gzip stream: %s", s->path, strerror(errno));
    gzbuffer(gz, 256 * 1024);
    s->gz = gz;
    s->fill = s->buf;
    s->eof = false;
    return KRYL_SUCCESS;
#else
    return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                      "%s: gzip-compressed file, but kryl was built without zlib "
                      "(decompress it with gunzip first)",
                      s->path);
#endif
}

kryl_status kryl_mtx_stream_open(kryl_mtx_stream *s, const char *path)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    s->file_size = -1;
    s->file = fopen(path, "rb");
    if (s->file == NULL)
        return KRYL_ERROR(KRYL_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fseek(s->file, 0, SEEK_END) == 0) {
        long size = ftell(s->file);
        s->file_size = size >= 0 ? (int64_t)size : -1;
        if (fseek(s->file, 0, SEEK_SET) != 0) s->file_size = -1;
    }
    s->capacity = KRYL_MTX_CHUNK;
    s->buf = malloc(s->capacity + 1 + KRYL_MTX_SCAN_PAD);
    if (s->buf == NULL) {
        kryl_mtx_stream_close(s);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate a read buffer", path);
    }
    s->next = s->end = s->fill = s->buf;
    kryl_status st = read_bytes(s, 2);
    if (st == KRYL_SUCCESS && is_gzip(s->buf, (size_t)(s->fill - s->buf))) st = open_gzip(s);
    if (st != KRYL_SUCCESS) kryl_mtx_stream_close(s);
    return st;
}

void kryl_mtx_stream_close(kryl_mtx_stream *s)
{
    if (s->file != NULL) fclose(s->file);
#ifdef KRYL_HAVE_ZLIB
    if (s->gz != NULL) gzclose((gzFile)s->gz);
#endif
    free(s->buf);
    memset(s, 0, sizeof *s);
}

/* One past the last '\n' in [from, to), or NULL. */
static char *after_last_newline(char *from, char *to)
{
    while (to > from)
        if (*--to == '\n') return to + 1;
    return NULL;
}

kryl_status kryl_mtx_stream_reserve(kryl_mtx_stream *s, size_t capacity)
{
    if (capacity <= s->capacity) return KRYL_SUCCESS;
    char *buf = realloc(s->buf, capacity + 1 + KRYL_MTX_SCAN_PAD);
    if (buf == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate a read buffer of %zu bytes",
                          s->path, capacity);
    /* the same offsets in the moved buffer */
    s->next = buf + (s->next - s->buf);
    s->end = buf + (s->end - s->buf);
    s->fill = buf + (s->fill - s->buf);
    s->buf = buf;
    s->capacity = capacity;
    kryl_advise_huge_pages(buf, capacity);
    return KRYL_SUCCESS;
}

/* Twice the room, for a line longer than the buffer (refill keeps it at the start). */
static kryl_status grow(kryl_mtx_stream *s)
{
    if (2 * s->capacity > KRYL_MTX_LINE_MAX)
        return KRYL_ERROR(KRYL_ERR_PARSE,
                          "%s: expected lines of at most %zu MiB, found a longer one after byte "
                          "%lld: not a Matrix Market file",
                          s->path, KRYL_MTX_LINE_MAX >> 20, (long long)s->consumed);
    return kryl_mtx_stream_reserve(s, 2 * s->capacity);
}

kryl_status kryl_mtx_stream_refill(kryl_mtx_stream *s)
{
    size_t keep = (size_t)(s->fill - s->next);
    s->consumed += (int64_t)(s->next - s->buf);
    memmove(s->buf, s->next, keep);
    s->next = s->end = s->buf;
    s->fill = s->buf + keep;
    size_t unscanned = 0; /* [buf, buf + unscanned) is known to hold no '\n' */
    for (;;) {
        if (!s->eof) {
            if (s->fill == s->buf + s->capacity) KRYL_TRY(grow(s));
            KRYL_TRY(read_bytes(s, (size_t)(s->buf + s->capacity - s->fill)));
        }
        char *end = after_last_newline(s->buf + unscanned, s->fill);
        if (end != NULL) {
            s->end = end;
            return KRYL_SUCCESS;
        }
        if (s->eof) {
            if (s->fill > s->buf) *s->fill++ = '\n'; /* terminate the last line */
            s->end = s->fill;
            return KRYL_SUCCESS;
        }
        unscanned = (size_t)(s->fill - s->buf);
    }
}

kryl_status kryl_mtx_stream_getline(kryl_mtx_stream *s, char **line)
{
    if (s->next == s->end) KRYL_TRY(kryl_mtx_stream_refill(s));
    if (s->next == s->end) {
        *line = NULL;
        return KRYL_SUCCESS;
    }
    *line = s->next;
    s->next = (char *)memchr(s->next, '\n', (size_t)(s->end - s->next)) + 1;
    return KRYL_SUCCESS;
}
