/* The cores of one rank of the kryl command.  Open MPI binds each of one or
 * two ranks to a single core unless told otherwise, and the host threads of
 * a rank (generation, reading, AMG's setup over ranks: OpenMP) then share
 * that core: 7-point 256^3 AMG over two ranks of a 32-core host set up in
 * 21 s against 5.5 s unbound (docs/BENCHMARKS.md, "a plain mpirun").  A
 * rank that its launcher bound to one core, where its share of the host is
 * more (the cores this process may use over the ranks on the host), takes
 * that share instead: local rank r of k the r-th k-th of its cores (each
 * core with its hardware threads), in the order of their CPUs.  A user who
 * placed the threads (OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY) keeps
 * the launcher's binding. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
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

/* The hardware threads of the core that runs CPU `cpu` (Linux's topology;
 * that CPU alone where it cannot be read). */
static void core_of(int cpu, cpu_set_t *core)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    CPU_ZERO(core);
    FILE *f = fopen(path, "r");
    /* a list such as "3,35" or "6-7" */
    long first = 0, last = 0;
    int sep = ',';
    while (f != NULL && sep == ',' && fscanf(f, "%ld", &first) == 1) {
        last = first;
        sep = fgetc(f);
        if (sep == '-' && fscanf(f, "%ld", &last) == 1) sep = fgetc(f);
        for (long c = first; c <= last && c >= 0 && c < CPU_SETSIZE; c++) CPU_SET((int)c, core);
    }
    if (f != NULL) fclose(f);
    if (!CPU_ISSET(cpu, core)) {
        CPU_ZERO(core);
        CPU_SET(cpu, core);
    }
}

/* The cores of the CPUs in `usable`, in the order of their first CPUs:
 * *share = the CPUs (in usable) of cores first to last - 1; their count. */
static long walk_cores(const cpu_set_t *usable, long first, long last, cpu_set_t *share)
{
    cpu_set_t seen, core;
    long count = 0;
    CPU_ZERO(&seen);
    CPU_ZERO(share);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, usable) && !CPU_ISSET(c, &seen)) {
            core_of(c, &core);
            CPU_AND(&core, &core, usable);
            CPU_OR(&seen, &seen, &core);
            if (count >= first && count < last) CPU_OR(share, share, &core);
            count++;
        }
    return count;
}

/* The CPUs of the process when the command started. */
static int start_cpus;

bool cli_rank_cores(void)
{
    long rank = 0, size = 1;
    cpu_set_t bound, usable, share, core;
    if (sched_getaffinity(0, sizeof bound, &bound) != 0) return false;
    start_cpus = CPU_COUNT(&bound);
    if (cli_threads_placed() || !local_rank(&rank, &size)) return false;
    /* bound to one core: one CPU, or the hardware threads of one core */
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &bound)) cpu++;
    if (cpu == CPU_SETSIZE) return false;
    core_of(cpu, &core);
    CPU_AND(&core, &core, &bound);
    if (!CPU_EQUAL(&core, &bound)) return false;
    /* the CPUs this process may use: the kernel keeps those of a full mask its cpuset allows */
    CPU_ZERO(&usable);
    for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &usable);
    if (sched_setaffinity(0, sizeof usable, &usable) != 0 ||
        sched_getaffinity(0, sizeof usable, &usable) != 0) {
        (void)sched_setaffinity(0, sizeof bound, &bound);
        return false;
    }
    /* their cores in order: rank r of k takes the r-th k-th of them */
    const long total = walk_cores(&usable, 0, 0, &share);
    const long first = rank * total / size, last = (rank + 1) * total / size;
    walk_cores(&usable, first, last, &share);
    if (last - first > 1 && sched_setaffinity(0, sizeof share, &share) == 0) return true;
    (void)sched_setaffinity(0, sizeof bound, &bound);
    return false;
}

int cli_cpus(void) { return start_cpus; }
