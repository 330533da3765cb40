/*
 * stop: the run's one stop flag. A signal handler (SIGINT, SIGTERM) or a
 * writer that met a closed stdout (its reader left: EPIPE, or an HTTP loop saw
 * the pipe's reader go while it waited) sets it; every
 * wait of the program looks at it and ends promptly: the HTTP loops
 * (http_loop_step cuts off what is in flight, http_do returns), retry
 * backoffs, listings (through the loop), the engine (xfer_cancel too).
 * Lock-free: safe in a signal handler and from any thread.
 */
#ifndef S3C_BASE_STOP_H
#define S3C_BASE_STOP_H

#include <stdbool.h>

/* Why the run stops: a signal's number, or STOP_READER_GONE. */
#define STOP_READER_GONE (-1)

/* Ask every wait to end; the first reason is the one kept. Async-signal-safe. */
void stop_request(int why);

/* Also call 'fn' (async-signal-safe itself) when a stop is first asked: how a
 * module with a flag of its own (the engine's xfer_cancel) hears of it. One hook. */
void stop_hook(void (*fn)(void));

/* 0 while nobody asked, else the reason given first (SIGINT, SIGTERM, STOP_READER_GONE). */
int stop_requested(void);


#endif
