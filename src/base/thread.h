/*
 * thread: a deadline some milliseconds ahead on a clock, for the timed waits
 * of s3c, and how many cores its threads may use. The worker pools are
 * base/workpool.h.
 */
#ifndef S3C_BASE_THREAD_H
#define S3C_BASE_THREAD_H

#include <pthread.h>
#include <time.h>

/* 'clk' now plus 'ms' milliseconds (for pthread_cond_timedwait: CLOCK_REALTIME). */
void thread_deadline(clockid_t clk, long ms, struct timespec *out);

/*
 * The cores this process may keep busy: its affinity mask (taskset, Slurm's
 * cpusets, a container's cpuset), lowered to a cgroup v2 CPU quota (cpu.max,
 * as Kubernetes' CPU limits set it) on its cgroup or any above it; at least 1.
 * What sizes the event loops and the hash workers: a thread more than the
 * cores only takes turns with the others.
 */
int thread_cores(void);

/* cpu.max's text ("QUOTA PERIOD" or "max PERIOD"): the cores it allows, rounded up; 0 for no limit. */
int thread_quota_cores(const char *cpu_max);

#endif
