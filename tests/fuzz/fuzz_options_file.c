/* libFuzzer harness for the options-file reader (lines of "--name value",
 * or a JSON object): each input is read as a file; a failure must carry a
 * message naming the file, and a file that reads must give settings that
 * each have a name and an origin naming the file, whose values the solver
 * options then take or refuse with a message, as kryl_solver_options_from_file
 * does on the same file. */
#define _GNU_SOURCE /* memfd_create */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kryl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failure with no message, or one that does not name the file: a defect. */
static void explained(kryl_status st, const char *path)
{
    if (st != KRYL_SUCCESS && strstr(kryl_last_error(), path) == NULL) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz.opts", 0);
    if (fd < 0) abort();
    if (size > 0 && write(fd, data, size) != (ssize_t)size) abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    kryl_option_setting *settings = NULL;
    int64_t count = -1;
    kryl_status st = kryl_options_file_read(path, &settings, &count);
    explained(st, path);
    if (st != KRYL_SUCCESS && (settings != NULL || count != 0)) abort();
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    for (int64_t k = 0; k < count; k++) {
        const kryl_option_setting *s = &settings[k];
        if (s->name == NULL || s->origin == NULL || strncmp(s->origin, path, strlen(path)) != 0)
            abort();
        /* each value is taken or refused with a message (names the option) */
        kryl_status set = kryl_solver_options_set(&o, s->name, s->value);
        if (set != KRYL_SUCCESS && kryl_last_error()[0] == '\0') abort();
    }
    kryl_options_file_free(settings, count);
    kryl_solver_options_init(&o);
    explained(kryl_solver_options_from_file(path, &o), path);
    close(fd);
    return 0;
}
