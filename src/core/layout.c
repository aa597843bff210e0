/* Row layouts shared by a matrix and the vectors created from it. */
#include <stdlib.h>

#include "backends/backend.h"

kryl_layout *kryl_layout_retain(kryl_layout *layout)
{
    layout->refs++;
    return layout;
}

void kryl_layout_release(kryl_context ctx, kryl_layout *layout)
{
    if (layout == NULL || --layout->refs > 0) return;
    if (layout->perm_backend) ctx->ops->release(ctx, layout->perm_backend);
    free(layout->perm);
    free(layout);
}
