/* Output files that are written whole or not at all: the data goes to a
 * temporary file in the target's directory, every write, the flush, fsync
 * and close are checked, and only then is the temporary renamed over the
 * target.  A failure removes the temporary and leaves whatever was at the
 * target untouched.  Targets that exist must be regular files (a symbolic
 * link to one is followed and the file it names replaced); device nodes,
 * FIFOs, sockets and directories are refused. */
#ifndef KRYL_IO_FILE_OUT_H
#define KRYL_IO_FILE_OUT_H

#include <stdio.h>

#include "kryl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kryl_file_out {
    char *path;       /* the file replaced on commit (a symbolic link resolved) */
    char *temp;       /* the temporary being written */
    FILE *file;       /* open on temp */
    const char *name; /* the path as the caller gave it, for messages */
    int error;        /* errno of the first failed write, 0 while none failed */
} kryl_file_out;

/* Check the target and create the temporary.  KRYL_ERR_IO (with the
 * reason) when the target is not a regular file or the directory cannot
 * take a new file; nothing is created then. */
kryl_status kryl_file_out_open(kryl_file_out *f, const char *path);

/* Append n bytes; a failure is kept and reported by commit. */
void kryl_file_out_write(kryl_file_out *f, const void *data, size_t n);

/* Append formatted text; a failure is kept and reported by commit. */
void kryl_file_out_printf(kryl_file_out *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Flush, fsync and close the temporary, then rename it over the target.
 * On any failure (the first write error included) the temporary is
 * removed, the target is left as it was and KRYL_ERR_IO names the file and
 * the reason. */
kryl_status kryl_file_out_commit(kryl_file_out *f);

/* Give up: close and remove the temporary; the target is untouched. */
void kryl_file_out_abort(kryl_file_out *f);

#ifdef __cplusplus
}
#endif

#endif
