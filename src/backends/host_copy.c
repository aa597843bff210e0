/* The link copies of the host backends (backend.h): their memory is host
 * memory, so a copy is a memcpy, done when it returns. */
#include <string.h>

#include "backends/host_step.h"

kryl_status kryl_host_copy_async(kryl_context ctx, void *dst, const void *src, size_t bytes)
{
    (void)ctx;
    if (bytes > 0) memcpy(dst, src, bytes);
    return KRYL_SUCCESS;
}

kryl_status kryl_host_copy_wait(kryl_context ctx)
{
    (void)ctx;
    return KRYL_SUCCESS;
}

kryl_status kryl_host_pin(kryl_context ctx, void *ptr, size_t bytes)
{
    (void)ctx;
    (void)ptr;
    (void)bytes;
    return KRYL_SUCCESS;
}

void kryl_host_unpin(kryl_context ctx, void *ptr)
{
    (void)ctx;
    (void)ptr;
}
