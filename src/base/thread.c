/* thread.c — deadlines, cores (see thread.h). */
#include "base/thread.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void thread_deadline(clockid_t clk, long ms, struct timespec *out)
{
    clock_gettime(clk, out);
    out->tv_sec += ms / 1000;
    out->tv_nsec += (ms % 1000) * 1000000L;
    if (out->tv_nsec >= 1000000000L) {
        out->tv_sec++;
        out->tv_nsec -= 1000000000L;
    }
}

int thread_quota_cores(const char *cpu_max)
{
    char *end;
    long long quota, period;

    if (!strncmp(cpu_max, "max", 3))
        return 0;
    quota = strtoll(cpu_max, &end, 10);
    if (end == cpu_max || *end != ' ' || quota <= 0)
        return 0;
    period = strtoll(end + 1, &end, 10);
    if (period <= 0)
        return 0;
    return quota / period >= 1024 ? 1024 : (int)((quota + period - 1) / period);
}

/* The lowest cpu.max quota on this process's cgroup v2 path and its parents; 0 for none. */
static int cgroup_quota_cores(void)
{
    char line[4096], path[4200], text[64];
    int best = 0;
    FILE *f = fopen("/proc/self/cgroup", "re");
    char *cg = NULL, *slash;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "0::/", 4)) { /* the v2 hierarchy's line */
            cg = line + 3;
            cg[strcspn(cg, "\n")] = '\0';
            break;
        }
    fclose(f);
    while (cg && *cg) {
        int n;

        snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", cg);
        if ((f = fopen(path, "re"))) {
            if (fgets(text, sizeof(text), f) && (n = thread_quota_cores(text)) > 0 && (!best || n < best))
                best = n;
            fclose(f);
        }
        if (!(slash = strrchr(cg, '/')) || slash == cg)
            break;
        *slash = '\0';
    }
    return best;
}

int thread_cores(void)
{
    cpu_set_t set;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    int quota = cgroup_quota_cores();

    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        n = CPU_COUNT(&set);
    if (quota > 0 && quota < n)
        n = quota;
    return n < 1 ? 1 : (int)n;
}
