/* Command-line option parsing: table lookup, strict number parsing. */
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

args_result args_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "kryl %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\nRun 'kryl help %s' for the options.\n", help_usage(command),
            command);
    return ARGS_ERROR;
}

/* The spec whose name or alias is `name` (the part before any '='). */
static const arg_spec *find_spec(const arg_spec *specs, int nspecs, const char *name, size_t length)
{
    for (int i = 0; i < nspecs; i++) {
        const char *names[2] = {specs[i].name, specs[i].alias};
        for (int k = 0; k < 2; k++)
            if (names[k] != NULL && strlen(names[k]) == length &&
                strncmp(names[k], name, length) == 0)
                return &specs[i];
    }
    return NULL;
}

/* Parse the whole of `text` as a finite double. */
static bool parse_double(const char *text, double *value)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) return false;
    *value = v;
    return true;
}

/* Parse the whole of `text` as a decimal int64. */
static bool parse_int64(const char *text, int64_t *value)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE) return false;
    *value = (int64_t)v;
    return true;
}

/* Store `value` of option `opt` into its target. */
static args_result set_value(const char *command, const arg_spec *opt, const char *value)
{
    double d;
    int64_t n;
    switch (opt->type) {
    case ARG_FLAG: *(bool *)opt->target = true; break;
    case ARG_STRING:
        if (value[0] == '\0') return args_usage_error(command, "%s needs a value", opt->name);
        *(const char **)opt->target = value;
        break;
    case ARG_DOUBLE:
    case ARG_REAL:
        if (!parse_double(value, &d))
            return args_usage_error(command, "%s: '%s' is not a finite number", opt->name, value);
        if (opt->type == ARG_DOUBLE && d < 0.0)
            return args_usage_error(command, "%s: '%s' is negative", opt->name, value);
        *(double *)opt->target = d;
        break;
    case ARG_COUNT:
    case ARG_POSITIVE:
    case ARG_EVERY:
        if (!parse_int64(value, &n))
            return args_usage_error(command, "%s: '%s' is not an integer", opt->name, value);
        if (n < (opt->type == ARG_COUNT ? 0 : 1))
            return args_usage_error(command, "%s: '%s' must be %s", opt->name, value,
                                    opt->type == ARG_COUNT ? "0 or more" : "at least 1");
        *(int64_t *)opt->target = n;
        break;
    case ARG_MEMORY:
        if (kryl_parse_bytes(value, &n) != KRYL_SUCCESS)
            return args_usage_error(command, "%s: %s", opt->name, kryl_last_error());
        kryl_set_max_memory(n > 0 ? n : -1);
        break;
    }
    if (opt->given != NULL) *opt->given = true;
    return ARGS_OK;
}

args_result args_parse(const char *command, int argc, char **argv, const arg_spec *specs,
                       int nspecs, const char **positional, int max_positional, int *npositional)
{
    bool options_done = false;
    *npositional = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            if (*npositional >= max_positional)
                return args_usage_error(command, "unexpected argument '%s'", arg);
            positional[(*npositional)++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            help_print(command, stdout);
            return ARGS_HELP;
        }
        const char *eq = strchr(arg, '=');
        size_t length = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
        const arg_spec *opt = find_spec(specs, nspecs, arg, length);
        if (opt == NULL)
            return args_usage_error(command, "unknown option '%.*s'", (int)length, arg);
        const char *value = NULL;
        if (opt->type == ARG_FLAG) {
            if (eq != NULL) return args_usage_error(command, "%s takes no value", opt->name);
        } else if (eq != NULL) {
            value = eq + 1;
        } else if (opt->type == ARG_EVERY) {
            /* the count is optional: take the next argument only if it is one */
            int64_t n;
            value = i + 1 < argc && parse_int64(argv[i + 1], &n) ? argv[++i] : "1";
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return args_usage_error(command, "%s needs a value", opt->name);
        }
        args_result r = set_value(command, opt, value);
        if (r != ARGS_OK) return r;
    }
    return ARGS_OK;
}
