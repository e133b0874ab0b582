/*
 * libev (Debian libev-dev), for the `--event-loop libev` server option.
 *
 * lws's libev plugin (libwebsockets-evlib-ev) runs on a loop we create and pass
 * as a "foreign" loop, so the service thread turns it itself and lws never
 * blocks inside ev_run(loop, 0) or installs its SIGINT watcher.
 */
#ifndef LOCSTREAM_CLIBEV_SHIM_H
#define LOCSTREAM_CLIBEV_SHIM_H

#include <ev.h>
#include <stddef.h>
#include <stdlib.h>

/** A libev loop plus a repeating tick (see `locstream_ev_turn`). */
struct locstream_ev {
    struct ev_loop *loop;
    ev_timer tick;
    int ticked;
};

static void locstream_ev_tick_cb(struct ev_loop *loop, ev_timer *w, int revents) {
    (void)loop;
    (void)revents;
    ((struct locstream_ev *)((char *)w - offsetof(struct locstream_ev, tick)))->ticked = 1;
}

/**
 * A new epoll loop that leaves the signal mask alone, with a tick every
 * `tick_seconds`; NULL if epoll is unavailable.
 */
static inline struct locstream_ev *locstream_ev_new(double tick_seconds) {
    struct locstream_ev *ev = calloc(1, sizeof *ev);
    if (!ev) return NULL;
    ev->loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_NOSIGMASK);
    if (!ev->loop) {
        free(ev);
        return NULL;
    }
    ev_timer_init(&ev->tick, locstream_ev_tick_cb, tick_seconds, tick_seconds);
    ev_timer_start(ev->loop, &ev->tick);
    return ev;
}

/** The loop, for lws's `foreign_loops`. */
static inline void *locstream_ev_loop(struct locstream_ev *ev) { return ev->loop; }

/**
 * Waits for events (blocking if none are pending, at most one tick) and handles
 * them once. Returns 1 when the tick fired during this turn.
 */
static inline int locstream_ev_turn(struct locstream_ev *ev) {
    ev->ticked = 0;
    ev_run(ev->loop, EVRUN_ONCE);
    return ev->ticked;
}

/** Stops the tick and destroys the loop; lws must be done with it. */
static inline void locstream_ev_free(struct locstream_ev *ev) {
    ev_timer_stop(ev->loop, &ev->tick);
    ev_loop_destroy(ev->loop);
    free(ev);
}

#endif
