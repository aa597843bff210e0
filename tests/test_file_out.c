/* Every file kryl writes (matrices, vectors, residual histories) is
 * written whole or not at all: a write that fails midway (a full disk,
 * emulated by a file size limit with SIGXFSZ ignored) leaves the earlier
 * file byte for byte and no temporary behind; device nodes, FIFOs,
 * directories and symbolic links to them are refused and left alone; a
 * symbolic link to a regular file is kept and the file it names replaced,
 * keeping its permissions. */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "test_mtx_util.h"

#include "io/mtx.h"

/* The whole content of path (malloc'ed, *size bytes), or NULL. */
static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    char *buf = NULL;
    *size = 0;
    size_t cap = 0, n;
    do {
        if (*size + 4096 > cap) {
            cap = 2 * cap + 4096;
            char *grown = realloc(buf, cap);
            if (grown == NULL) break;
            buf = grown;
        }
        n = fread(buf + *size, 1, cap - *size, f);
        *size += n;
    } while (n > 0);
    fclose(f);
    return buf;
}

/* Entries of the scratch directory other than `keep1` and `keep2`. */
static int stray_files(const char *keep1, const char *keep2)
{
    DIR *dir = opendir(scratch_dir);
    int stray = 0;
    for (struct dirent *e = dir != NULL ? readdir(dir) : NULL; e != NULL; e = readdir(dir))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strcmp(e->d_name, keep1) != 0 && strcmp(e->d_name, keep2) != 0) {
            fprintf(stderr, "  stray file %s\n", e->d_name);
            stray++;
        }
    if (dir != NULL) closedir(dir);
    return stray;
}

/* Each writer, called on path while files are limited to 64 KiB. */
typedef kryl_status (*write_fn)(const char *path, const kryl_csr *A);

static kryl_status write_matrix(const char *path, const kryl_csr *A)
{
    return kryl_mtx_write_csr(path, A);
}

static kryl_status write_vector(const char *path, const kryl_csr *A)
{
    return kryl_write_mtx_vector(path, A->row_ptr[A->nrows], A->values);
}

static kryl_status write_history(const char *path, const kryl_csr *A)
{
    return kryl_write_history_csv(path, A->values, A->row_ptr[A->nrows], 2.0);
}

/* A full disk midway through the write: an I/O error that says why, the
 * earlier file unchanged, no temporary left. */
static void check_full_disk(const char *label, write_fn write)
{
    char path[512];
    scratch_path(path, sizeof path, "result.out");
    const char *earlier = "the earlier result\n";
    CHECK(write_text(path, earlier), "cannot write %s", path);
    kryl_csr A;
    test_random_csr(&A, TEST_SHAPE_LONG_ROWS, 1000, 1000, 5);
    struct rlimit saved, limit;
    if (getrlimit(RLIMIT_FSIZE, &saved) != 0) return;
    limit = saved;
    limit.rlim_cur = 64 * 1024;
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return;
    kryl_status st = write(path, &A);
    setrlimit(RLIMIT_FSIZE, &saved);
    CHECK(st == KRYL_ERR_IO, "%s: %s", label, kryl_strerror(st));
    CHECK(strstr(kryl_last_error(), "result.out: cannot write: File too large") != NULL, "%s: %s",
          label, kryl_last_error());
    size_t size = 0;
    char *text = slurp(path, &size);
    CHECK(text != NULL && size == strlen(earlier) && memcmp(text, earlier, size) == 0,
          "%s: the earlier file was changed", label);
    free(text);
    CHECK(stray_files("result.out", "") == 0, "%s: a temporary was left", label);
    /* without the limit the same write replaces the file whole */
    CHECK_OK(write(path, &A));
    text = slurp(path, &size);
    CHECK(text != NULL && size > 64 * 1024, "%s: %zu bytes written", label, size);
    free(text);
    CHECK(stray_files("result.out", "") == 0, "%s: a temporary was left", label);
    remove(path);
    kryl_csr_free(&A);
}

