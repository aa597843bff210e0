/* Output paths that must not name an input or each other. */
#define _XOPEN_SOURCE 700 /* realpath */

#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "DIR/NAME" with DIR resolved (symbolic links, "..") into buf; false when
 * DIR does not exist. */
static bool canonical(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash != NULL ? (int)(slash - path) : 1,
             slash != NULL ? (slash == path ? "/" : path) : ".");
    char *real = realpath(dir, NULL);
    if (real == NULL) return false;
    snprintf(buf, size, "%s/%s", real, slash != NULL ? slash + 1 : path);
    free(real);
    return true;
}

/* Whether a and b name one file: the same device and inode when both
 * exist, else the same resolved name. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb) return false;
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
    return canonical(a, ca, sizeof ca) && canonical(b, cb, sizeof cb) && strcmp(ca, cb) == 0;
}

bool cli_outputs_distinct(const cli_path *inputs, int ninputs, const cli_path *outputs,
                          int noutputs)
{
    for (int o = 0; o < noutputs; o++) {
        if (outputs[o].path == NULL) continue;
        for (int i = 0; i < ninputs; i++)
            if (inputs[i].path != NULL && same_file(outputs[o].path, inputs[i].path)) {
                cli_error_message("%s %s is the same file as %s %s: refusing to overwrite an input",
                                  outputs[o].option, outputs[o].path, inputs[i].option,
                                  inputs[i].path);
                return false;
            }
        for (int p = 0; p < o; p++)
            if (outputs[p].path != NULL && same_file(outputs[o].path, outputs[p].path)) {
                cli_error_message("%s %s and %s %s name the same file: give each output its "
                                  "own path",
                                  outputs[p].option, outputs[p].path, outputs[o].option,
                                  outputs[o].path);
                return false;
            }
    }
    return true;
}
