/* The banner and size line of a Matrix Market file. */
#ifndef KRYL_IO_MTX_HEADER_H
#define KRYL_IO_MTX_HEADER_H

#include "io/mtx.h"
#include "io/mtx_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read the banner, the comments after it and the size line into *header;
 * *line is the number of the size line, and the stream is left at the
 * line after it.  header->entries is the number of values the file
 * stores (for array files: of the stored triangle). */
kryl_status kryl_mtx_read_header(kryl_mtx_stream *s, kryl_mtx_header *header, int64_t *line);

#ifdef __cplusplus
}
#endif

#endif
