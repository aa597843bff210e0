/* libFuzzer harness for the Matrix Market reader: each input is read as a
 * plain file and, gzip-compressed, through zlib; both reads must give the
 * same status and the same entries, every failure a message, and a file
 * that reads must build a CSR matrix (duplicates summed) or be refused with
 * a message.  Sizes are capped by a 256 MiB memory limit, as a user's
 * machine caps them by the memory available. */
#define _GNU_SOURCE /* memfd_create */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef KRYL_HAVE_ZLIB
#include <zlib.h>
#endif

#include "io/mtx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A path naming an in-memory file holding bytes[0..n), in path[64]; fd out. */
static int memory_file(const void *bytes, size_t n, char *path)
{
    int fd = memfd_create("fuzz.mtx", 0);
    if (fd < 0) abort();
    if (n > 0 && write(fd, bytes, n) != (ssize_t)n) abort();
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}

/* Read path; abort when a failure says nothing. */
static kryl_status read_file(const char *path, kryl_coo *coo)
{
    kryl_status st = kryl_mtx_read(path, NULL, coo);
    if (st != KRYL_SUCCESS && kryl_last_error()[0] == '\0') abort();
    return st;
}

static void same_entries(const kryl_coo *a, const kryl_coo *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->count != b->count) abort();
    for (int64_t k = 0; k < a->count; k++)
        if (a->rows[k] != b->rows[k] || a->cols[k] != b->cols[k] ||
            memcmp(&a->values[k], &b->values[k], sizeof(double)) != 0)
            abort();
}

#ifdef KRYL_HAVE_ZLIB
/* The gzip stream of data (malloc'ed, *n bytes), or NULL. */
static unsigned char *gzip(const uint8_t *data, size_t size, size_t *n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, (uLong)size) + 32;
    unsigned char *out = malloc(cap);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = out != NULL ? deflate(&z, Z_FINISH) : Z_MEM_ERROR;
    *n = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kryl_set_max_memory(256LL << 20);
    char path[64];
    int fd = memory_file(data, size, path);
    kryl_coo plain;
    kryl_status st = read_file(path, &plain);
    close(fd);
#ifdef KRYL_HAVE_ZLIB
    /* the same bytes compressed (inputs that are gzip already: only plain) */
    size_t n = 0;
    unsigned char *z =
        size >= 2 && data[0] == 0x1f && data[1] == 0x8b ? NULL : gzip(data, size, &n);
    if (z != NULL) {
        fd = memory_file(z, n, path);
        kryl_coo packed;
        kryl_status zst = read_file(path, &packed);
        close(fd);
        free(z);
        /* a plain file's size bounds its first allocation; the stream's does not */
        if (zst != st && zst != KRYL_ERR_OUT_OF_MEMORY && st != KRYL_ERR_OUT_OF_MEMORY) abort();
        if (zst == KRYL_SUCCESS && st == KRYL_SUCCESS) same_entries(&plain, &packed);
        kryl_coo_free(&packed);
    }
#endif
    if (st == KRYL_SUCCESS) {
        kryl_csr A;
        kryl_status cst = kryl_csr_from_coo(&A, &plain, plain.nrows, 0, plain.nrows);
        if (cst == KRYL_SUCCESS)
            kryl_csr_free(&A);
        else if (kryl_last_error()[0] == '\0')
            abort();
    }
    kryl_coo_free(&plain);
    return 0;
}
