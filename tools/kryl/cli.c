/* Helpers every subcommand uses: error reporting, the clock, file names. */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

int cli_error(kryl_status status)
{
    const char *message = kryl_last_error();
    if (message == NULL || message[0] == '\0') message = kryl_strerror(status);
    fprintf(stderr, "kryl: error: %s\n", message);
    return CLI_EXIT_ERROR;
}

int cli_error_message(const char *fmt, ...)
{
    va_list ap;
    fputs("kryl: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_EXIT_ERROR;
}

double cli_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *cli_format_seconds(char *text, size_t size, double seconds)
{
    /* thresholds just below 1 ms, 1 s and 1000 s keep "%.3g" from printing "1e+03" */
    if (seconds < 0.9995e-3)
        snprintf(text, size, "%.3g us", seconds * 1e6);
    else if (seconds < 0.9995)
        snprintf(text, size, "%.3g ms", seconds * 1e3);
    else if (seconds < 999.5)
        snprintf(text, size, "%.3g s", seconds);
    else
        snprintf(text, size, "%.0f s", seconds);
    return text;
}

const char *cli_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}
