/* The host memory limit for reading and generating matrices (memory.h). */
#include "core/memory.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/host_threads.h"

/* 0: the default (KRYL_MAX_MEMORY, else available memory); -1: none. */
static _Atomic int64_t max_memory;

/* Parse "123", "64k", "512M", "8G", "8GB", "8GiB", "1T" (powers of 1024). */
static bool parse_bytes(const char *text, int64_t *bytes)
{
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || errno != 0 || !(v >= 0.0)) return false;
    static const char units[] = "kmgt";
    double scale = 1.0;
    if (*end != '\0') {
        const char *u = strchr(units, end[0] | 0x20);
        if (u == NULL) return false;
        for (const char *p = units; p <= u; p++) scale *= 1024.0;
        end++;
        if (end[0] == 'i' && (end[1] | 0x20) == 'b')
            end += 2;
        else if ((*end | 0x20) == 'b')
            end++;
    }
    if (*end != '\0' || v * scale >= 9.2e18) return false;
    *bytes = (int64_t)(v * scale);
    return true;
}

kryl_status kryl_parse_bytes(const char *text, int64_t *bytes)
{
    KRYL_REQUIRE_ARG(text);
    KRYL_REQUIRE_ARG(bytes);
    if (!parse_bytes(text, bytes))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "'%s': expected a size in bytes, optionally with k, M, G or T "
                          "(powers of 1024), e.g. 64G",
                          text);
    return KRYL_SUCCESS;
}

kryl_status kryl_set_max_memory(int64_t bytes)
{
    if (bytes < -1)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_set_max_memory: %lld bytes; expected a limit > 0, 0 for the "
                          "default or -1 for none",
                          (long long)bytes);
    atomic_store(&max_memory, bytes);
    return KRYL_SUCCESS;
}

/* MemAvailable of /proc/meminfo in bytes, else free pages; -1 if unknown. */
static int64_t available_memory(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f != NULL) {
        char line[256];
        long long kb = -1;
        while (fgets(line, sizeof line, f) != NULL)
            if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) break;
        fclose(f);
        if (kb >= 0) return (int64_t)kb * 1024;
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (int64_t)pages * size : -1;
}

int64_t kryl_memory_limit(const char **source)
{
    int64_t set = atomic_load(&max_memory);
    if (set != 0) {
        *source = "the limit set by kryl_set_max_memory or --max-memory";
        return set;
    }
    const char *env = getenv("KRYL_MAX_MEMORY");
    int64_t bytes;
    if (env != NULL && env[0] != '\0' && parse_bytes(env, &bytes)) {
        *source = "KRYL_MAX_MEMORY";
        return bytes > 0 ? bytes : -1;
    }
    *source = "the memory available (MemAvailable)";
    return available_memory();
}

int64_t kryl_bytes_mul_add(int64_t a, int64_t b, int64_t c)
{
    if (a != 0 && b > (INT64_MAX - c) / a) return INT64_MAX;
    return a * b + c;
}

const char *kryl_format_bytes(char *text, size_t size, int64_t bytes)
{
    static const char *units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 999.5 && u < 6) {
        v /= 1000.0;
        u++;
    }
    snprintf(text, size, u == 0 ? "%.0f %s" : "%.3g %s", v, units[u]);
    return text;
}

kryl_status kryl_memory_check(int64_t bytes, const char *what)
{
    const char *source = "";
    int64_t limit = kryl_memory_limit(&source);
    if (limit < 0 || bytes <= limit) return KRYL_SUCCESS;
    char need[32], have[32];
    return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                      "%s needs %s of host memory (%lld bytes), more than the %s of %s; give a "
                      "larger --max-memory (or KRYL_MAX_MEMORY) if it fits",
                      what, kryl_format_bytes(need, sizeof need, bytes), (long long)bytes,
                      kryl_format_bytes(have, sizeof have, limit), source);
}

void kryl_host_copy(void *dst, const void *src, size_t bytes, int threads)
{
    const size_t piece = (size_t)1 << 18;
    const int64_t pieces = (int64_t)((bytes + piece - 1) / piece);
    /* static: a few pieces each (the dynamic schedule's chunks of 512 would give one thread all) */
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t p = 0; p < pieces; p++) {
        const size_t at = (size_t)p * piece, left = bytes - at;
        memcpy((char *)dst + at, (const char *)src + at, left < piece ? left : piece);
    }
}
