/* The kryl command's subcommands and the helpers they share. */
#ifndef KRYL_TOOL_CLI_H
#define KRYL_TOOL_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "kryl.h"

#if defined(__GNUC__)
#define CLI_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF_LIKE(f, a)
#endif

/* Exit statuses of every subcommand. */
enum {
    CLI_EXIT_OK = 0,           /* done (for solve: converged) */
    CLI_EXIT_ERROR = 1,        /* an error or a usage mistake */
    CLI_EXIT_NOT_CONVERGED = 2 /* the solve ran but did not converge */
};

/* How the user called kryl, for commands we suggest: "kryl" when the PATH
 * found it, else the path given (set by main). */
extern const char *cli_program;

/* Subcommands: argv[0] is the subcommand's name. */
/* A rank its MPI launcher bound to one core takes its share of the host's
 * cores (rank_cores.c); true when it did, and kryl must start again for
 * the OpenMP runtime to count them. */
bool cli_rank_cores(void);
/* Whether the user placed the OpenMP threads (OMP_PROC_BIND other than
 * false, OMP_PLACES or GOMP_CPU_AFFINITY): the library's rule for a team
 * it never resizes (src/backends/omp/omp_team.c). */
bool cli_threads_placed(void);
/* The CPUs (hardware threads) this process may run on when the command
 * started (with placed threads, the OpenMP runtime's place for the main
 * thread). */
int cli_cpus(void);
/* Without OMP_WAIT_POLICY or GOMP_SPINCOUNT in the environment, start the
 * command again with passive OpenMP waits (wait_policy.c), and start it
 * again anyway where `restart`; returns when it did not. */
void cli_wait_policy(char **argv, bool restart);

int cmd_solve(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_spy(int argc, char **argv);

/* With --json, errors are also printed as {"error": message, "status":
 * kryl_status, "status_text": ...} on stdout (once), so that a script reads
 * one JSON object whatever happened; the exit status is unchanged. */
void cli_json_errors(bool on);

/* Print the JSON error object if cli_json_errors is on and none was printed. */
void cli_json_error(kryl_status status, const char *message);

/* Print "kryl: error: <kryl_last_error()>" (or the status's description)
 * to stderr; returns CLI_EXIT_ERROR. */
int cli_error(kryl_status status);

/* cli_error with `message` (NULL: the status's description). */
int cli_report(kryl_status status, const char *message);

/* While on, cli_error keeps a KRYL_ERR_DEVICE_OUT_OF_MEMORY to itself
 * instead of printing it (the caller solves on the host instead and says
 * why with cli_held_error). */
void cli_hold_device_errors(bool on);

/* The message of the last error held, or "". */
const char *cli_held_error(void);

/* Print "kryl: error: <message>" to stderr; returns CLI_EXIT_ERROR. */
int cli_error_message(const char *fmt, ...) CLI_PRINTF_LIKE(1, 2);

/* Create a context on `backend` (device ordinal, OpenMP threads; 0 =
 * defaults), deterministic or not (kryl_context_options).  A backend this
 * machine cannot run is reported as unavailable before the library is
 * asked to start it; every failure is printed. */
kryl_status cli_context_create(kryl_context *ctx, kryl_backend_kind backend, int device,
                               int threads, bool deterministic);

/* cli_context_create without printing: a failure's message goes to
 * message[size] (for a caller on another thread; cli_report prints it). */
kryl_status cli_context_open(kryl_context *ctx, kryl_backend_kind backend, int device, int threads,
                             bool deterministic, char *message, size_t size);

/* Monotonic wall-clock seconds. */
double cli_wtime(void);

/* While on, the library's log lines are dropped (the solvers advice tries
 * are not the user's). */
void cli_log_mute(bool mute);

/* Format seconds with a fitting unit ("850 us", "12.3 ms", "1.46 s") into
 * text[size]; returns text. */
const char *cli_format_seconds(char *text, size_t size, double seconds);

/* Format a byte count with a decimal unit ("594 B", "7.13 kB", "1.2 MB")
 * into text[size]; returns text. */
const char *cli_format_bytes(char *text, size_t size, double bytes);

/* A file named on the command line: the option that named it ("--out",
 * "the matrix") and its path (NULL: not given). */
typedef struct cli_path {
    const char *option, *path;
} cli_path;

/* Whether no output names an input or another output (the same device
 * and inode, or the same resolved name for files not yet there); prints
 * the error when one does. */
bool cli_outputs_distinct(const cli_path *inputs, int ninputs, const cli_path *outputs,
                          int noutputs);

/* The last path component of `path`. */
const char *cli_basename(const char *path);

/* The full help of `command` ("solve", ...) or of kryl itself (NULL);
 * false for an unknown command. */
bool help_print(const char *command, FILE *out);

/* The one-line usage of a subcommand. */
const char *help_usage(const char *command);

#endif
