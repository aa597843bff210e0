/* The team size of the omp backend on a machine other programs use.
 *
 * Without a wait policy chosen by the user, libgomp's threads spin at
 * every barrier; when another program holds a core, a barrier waits for a
 * descheduled thread a scheduler time slice at a time, and a solve of
 * thousands of parallel regions runs tens to hundreds of times slower than
 * on one thread.  libgomp reads OMP_WAIT_POLICY only when it is loaded, so
 * the library cannot change the policy; it changes the team instead: every
 * KRYL_OMP_SAMPLE_S it counts the runnable threads of other processes
 * (the machine's, from /proc/loadavg, less this process's, from
 * /proc/self/task) and picks the team by kryl_omp_team_for: the threads
 * asked for when their cores are free, else the free cores, else (at most
 * one core free) one thread, with no barrier to wait at.  The
 * host's setup work (generation, checks, patterns) takes the same team
 * (kryl_omp_host_team, through kryl_host_threads).  A user who sets
 * OMP_WAIT_POLICY or GOMP_SPINCOUNT has chosen and keeps the thread count
 * asked for, unless KRYL_OMP_ADAPT=1 asks for the adaptation next to that
 * policy (the kryl command sets it with its own; KRYL_OMP_ADAPT=0 turns
 * the adaptation off).  Threads bound to places (OMP_PROC_BIND,
 * OMP_PLACES, GOMP_CPU_AFFINITY) are never resized: the user has given
 * the program its cores. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/omp/omp_backend.h"

/* Seconds between two counts of the busy cores: a count costs tens of
 * microseconds, a team too large for the free cores a few milliseconds a
 * barrier. */
#define KRYL_OMP_SAMPLE_S     0.02
#define KRYL_OMP_GROW_SAMPLES 5
/* A count that finds the team too large is confirmed this soon by a second
 * before the team shrinks: one count in a hundred on an idle 2-core VM saw
 * a thread runnable for a moment, and a team shrunk for nothing stays so
 * for KRYL_OMP_GROW_SAMPLES counts. */
#define KRYL_OMP_CONFIRM_S 0.002

/* The whole of a small /proc file into buf (NUL-terminated), or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t got = read(fd, buf, size - 1);
    close(fd);
    if (got < 0) return -1;
    buf[got] = '\0';
    return got;
}

/* Runnable threads of the machine (the R of /proc/loadavg's "R/T"), or -1. */
static int machine_runnable(void)
{
    char buf[128];
    int running, total;
    double l1, l5, l15;
    if (read_small("/proc/loadavg", buf, sizeof buf) < 0) return -1;
    if (sscanf(buf, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total) != 5) return -1;
    return running;
}

/* Runnable threads of this process (state R in /proc/self/task/<tid>/stat), or -1. */
static int own_runnable(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL) return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", e->d_name);
        if (read_small(path, buf, sizeof buf) < 0) continue;
        /* "tid (comm) S ...": the state follows the last ')' */
        const char *close_paren = strrchr(buf, ')');
        if (close_paren != NULL && close_paren[1] == ' ' && close_paren[2] == 'R') count++;
    }
    closedir(dir);
    return count;
}

bool kryl_omp_threads_bound(void)
{
    const char *bind = getenv("OMP_PROC_BIND");
    return (bind != NULL && strcmp(bind, "false") != 0 && strcmp(bind, "FALSE") != 0) ||
           getenv("OMP_PLACES") != NULL || getenv("GOMP_CPU_AFFINITY") != NULL;
}

int kryl_omp_team_for(int cores, int others, int requested)
{
    int free_cores = cores - (others > 0 ? others : 0);
    if (requested <= free_cores || requested == 1) return requested;
    /* two or more cores free: a spinning team on them */
    if (free_cores >= 2) return free_cores;
    /* at most one core free: one thread, with no barrier to wait at (as
     * fast as passive waits or faster next to 1-10 busy programs on two
     * cores, where a larger team lost up to 5x: docs/BENCHMARKS.md, "a
     * thread alone") */
    return 1;
}

void kryl_omp_team_init(kryl_omp_state *s)
{
    s->max_threads = s->threads;
    const char *asked = getenv("KRYL_OMP_ADAPT");
    bool policy_chosen = getenv("OMP_WAIT_POLICY") != NULL || getenv("GOMP_SPINCOUNT") != NULL;
    /* threads bound to places keep the team asked for: a team resized
     * under binding ran 4-6x slower (docs/BENCHMARKS.md, "bound threads") */
    s->adapt = s->threads > 1 && !kryl_omp_threads_bound() &&
               (asked != NULL ? strcmp(asked, "1") == 0 : !policy_chosen);
    cpu_set_t set;
    s->cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (s->cores <= 0) s->adapt = false;
    s->next_sample = 0.0;
    s->room_samples = 0;
    s->crowded_samples = 0;
}

int kryl_omp_host_team(kryl_context ctx)
{
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    kryl_omp_team_refresh(s);
    return s->threads;
}

void kryl_omp_team_refresh(kryl_omp_state *s)
{
    if (!s->adapt) return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (now < s->next_sample) return;
    s->next_sample = now + KRYL_OMP_SAMPLE_S;
    int machine = machine_runnable(), own = own_runnable();
    if (machine < 0 || own < 0) {
        /* no /proc to count with: keep the threads asked for */
        s->adapt = false;
        s->threads = s->max_threads;
        return;
    }
    /* runnable threads of this process beyond a full team are the
     * application's own work, as busy as another program's */
    int ours = own < s->max_threads ? own : s->max_threads;
    int team = kryl_omp_team_for(s->cores, machine - ours, s->max_threads);
    /* leave the team asked for as soon as a second count confirms the
     * first (spinning next to a busy program costs milliseconds a
     * barrier); come back to it only after KRYL_OMP_GROW_SAMPLES counts in
     * a row found its cores free, so a build's pause between two compilers
     * does not bring the spinning back */
    bool back = team == s->max_threads && s->threads != s->max_threads;
    bool crowded = team < s->threads;
    s->room_samples = back ? s->room_samples + 1 : 0;
    s->crowded_samples = crowded ? s->crowded_samples + 1 : 0;
    if (crowded && s->crowded_samples < 2) {
        s->next_sample = now + KRYL_OMP_CONFIRM_S;
        return;
    }
    if (!back || s->room_samples >= KRYL_OMP_GROW_SAMPLES) {
        s->threads = team;
        s->room_samples = 0;
        s->crowded_samples = 0;
    }
}
