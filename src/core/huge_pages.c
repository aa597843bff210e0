/* madvise(MADV_HUGEPAGE) where Linux offers it (huge_pages.h). */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE */
#include "core/huge_pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

void kryl_advise_huge_pages(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (p == NULL || bytes < KRYL_HUGE_PAGES_MIN) return;
    const char *env = getenv("KRYL_HUGE_PAGES");
    if (env != NULL && env[0] == '0') return;
    uintptr_t begin = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t end = ((uintptr_t)p + bytes) & ~(huge - 1);
    /* advice only: a kernel without it (or with THP off) leaves the pages as they are */
    if (end > begin) (void)madvise((void *)begin, end - begin, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

void *kryl_huge_malloc(size_t bytes)
{
    void *p = malloc(bytes);
    kryl_advise_huge_pages(p, bytes);
    return p;
}

void *kryl_huge_calloc(size_t count, size_t size)
{
    /* a large calloc maps fresh zero pages: the advice comes before their first write */
    void *p = calloc(count, size);
    if (p != NULL) kryl_advise_huge_pages(p, count * size);
    return p;
}
