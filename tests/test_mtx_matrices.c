/* Every real matrix of the test matrix directory reads with the rows,
 * columns, stored entries and expanded entries (before duplicates are
 * summed) that its README lists; bcsstk33 comes gzip-compressed.  Skipped
 * (77) when the directory is absent. */
#define _POSIX_C_SOURCE 200809L

#include "test_mtx_util.h"

#include "io/mtx.h"

typedef struct real_matrix {
    const char *file;
    int64_t nrows, ncols, stored, expanded;
} real_matrix;

/* From the directory's README.md. */
static const real_matrix real_matrices[] = {
    {"1138_bus.mtx", 1138, 1138, 2596, 4054},
    {"494_bus.mtx", 494, 494, 1080, 1666},
    {"bcsstk06.mtx", 420, 420, 4140, 7860},
    {"bcsstk08.mtx", 1074, 1074, 7017, 12960},
    {"bcsstk09.mtx", 1083, 1083, 9760, 18437},
    {"bcsstk10.mtx", 1086, 1086, 11578, 22070},
    {"bcsstk15.mtx", 3948, 3948, 60882, 117816},
    {"bcsstk19.mtx", 817, 817, 3835, 6853},
    {"lund_a.mtx", 147, 147, 1298, 2449},
    {"nos4.mtx", 100, 100, 347, 594},
    {"bcsstk33.mtx.gz", 8738, 8738, 300321, 591904},
    {"ca-GrQc.mtx", 5242, 5242, 14496, 28980},
    {"saylr3.mtx", 1000, 1000, 2375, 3750},
    {"zenios.mtx", 2873, 2873, 15032, 27191},
    {"EVA.mtx", 8497, 8497, 6726, 6726},
    {"cage4.mtx", 9, 9, 49, 49},
    {"cryg2500.mtx", 2500, 2500, 12349, 12349},
    {"dw8192.mtx", 8192, 8192, 41746, 41746},
    {"fidap_ex6.mtx", 1651, 1651, 49533, 49533},
    {"lp_ship04l.mtx", 402, 2166, 6380, 6380},
    {"mahindas.mtx", 1258, 1258, 7682, 7682},
    {"olm1000.mtx", 1000, 1000, 3996, 3996},
    {"pores_1.mtx", 30, 30, 180, 180},
    {"qh1484.mtx", 1484, 1484, 6110, 6110},
    {"rajat11.mtx", 135, 135, 812, 812},
    {"rdb2048.mtx", 2048, 2048, 12032, 12032},
    {"sherman1.mtx", 1000, 1000, 3750, 3750},
    {"sherman2.mtx", 1080, 1080, 23094, 23094},
    {"sherman3.mtx", 5005, 5005, 20033, 20033},
    {"sherman4.mtx", 1104, 1104, 3786, 3786},
    {"sherman5.mtx", 3312, 3312, 20793, 20793},
    {"west0067.mtx", 67, 67, 294, 294},
    {"west0479.mtx", 479, 479, 1910, 1910},
};
static const int real_matrix_count = (int)(sizeof real_matrices / sizeof real_matrices[0]);

static bool is_matrix_file(const char *name)
{
    size_t n = strlen(name);
    return (n > 4 && strcmp(name + n - 4, ".mtx") == 0) ||
           (n > 7 && strcmp(name + n - 7, ".mtx.gz") == 0);
}

/* Read one file; check it against its README row if it has one. */
static bool check_file(const char *dir, const char *name)
{
    char path[4096 + 512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const real_matrix *m = NULL;
    for (int i = 0; i < real_matrix_count; i++)
        if (strcmp(real_matrices[i].file, name) == 0) m = &real_matrices[i];
    kryl_mtx_header h;
    kryl_coo coo;
    kryl_status st = kryl_mtx_read(path, &h, &coo);
#ifndef KRYL_HAVE_ZLIB
    if (strstr(name, ".gz") != NULL) {
        CHECK(st == KRYL_ERR_UNSUPPORTED, "%s without zlib: %s", name, kryl_last_error());
        return m != NULL;
    }
#endif
    CHECK(st == KRYL_SUCCESS, "%s: %s", name, kryl_last_error());
    if (st != KRYL_SUCCESS || m == NULL) return false;
    CHECK(h.nrows == m->nrows && h.ncols == m->ncols && h.entries == m->stored &&
              coo.count == m->expanded,
          "%s: %lld x %lld, %lld stored, %lld expanded; README: %lld x %lld, %lld, %lld", name,
          (long long)h.nrows, (long long)h.ncols, (long long)h.entries, (long long)coo.count,
          (long long)m->nrows, (long long)m->ncols, (long long)m->stored, (long long)m->expanded);
    kryl_coo_free(&coo);
    return true;
}

int main(void)
{
    const char *found = test_matrix_path(".");
    if (found == NULL) {
        printf("test_mtx_matrices: no test matrix directory, skipped\n");
        return TEST_SKIP_CODE;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", found);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    if (d == NULL) return test_summary("test_mtx_matrices");
    int listed = 0, files = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        if (!is_matrix_file(e->d_name)) continue;
        files++;
        listed += check_file(dir, e->d_name);
    }
    closedir(d);
    printf("test_mtx_matrices: %d files read, %d checked against the README\n", files, listed);
    CHECK(listed == real_matrix_count, "%d of the README's %d matrices found", listed,
          real_matrix_count);
    /* the compressed one by name, as other tests find it */
    const char *gz = test_matrix_path("bcsstk33.mtx.gz");
    CHECK(gz != NULL, "bcsstk33.mtx.gz not found");
#ifdef KRYL_HAVE_ZLIB
    kryl_coo coo;
    if (gz != NULL) {
        CHECK_OK(kryl_mtx_read(gz, NULL, &coo));
        CHECK(coo.nrows == 8738 && coo.count == 591904, "bcsstk33: %lld rows, %lld entries",
              (long long)coo.nrows, (long long)coo.count);
        kryl_coo_free(&coo);
    }
#endif
    return test_summary("test_mtx_matrices");
}
