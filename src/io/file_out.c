/* Output files written whole or not at all (see file_out.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "io/file_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"

/* What kind of file a mode names, for the refusal message. */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

/* The file to replace: path itself when absent or regular, the file a
 * symbolic link names when that is regular; NULL (error recorded) for
 * anything else.  *mode is the existing file's permissions, or -1. */
static char *resolve_target(const char *path, int *mode, kryl_status *st)
{
    struct stat ls, s;
    *mode = -1;
    *st = KRYL_SUCCESS;
    if (lstat(path, &ls) != 0) {
        if (errno == ENOENT) return strdup(path);
        *st = KRYL_ERROR(KRYL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        return NULL;
    }
    if (stat(path, &s) != 0) {
        *st = KRYL_ERROR(KRYL_ERR_IO, "%s: cannot write through the symbolic link: %s", path,
                         strerror(errno));
        return NULL;
    }
    if (!S_ISREG(s.st_mode)) {
        *st = KRYL_ERROR(KRYL_ERR_IO,
                         "%s: %s%s; only regular files are written (it is left as it is)", path,
                         S_ISLNK(ls.st_mode) ? "a symbolic link to " : "", file_kind(s.st_mode));
        return NULL;
    }
    *mode = (int)(s.st_mode & 07777);
    if (!S_ISLNK(ls.st_mode)) return strdup(path);
    char *real = realpath(path, NULL);
    if (real == NULL)
        *st = KRYL_ERROR(KRYL_ERR_IO, "%s: cannot resolve the symbolic link: %s", path,
                         strerror(errno));
    return real;
}

/* A new file "DIR/.NAME.PID-N" next to target, opened exclusively. */
static int create_temp(const char *target, char **temp)
{
    static atomic_uint serial;
    const char *slash = strrchr(target, '/');
    size_t dir_len = slash != NULL ? (size_t)(slash - target) + 1 : 0;
    size_t len = strlen(target) + 48;
    *temp = malloc(len);
    if (*temp == NULL) {
        errno = ENOMEM;
        return -1;
    }
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(*temp, len, "%.*s.%s.%ld-%u.tmp", (int)dir_len, target, target + dir_len,
                 (long)getpid(), atomic_fetch_add(&serial, 1u));
        int fd = open(*temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

kryl_status kryl_file_out_open(kryl_file_out *f, const char *path)
{
    memset(f, 0, sizeof *f);
    f->name = path;
    int mode;
    kryl_status st;
    f->path = resolve_target(path, &mode, &st);
    if (f->path == NULL)
        return st != KRYL_SUCCESS
                   ? st
                   : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot copy the path", path);
    int fd = create_temp(f->path, &f->temp);
    if (fd < 0) {
        st = KRYL_ERROR(KRYL_ERR_IO, "%s: cannot create a file in its directory: %s", path,
                        strerror(errno));
        free(f->temp);
        free(f->path);
        return st;
    }
    /* the replacement keeps the permissions of the file it replaces */
    if (mode >= 0) (void)fchmod(fd, (mode_t)mode);
    f->file = fdopen(fd, "wb");
    if (f->file == NULL) {
        st = KRYL_ERROR(KRYL_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
        close(fd);
        unlink(f->temp);
        free(f->temp);
        free(f->path);
        return st;
    }
    return KRYL_SUCCESS;
}

void kryl_file_out_write(kryl_file_out *f, const void *data, size_t n)
{
    if (f->error == 0 && n > 0 && fwrite(data, 1, n, f->file) != n)
        f->error = errno != 0 ? errno : EIO;
}

void kryl_file_out_printf(kryl_file_out *f, const char *fmt, ...)
{
    if (f->error != 0) return;
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(f->file, fmt, ap) < 0) f->error = errno != 0 ? errno : EIO;
    va_end(ap);
}

static void file_out_free(kryl_file_out *f)
{
    free(f->temp);
    free(f->path);
    f->temp = f->path = NULL;
    f->file = NULL;
}

void kryl_file_out_abort(kryl_file_out *f)
{
    if (f->file != NULL) fclose(f->file);
    if (f->temp != NULL) unlink(f->temp);
    file_out_free(f);
}

kryl_status kryl_file_out_commit(kryl_file_out *f)
{
    int error = f->error;
    if (error == 0 && fflush(f->file) != 0) error = errno != 0 ? errno : EIO;
    /* the data on the disk before the name points at it */
    if (error == 0 && fsync(fileno(f->file)) != 0 && errno != EINVAL) error = errno;
    if (fclose(f->file) != 0 && error == 0) error = errno != 0 ? errno : EIO;
    f->file = NULL;
    if (error == 0 && rename(f->temp, f->path) != 0) error = errno;
    if (error != 0) {
        unlink(f->temp);
        file_out_free(f);
        return KRYL_ERROR(KRYL_ERR_IO, "%s: cannot write: %s (any earlier file there is unchanged)",
                          f->name, strerror(error));
    }
    file_out_free(f);
    return KRYL_SUCCESS;
}
