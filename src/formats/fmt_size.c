/* Footprint arithmetic shared by the formats: saturating products, the
 * padding/fill refusal rule and its message, counts for humans, and
 * allocation with a message. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "formats/fmt_internal.h"

int64_t fmt_mul_sat(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0) return 0;
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

const char *fmt_count(char *buf, size_t size, double x)
{
    if (x < 1e4)
        snprintf(buf, size, "%.0f", x);
    else if (x < 1e6)
        snprintf(buf, size, "%.3g k", x / 1e3);
    else if (x < 1e9)
        snprintf(buf, size, "%.3g M", x / 1e6);
    else
        snprintf(buf, size, "%.3g G", x / 1e9);
    return buf;
}

/* "1.19", "672", "93000" (no exponents) */
static void fmt_ratio(char *buf, size_t size, double r)
{
    snprintf(buf, size, r < 100.0 ? "%.3g" : "%.0f", r);
}

bool fmt_padding_within(int64_t stored, int64_t nnz, double limit)
{
    const double measured = (double)(nnz > FMT_MIN_MEASURED_NNZ ? nnz : FMT_MIN_MEASURED_NNZ);
    return (double)stored <= limit * measured;
}

void fmt_judge_padding(fmt_size *size, kryl_format kind, int64_t nnz, double limit,
                       const char *shape, const char *product, const char *word,
                       const char *alternatives)
{
    size->suitable = fmt_padding_within(size->stored, nnz, limit);
    if (size->suitable) return;
    /* ratio = stored / nnz, the quantity the limit bounds */
    char stored[32], count[32], ratio[32];
    fmt_ratio(ratio, sizeof ratio, (double)size->stored / (double)(nnz > 0 ? nnz : 1));
    snprintf(size->why, sizeof size->why,
             "%s: %s would store %s%s slots for %s nonzeros (%sx; limit %.3gx); use %s",
             kryl_format_name(kind), shape, product,
             fmt_count(stored, sizeof stored, (double)size->stored),
             fmt_count(count, sizeof count, (double)nnz), ratio, limit, alternatives);
    snprintf(size->brief, sizeof size->brief, "%s %sx > %.3gx", word, ratio, limit);
}

void *fmt_calloc(int64_t count, size_t elem)
{
    if (count < 0 || (uint64_t)count > SIZE_MAX / elem) return NULL;
    return calloc(count > 0 ? (size_t)count : 1, elem);
}

kryl_status fmt_out_of_memory(const char *what, int64_t count, size_t elem)
{
    return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                      "formats: cannot allocate %s: %" PRId64 " elements of %zu bytes", what, count,
                      elem);
}
