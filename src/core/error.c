/* Status strings and the thread-local last-error message. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[1024];
static _Thread_local const char *last_where = "";

kryl_status kryl_error_set(kryl_status status, const char *where, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, args);
    va_end(args);
    last_where = where;
    return status;
}

kryl_status kryl_error_prefix(kryl_status status, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(last_message, prefix, n) == 0) return status;
    size_t shift = n + 2, len = strlen(last_message);
    if (shift >= sizeof last_message) return status;
    if (len + shift >= sizeof last_message) len = sizeof last_message - 1 - shift;
    /* "PREFIX: " + the message, cut to fit */
    memmove(last_message + shift, last_message, len);
    last_message[shift + len] = '\0';
    memcpy(last_message, prefix, n);
    memcpy(last_message + n, ": ", 2);
    return status;
}

const char *kryl_last_error(void) { return last_message; }

const char *kryl_last_error_location(void) { return last_where; }

const char *kryl_strerror(kryl_status status)
{
    switch (status) {
    case KRYL_SUCCESS: return "success";
    case KRYL_ERR_INVALID_ARGUMENT: return "invalid argument";
    case KRYL_ERR_DIMENSION_MISMATCH: return "dimension mismatch";
    case KRYL_ERR_CONTEXT_MISMATCH: return "objects belong to different contexts";
    case KRYL_ERR_UNSUPPORTED: return "not supported";
    case KRYL_ERR_BACKEND_UNAVAILABLE: return "backend unavailable";
    case KRYL_ERR_IO: return "input/output error";
    case KRYL_ERR_PARSE: return "malformed Matrix Market file";
    case KRYL_ERR_NOT_SQUARE: return "matrix is not square";
    case KRYL_ERR_NOT_SYMMETRIC: return "matrix is not symmetric";
    case KRYL_ERR_ZERO_DIAGONAL: return "zero diagonal entry";
    case KRYL_ERR_NOT_POSITIVE_DEFINITE: return "matrix is not positive definite";
    case KRYL_ERR_INDEX_OVERFLOW: return "index does not fit its type";
    case KRYL_ERR_INVALID_VALUE: return "NaN or Inf in input";
    case KRYL_ERR_INDEX_OUT_OF_RANGE: return "index out of range";
    case KRYL_ERR_FORMAT_UNSUITABLE: return "storage format unsuitable for this matrix";
    case KRYL_ERR_OUT_OF_MEMORY: return "out of host memory";
    case KRYL_ERR_DEVICE_OUT_OF_MEMORY: return "out of device memory";
    case KRYL_ERR_DEVICE: return "device error";
    case KRYL_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}
