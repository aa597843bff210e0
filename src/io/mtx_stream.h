/* A buffered source of whole text lines over a plain or gzip-compressed
 * file (gzip recognised by its magic bytes 1f 8b). */
#ifndef KRYL_IO_MTX_STREAM_H
#define KRYL_IO_MTX_STREAM_H

#include <stdbool.h>
#include <stdio.h>

#include "kryl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kryl_mtx_stream {
    const char *path;
    FILE *file; /* plain files */
    void *gz;   /* gzFile of compressed files */
    char *buf;  /* capacity + 1 bytes (room for a '\n' after a last unterminated line), and
                   KRYL_MTX_SCAN_PAD more that the scanners may read */
    size_t capacity;
    char *next;        /* first unread byte */
    char *end;         /* one past the last '\n' in buf: [next, end) holds whole lines */
    char *fill;        /* one past the last byte read; [end, fill) is a partial line */
    bool eof;          /* the file has no more bytes */
    int64_t file_size; /* bytes of a plain file; -1 for compressed or unknown */
    int64_t consumed;  /* bytes of the (uncompressed) file before buf */
} kryl_mtx_stream;

/* Open path for reading.  KRYL_ERR_IO when it cannot be opened or read,
 * KRYL_ERR_UNSUPPORTED for a gzip file in a build without zlib. */
kryl_status kryl_mtx_stream_open(kryl_mtx_stream *s, const char *path);

void kryl_mtx_stream_close(kryl_mtx_stream *s);

/* Keep the unread bytes and read on, so that [next, end) holds at least one
 * whole line ending in '\n' (a last line without one gets one).  After it,
 * next == end only at the end of the file. */
kryl_status kryl_mtx_stream_refill(kryl_mtx_stream *s);

/* Let the buffer hold at least `capacity` bytes (refills read that much
 * at a time); the unread bytes stay. */
kryl_status kryl_mtx_stream_reserve(kryl_mtx_stream *s, size_t capacity);

/* The next line (ending in '\n'): *line points at it and the stream moves
 * past it.  *line is NULL at the end of the file. */
kryl_status kryl_mtx_stream_getline(kryl_mtx_stream *s, char **line);

#ifdef __cplusplus
}
#endif

#endif
