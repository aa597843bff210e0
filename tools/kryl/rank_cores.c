/* The cores of one rank of the kryl command.  Open MPI binds each of one or
 * two ranks to a single core unless told otherwise, and the host threads of
 * a rank (generation, reading, AMG's setup over ranks: OpenMP) then share
 * that core: 7-point 256^3 AMG over two ranks of a 32-core host set up in
 * 21 s against 5.5 s unbound (docs/BENCHMARKS.md, "a plain mpirun").  A
 * rank that its launcher bound to one core, where its share of the host is
 * more (the cores this process may use over the ranks on the host), takes
 * that share instead: local rank r of k the r-th of k equal runs of the
 * cores in order.  A user who placed the threads (OMP_PROC_BIND,
 * OMP_PLACES, GOMP_CPU_AFFINITY) keeps the launcher's binding. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

bool cli_threads_placed(void)
{
    const char *bind = getenv("OMP_PROC_BIND");
    return (bind != NULL && strcmp(bind, "false") != 0 && strcmp(bind, "FALSE") != 0) ||
           getenv("OMP_PLACES") != NULL || getenv("GOMP_CPU_AFFINITY") != NULL;
}

/* A non-negative integer from the environment, or -1. */
static long env_count(const char *name)
{
    const char *text = getenv(name);
    char *end = NULL;
    long v = text != NULL && text[0] != '\0' ? strtol(text, &end, 10) : -1;
    return end != NULL && *end == '\0' && v >= 0 ? v : -1;
}

/* This rank's place among the ranks of its host, from the environment of
 * Open MPI's or MPICH's launcher; false without one. */
static bool local_rank(long *rank, long *size)
{
    static const char *const names[][2] = {
        {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
        {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        *rank = env_count(names[k][0]);
        *size = env_count(names[k][1]);
        if (*rank >= 0 && *size > *rank) return true;
    }
    return false;
}

/* The cores of the process when the command started. */
static int start_cores;

bool cli_rank_cores(void)
{
    long rank = 0, size = 1;
    cpu_set_t bound, usable, share;
    if (sched_getaffinity(0, sizeof bound, &bound) != 0) return false;
    start_cores = CPU_COUNT(&bound);
    if (start_cores != 1 || cli_threads_placed() || !local_rank(&rank, &size)) return false;
    /* the cores this process may use: the kernel keeps those of a full mask that its cpuset allows
     */
    CPU_ZERO(&usable);
    for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &usable);
    if (sched_setaffinity(0, sizeof usable, &usable) != 0 ||
        sched_getaffinity(0, sizeof usable, &usable) != 0) {
        (void)sched_setaffinity(0, sizeof bound, &bound);
        return false;
    }
    const long total = CPU_COUNT(&usable), first = rank * total / size,
               last = (rank + 1) * total / size;
    CPU_ZERO(&share);
    for (long c = 0, k = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &usable)) {
            if (k >= first && k < last) CPU_SET(c, &share);
            k++;
        }
    if (last - first > 1 && sched_setaffinity(0, sizeof share, &share) == 0) return true;
    (void)sched_setaffinity(0, sizeof bound, &bound);
    return false;
}

int cli_cores(void) { return start_cores; }
