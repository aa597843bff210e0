/* Command-line option parsing for the kryl subcommands: a table of options,
 * strict value checks and usage messages that name the bad option. */
#ifndef KRYL_TOOL_ARGS_H
#define KRYL_TOOL_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

typedef enum arg_type {
    ARG_FLAG,     /* bool, no value */
    ARG_STRING,   /* const char * */
    ARG_DOUBLE,   /* double >= 0, finite */
    ARG_REAL,     /* any finite double */
    ARG_COUNT,    /* int64_t >= 0 */
    ARG_POSITIVE, /* int64_t >= 1 */
    ARG_MEMORY,   /* a size ("64G"; 0: none) set as the process's memory limit
                   * (kryl_set_max_memory); target unused */
    ARG_BYTES,    /* a size ("2G", kryl_parse_bytes) into an int64_t */
    ARG_EVERY,    /* int64_t >= 1, the value optional: "--monitor" alone is 1 */
    ARG_SOLVER    /* no name of its own: every option of the library's table
                   * (kryl_solver_options_set), target an args_solver * */
} arg_type;

/* Where ARG_SOLVER options go, and which of them were given. */
#define ARGS_SOLVER_MAX_GIVEN 64
typedef struct args_solver {
    kryl_solver_options *options;
    char given[ARGS_SOLVER_MAX_GIVEN][32]; /* names without dashes */
    int ngiven;
} args_solver;

/* Whether the solver option `name` ("precond") was given. */
bool args_solver_given(const args_solver *solver, const char *name);

typedef struct arg_spec {
    const char *name;  /* "--rtol" */
    const char *alias; /* "-o", or NULL */
    arg_type type;
    void *target; /* bool *, const char **, double * or int64_t * */
    bool *given;  /* set when the option appears, or NULL */
} arg_spec;

typedef enum args_result {
    ARGS_OK = 0,
    ARGS_HELP = 1, /* --help was given and printed: exit 0 */
    ARGS_ERROR = 2 /* a usage error was printed: exit 1 */
} args_result;

/* Parse argv[1..argc-1] of `command` against specs[0..nspecs-1]; the other
 * arguments are positional and go to positional[0..max_positional-1]
 * (*npositional of them).  Options take their value as the next argument
 * or after '='; "--" ends the options.  "--options-file FILE" reads the
 * options in FILE (kryl_options_file_read: lines or JSON) at that place, so
 * every option in specs can be given there under its own name. */
args_result args_parse(const char *command, int argc, char **argv, const arg_spec *specs,
                       int nspecs, const char **positional, int max_positional, int *npositional);

/* Parse the options in the environment variable `variable` (words split at
 * blanks, as the command line's; none when unset) against the specs; its
 * errors name the variable.  Call before args_parse: the command line wins. */
args_result args_parse_environment(const char *command, const char *variable, const arg_spec *specs,
                                   int nspecs);

/* Print "kryl COMMAND: <message>" and the command's short usage to stderr;
 * returns ARGS_ERROR. */
args_result args_usage_error(const char *command, const char *fmt, ...) CLI_PRINTF_LIKE(2, 3);

#endif
