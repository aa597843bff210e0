/* Helpers every subcommand uses: error reporting, contexts, the clock,
 * units for humans, file names. */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "cli_mpi.h"
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool json_errors = false;

void cli_json_errors(bool on) { json_errors = on; }

void cli_json_error(kryl_status status, const char *message)
{
    if (!json_errors) return;
    json_errors = false; /* one object */
    json_writer w;
    json_init(&w, stdout);
    json_begin(&w, NULL);
    json_string(&w, "error", message);
    json_int(&w, "status", status);
    json_string(&w, "status_text", kryl_strerror(status));
    json_end(&w);
    fflush(stdout);
}

static bool hold_device_errors = false;
static char held_error[1024];

void cli_hold_device_errors(bool on) { hold_device_errors = on; }

const char *cli_held_error(void) { return held_error; }

int cli_error(kryl_status status)
{
    const char *message = kryl_last_error();
    return cli_report(status, message != NULL && message[0] != '\0' ? message : NULL);
}

int cli_report(kryl_status status, const char *message)
{
    if (message == NULL) message = kryl_strerror(status);
    if (hold_device_errors && status == KRYL_ERR_DEVICE_OUT_OF_MEMORY) {
        snprintf(held_error, sizeof held_error, "%s", message);
        return CLI_EXIT_ERROR;
    }
    fprintf(stderr, "kryl: error: %s\n", message);
    cli_json_error(status, message);
    return CLI_EXIT_ERROR;
}

int cli_error_message(const char *fmt, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    fprintf(stderr, "kryl: error: %s\n", message);
    /* the library's status for what the message says is not known here */
    cli_json_error(KRYL_ERR_INVALID_ARGUMENT, message);
    return CLI_EXIT_ERROR;
}

static bool log_muted;

void cli_log_mute(bool mute) { log_muted = mute; }

/* Library messages on stderr: "kryl: warning: ..." */
static void log_to_stderr(kryl_log_level level, const char *message, void *user)
{
    static const char *names[] = {"error", "warning", "info", "debug"};
    (void)user;
    if (log_muted) return;
    if (strncmp(message, "kryl: ", 6) == 0) message += 6; /* one prefix is enough */
    fprintf(stderr, "kryl: %s: %s\n", names[level <= KRYL_LOG_DEBUG ? level : KRYL_LOG_DEBUG],
            message);
}

/* The level KRYL_LOG names (default warning; an unknown name is reported). */
static kryl_log_level log_level_from_environment(void)
{
    static const char *names[] = {"error", "warning", "info", "debug"};
    const char *value = getenv("KRYL_LOG");
    if (value == NULL || value[0] == '\0') return KRYL_LOG_WARNING;
    for (int level = KRYL_LOG_ERROR; level <= KRYL_LOG_DEBUG; level++)
        if (strcmp(value, names[level]) == 0) return (kryl_log_level)level;
    fprintf(stderr, "kryl: warning: KRYL_LOG=%s: expected error, warning, info or debug\n", value);
    return KRYL_LOG_WARNING;
}

kryl_status cli_context_open(kryl_context *ctx, kryl_backend_kind backend, int device, int threads,
                             bool deterministic, char *message, size_t size)
{
    *ctx = NULL;
    if (backend != KRYL_BACKEND_AUTO && !kryl_backend_available(backend)) {
        snprintf(message, size, "the %s backend is unavailable here (%s)",
                 kryl_backend_name(backend),
                 backend == KRYL_BACKEND_CUDA ? "not built, or no usable GPU" : "not built");
        return KRYL_ERR_BACKEND_UNAVAILABLE;
    }
    kryl_context_options options;
    kryl_context_options_init(&options);
    options.backend = backend;
    options.device = device;
    options.threads = threads;
    options.deterministic = deterministic;
    options.log = log_to_stderr;
    options.log_level = log_level_from_environment();
    kryl_status st =
        cli_mpi_active() ? cli_mpi_context(ctx, &options) : kryl_context_create(ctx, &options);
    const char *error = kryl_last_error();
    if (st != KRYL_SUCCESS)
        snprintf(message, size, "%s",
                 error != NULL && error[0] != '\0' ? error : kryl_strerror(st));
    return st;
}

kryl_status cli_context_create(kryl_context *ctx, kryl_backend_kind backend, int device,
                               int threads, bool deterministic)
{
    char message[1024];
    kryl_status st =
        cli_context_open(ctx, backend, device, threads, deterministic, message, sizeof message);
    if (st != KRYL_SUCCESS) cli_report(st, message);
    return st;
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

const char *cli_format_bytes(char *text, size_t size, double bytes)
{
    /* decimal units; thresholds just below 1000 keep "%.3g" from printing "1e+03" */
    static const char *units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (bytes >= 999.5 && u < 5) {
        bytes /= 1000.0;
        u++;
    }
    if (u == 0)
        snprintf(text, size, "%.0f B", bytes);
    else
        snprintf(text, size, "%.3g %s", bytes, units[u]);
    return text;
}

const char *cli_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}
