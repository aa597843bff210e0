/* Shared by the Matrix Market tests: a scratch directory for written
 * files, and exact (bitwise) comparison of values.  Include after
 * defining _POSIX_C_SOURCE. */
#ifndef KRYL_TEST_MTX_UTIL_H
#define KRYL_TEST_MTX_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_support.h"

static char scratch_dir[256];

/* Create a fresh scratch directory under /tmp; exits on failure. */
static inline void scratch_init(void)
{
    snprintf(scratch_dir, sizeof scratch_dir, "/tmp/kryl_test_mtx_XXXXXX");
    if (mkdtemp(scratch_dir) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
}

/* The path of `name` in the scratch directory, in buf. */
static inline const char *scratch_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", scratch_dir, name);
    return buf;
}

/* Remove the scratch directory and the files in it. */
static inline void scratch_cleanup(void)
{
    DIR *dir = opendir(scratch_dir);
    if (dir == NULL) return;
    char path[512];
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            remove(scratch_path(path, sizeof path, e->d_name));
    closedir(dir);
    rmdir(scratch_dir);
}

/* Write `size` bytes of text to path. */
static inline bool write_bytes(const char *path, const char *text, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) return false;
    bool ok = fwrite(text, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static inline bool write_text(const char *path, const char *text)
{
    return write_bytes(path, text, strlen(text));
}

/* a and b are the same double, bit for bit (tells -0.0 from 0.0). */
static inline bool same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A data file of the repository (tests/data/mtx/name), in buf. */
static inline const char *data_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/mtx/%s", KRYL_TEST_DATA_DIR, name);
    return buf;
}

#endif
