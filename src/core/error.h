/* Error recording: one thread-local message behind kryl_last_error(). */
#ifndef KRYL_CORE_ERROR_H
#define KRYL_CORE_ERROR_H

#include "kryl.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KRYL_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define KRYL_PRINTF_LIKE(f, a)
#endif

/* Record `status` with a printf-style message for kryl_last_error() and
 * return `status`.  `where` is the source location, kept for debugging. */
kryl_status kryl_error_set(kryl_status status, const char *where, const char *fmt, ...)
    KRYL_PRINTF_LIKE(3, 4);

/* Prefix the recorded message with "PREFIX: " (the file being read, the
 * object being built) unless it starts with prefix already; returns status. */
kryl_status kryl_error_prefix(kryl_status status, const char *prefix);

#define KRYL_STR2_(x) #x
#define KRYL_STR_(x)  KRYL_STR2_(x)
#define KRYL_WHERE    __FILE__ ":" KRYL_STR_(__LINE__)

/* return KRYL_ERROR(KRYL_ERR_PARSE, "%s:%lld: expected ...", ...); */
#define KRYL_ERROR(status, ...) kryl_error_set((status), KRYL_WHERE, __VA_ARGS__)

/* Propagate a failing status to the caller. */
#define KRYL_TRY(expr)                                                                             \
    do {                                                                                           \
        kryl_status kryl_try_status_ = (expr);                                                     \
        if (kryl_try_status_ != KRYL_SUCCESS) return kryl_try_status_;                             \
    } while (0)

/* Jump to a cleanup label on failure, keeping the status in `st`. */
#define KRYL_CHECK_GOTO(st, expr, label)                                                           \
    do {                                                                                           \
        (st) = (expr);                                                                             \
        if ((st) != KRYL_SUCCESS) goto label;                                                      \
    } while (0)

/* Reject a NULL argument with a message naming it. */
#define KRYL_REQUIRE_ARG(p)                                                                        \
    do {                                                                                           \
        if ((p) == NULL)                                                                           \
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", __func__,    \
                              #p);                                                                 \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif
