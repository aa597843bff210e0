/* The communication thread of task mode (Kreutzer et al. 2012, section
 * 3.3): it posts and completes a halo exchange while the calling thread
 * computes the local product.  The calling thread makes no MPI call in
 * the meantime, so MPI_THREAD_SERIALIZED suffices. */
#include <pthread.h>
#include <stdlib.h>

#include "dist/dist_internal.h"

enum { IDLE = 0, WORK = 1, DONE = 2, QUIT = 3 };

struct kryl_comm_thread {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int state;
    struct kryl_dist_context *dc;
    struct kryl_dist_matrix *d;
    kryl_precision precision;
    kryl_status status;
};

static void *comm_main(void *arg)
{
    struct kryl_comm_thread *t = arg;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (t->state != WORK && t->state != QUIT) pthread_cond_wait(&t->cond, &t->lock);
        if (t->state == QUIT) break;
        pthread_mutex_unlock(&t->lock);
        kryl_status st = kryl_dist_exchange_post(t->dc, t->d, t->precision);
        if (st == KRYL_SUCCESS) st = kryl_dist_exchange_wait(t->d);
        pthread_mutex_lock(&t->lock);
        t->status = st;
        t->state = DONE;
        pthread_cond_broadcast(&t->cond);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

kryl_status kryl_comm_thread_start(struct kryl_comm_thread **out)
{
    *out = NULL;
    struct kryl_comm_thread *t = calloc(1, sizeof *t);
    if (t == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a thread");
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->cond, NULL);
    if (pthread_create(&t->thread, NULL, comm_main, t) != 0) {
        pthread_cond_destroy(&t->cond);
        pthread_mutex_destroy(&t->lock);
        free(t);
        return KRYL_ERROR(KRYL_ERR_INTERNAL, "pthread_create failed for the communication thread");
    }
    *out = t;
    return KRYL_SUCCESS;
}

void kryl_comm_thread_run(struct kryl_comm_thread *t, struct kryl_dist_context *dc,
                          struct kryl_dist_matrix *d, kryl_precision precision)
{
    pthread_mutex_lock(&t->lock);
    t->dc = dc;
    t->d = d;
    t->precision = precision;
    t->state = WORK;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
}

kryl_status kryl_comm_thread_wait(struct kryl_comm_thread *t)
{
    pthread_mutex_lock(&t->lock);
    while (t->state != DONE) pthread_cond_wait(&t->cond, &t->lock);
    t->state = IDLE;
    kryl_status st = t->status;
    pthread_mutex_unlock(&t->lock);
    return st;
}

void kryl_comm_thread_stop(struct kryl_comm_thread *t)
{
    pthread_mutex_lock(&t->lock);
    t->state = QUIT;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    pthread_cond_destroy(&t->cond);
    pthread_mutex_destroy(&t->lock);
    free(t);
}
