/*
 * lag: a probe that catches an event-loop thread blocked outside its poll.
 * Off unless S3C_LOOP_LAG_MS=N is set (the e2e harness sets it for every
 * command); then each thread that declared itself a loop (lag_loop_enter)
 * measures every stretch between two waits (lag_wait_begin .. _end mark the
 * poll, or an idle wait that stands for it) and reports each stretch in
 * which it was blocked longer than N ms.
 *
 * "Blocked" is neither running nor waiting for a CPU: the stretch's wall
 * time less its CPU time less its run-queue time, both from the kernel's
 * schedstat of the thread (/proc/thread-self/schedstat). So a loaded
 * machine (the thread preempted: run-queue time) or a slow build (ASan:
 * CPU time) does not fire it; a thread asleep in getaddrinfo, fdatasync,
 * posix_fallocate's writes, nanosleep or a read from a slow disk does.
 * Without schedstat the probe counts wall less CPU time (preemption then
 * counts as blocked: a looser bound).
 *
 * A report is one line "s3c loop-lag: ..." appended to the file named by
 * S3C_LOOP_LAG_LOG (stderr when unset); the harness fails a test that left one.
 * Not a profiler: it says that a loop blocked and for how long, not on what.
 *
 * Threads: every function acts on the calling thread's own state alone.
 */
#ifndef S3C_BASE_LAG_H
#define S3C_BASE_LAG_H

#include <stddef.h>

/* This thread runs an event loop from now on (nestable: a count). */
void lag_loop_enter(void);

/* ... no longer. */
void lag_loop_leave(void);

/* The loop is about to wait for events: the stretch since the last wait ends here. */
void lag_wait_begin(void);

/* The wait is over: a new stretch starts. */
void lag_wait_end(void);

/*
 * The engine is about to call its source's next() / is back from it. A
 * loop that waits in between has stepped itself from inside the engine's
 * turn (a request run to its end there: its transfers' answers, hedges and
 * fills stalled meanwhile), which the time probe cannot see (the wait is a
 * poll). With the probe on, both are told to a preloaded checker that has
 * s3c_checker_in_next (tests/e2e/slowcalls.c reports such waits where a
 * test asks, S3C_CHECK_NEXT_WAITS=1). Nestable; nothing when off.
 */
void lag_next_begin(void);
void lag_next_end(void);

/*
 * 'n' bytes were just hashed in one call (an MD5, a SHA or a CRC: 'what') on
 * this thread. On a loop thread with the probe on, more than
 * LAG_HASH_MAX_BYTES is reported as a "loop-block" (the harness fails the
 * test): hashing is CPU, which the time probe does not count, yet it holds
 * every transfer of the loop, and belongs to the hash workers (DESIGN.md
 * section 4). Small bodies (a request's XML, an upload of 64 KiB or less)
 * and the pieces a transfer's bytes arrive in stay under the bound.
 */
#define LAG_HASH_MAX_BYTES ((size_t)1 << 20)
void lag_hashed(const char *what, size_t n);

#endif
