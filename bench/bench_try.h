/* BENCH_TRY(call): a kryl call of a benchmark; a failure ends the program
 * with the call, its status and the library's message. */
#ifndef KRYL_BENCH_TRY_H
#define KRYL_BENCH_TRY_H

#include <stdio.h>
#include <stdlib.h>

#include "kryl.h"

#define BENCH_TRY(call)                                                                            \
    do {                                                                                           \
        kryl_status bench_st_ = (call);                                                            \
        if (bench_st_ != KRYL_SUCCESS) {                                                           \
            fprintf(stderr, "%s failed: %s: %s\n", #call, kryl_strerror(bench_st_),                \
                    kryl_last_error());                                                            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
