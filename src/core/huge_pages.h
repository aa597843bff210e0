/* Transparent huge pages for large host arrays that are written whole. */
#ifndef KRYL_CORE_HUGE_PAGES_H
#define KRYL_CORE_HUGE_PAGES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Ask the kernel to back the 2 MiB-aligned part of [p, p + bytes) with huge
 * pages when it is at least KRYL_HUGE_PAGES_MIN bytes (a no-op elsewhere, or
 * where the kernel declines): the first write then takes one page fault per
 * 2 MiB instead of one per 4 KiB, which is much of the time of reading a
 * large matrix file.  KRYL_HUGE_PAGES=0 in the environment turns it off. */
void kryl_advise_huge_pages(void *p, size_t bytes);

/* malloc(bytes) and calloc(count, size), advised as above before their
 * first write: for the large arrays that threads fill, or index at random
 * (one TLB entry per 2 MiB); freed with free(). */
void *kryl_huge_malloc(size_t bytes);
void *kryl_huge_calloc(size_t count, size_t size);

#define KRYL_HUGE_PAGES_MIN ((size_t)8 << 20)

#ifdef __cplusplus
}
#endif

#endif