/* Targets that are not regular files are refused and left in place. */
static void check_refused(const char *path, const char *expect)
{
    double v[2] = {1.0, 2.0};
    struct stat before, after;
    CHECK(lstat(path, &before) == 0, "%s is missing", path);
    CHECK_STATUS(kryl_mtx_write_dense(path, 2, v), KRYL_ERR_IO);
    CHECK(strstr(kryl_last_error(), expect) != NULL, "%s: %s", path, kryl_last_error());
    CHECK_STATUS(kryl_write_history_csv(path, v, 2, 1.0), KRYL_ERR_IO);
    CHECK(lstat(path, &after) == 0 && after.st_ino == before.st_ino &&
              after.st_mode == before.st_mode,
          "%s was replaced", path);
}

static void test_non_regular(void)
{
    char fifo[512], dir[512], link[512];
    check_refused("/dev/null", "/dev/null: a character device; only regular files are written");
    scratch_path(link, sizeof link, "null_link");
    CHECK(symlink("/dev/null", link) == 0, "symlink");
    check_refused(link, "null_link: a symbolic link to a character device");
    remove(link);
    scratch_path(fifo, sizeof fifo, "fifo");
    if (mkfifo(fifo, 0600) == 0) {
        check_refused(fifo, "fifo: a FIFO");
        remove(fifo);
    }
    scratch_path(dir, sizeof dir, "dir");
    CHECK(mkdir(dir, 0700) == 0, "mkdir");
    check_refused(dir, "dir: a directory");
    rmdir(dir);
    CHECK(stray_files("", "") == 0, "files left behind");
}

/* A symbolic link to a regular file stays a link; the file it names is
 * replaced and keeps its permissions. */
static void test_link_and_mode(void)
{
    char target[512], link[512];
    scratch_path(target, sizeof target, "target.mtx");
    scratch_path(link, sizeof link, "link.mtx");
    CHECK(write_text(target, "old\n") && chmod(target, 0640) == 0, "cannot write %s", target);
    CHECK(symlink("target.mtx", link) == 0, "symlink");
    double v[3] = {1.0, -2.5, 3.0};
    CHECK_OK(kryl_write_mtx_vector(link, 3, v));
    struct stat ls, ts;
    CHECK(lstat(link, &ls) == 0 && S_ISLNK(ls.st_mode), "the link was replaced by a file");
    CHECK(stat(target, &ts) == 0 && (ts.st_mode & 07777) == 0640, "mode %o, expected 640",
          (unsigned)(ts.st_mode & 07777));
    int64_t n = 0;
    double *x = NULL;
    CHECK_OK(kryl_read_mtx_vector(target, &n, &x));
    CHECK(n == 3 && x != NULL && x[1] == -2.5, "the target does not hold the vector");
    free(x);
    CHECK(stray_files("target.mtx", "link.mtx") == 0, "a temporary was left");
    remove(link);
    remove(target);
}

static void test_history_text(void)
{
    char path[512];
    scratch_path(path, sizeof path, "h.csv");
    double h[2] = {4.0, 0.5};
    CHECK_OK(kryl_write_history_csv(path, h, 2, 2.0));
    size_t size = 0;
    char *text = slurp(path, &size);
    const char *expect = "iteration,residual_norm,relative_residual\n0,4,2\n1,0.5,0.25\n";
    CHECK(text != NULL && size == strlen(expect) && memcmp(text, expect, size) == 0,
          "history file: %.*s", (int)size, text != NULL ? text : "");
    free(text);
    CHECK_STATUS(kryl_write_history_csv(path, NULL, 2, 1.0), KRYL_ERR_INVALID_ARGUMENT);
    remove(path);
}

int main(void)
{
    scratch_init();
    check_full_disk("matrix", write_matrix);
    check_full_disk("vector", write_vector);
    check_full_disk("history", write_history);
    test_non_regular();
    test_link_and_mode();
    test_history_text();
    scratch_cleanup();
    return test_summary("test_file_out");
}
