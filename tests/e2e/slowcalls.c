/*
 * slowcalls.so: an LD_PRELOAD checker of blocking calls on s3c's event-loop
 * threads, for the e2e suite (lib.sh preloads it into every s3c it runs).
 *
 * s3c tells it which threads are loops (src/base/lag.c calls
 * s3c_checker_loop_thread, found with dlsym, when S3C_LOOP_LAG_MS is set).
 * Each call below made on a loop thread appends a line "s3c loop-block:
 * NAME ..." to the file named by S3C_LOOP_LAG_LOG, however short the call
 * was: exact, and blind to the machine's load. The harness fails a test that
 * left one. The calls: getaddrinfo (a slow DNS server), posix_fallocate
 * (glibc writes a byte a block on NFS and many FUSE mounts), fallocate(2)
 * (it fails at once there, but reserving 100 GB on ext4 or xfs takes many
 * ms of metadata work),
 * fsync and fdatasync (a slow disk), and the sleeps (nanosleep, usleep,
 * clock_nanosleep: a loop waits in its poll, never in a sleep).
 *
 * S3C_SLOW_CALLS_MS=N (test_looplag.sh) also makes each of the first five
 * sleep N ms on any thread, as on a slow system, and S3C_SLOW_CALLS_LOG
 * names a file that gets one line "NAME" a call, so a test can prove the
 * call was made (on some thread) and did not block a loop.
 *
 * S3C_SLOW_PREAD=1 (a test that sends no part body, whose loops read no
 * local file by design) adds pread of a regular file to the checked calls:
 * a disk, or a cold page cache, makes it as slow as the others.
 * S3C_SLOW_READ=1 does the same for read(2) of a regular file (a whole
 * file read in order, as sync's same-second proof once did on the loop).
 *
 * Test code: not linked into s3c. Built without sanitizers (under an ASan
 * s3c the harness sets verify_asan_link_order=0).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static _Thread_local int on_loop;
static _Thread_local int in_next;       /* the engine is in its source's next() */
static _Thread_local int next_told;     /* S3C_SLOW_CALLS_LOG heard "next" from this thread */

/* Called by s3c (src/base/lag.c): this thread is a loop (1) or no longer (0). */
void s3c_checker_loop_thread(int on);
void s3c_checker_loop_thread(int on)
{
    on_loop = on;
}

static void append(const char *path, const char *line, size_t n);

/* Called by s3c (src/base/lag.c) around the engine's calls to its source's
 * next(): a wait of the loop in between is the loop stepped from inside the
 * engine's turn. The first call a thread makes is logged ("next" in
 * S3C_SLOW_CALLS_LOG), so a test can prove the checker was told. */
void s3c_checker_in_next(int on);
void s3c_checker_in_next(int on)
{
    const char *log = getenv("S3C_SLOW_CALLS_LOG");

    in_next = on;
    if (on && !next_told && log && *log) {
        next_told = 1;
        append(log, "next\n", 5);
    }
}

#define REAL(name) static __typeof__(&name) real_##name; \
    if (!real_##name) \
        real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

static void append(const char *path, const char *line, size_t n)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

    if (fd < 0)
        return;
    if (write(fd, line, n) < 0) {
        /* nothing to do */
    }
    close(fd);
}

/* A blocking call named 'name': reported if on a loop thread. */
static void seen(const char *name)
{
    const char *lag = getenv("S3C_LOOP_LAG_LOG");
    char line[160];
    int n;

    if (!on_loop || !lag || !*lag)
        return;
    n = snprintf(line, sizeof(line), "s3c loop-block: %s on loop thread %d of pid %d\n", name, (int)gettid(),
                 (int)getpid());
    if (n > 0 && (size_t)n < sizeof(line))
        append(lag, line, (size_t)n);
}

/* As seen(), and count it, and sleep S3C_SLOW_CALLS_MS if set. */
static void slow(const char *name)
{
    const char *v = getenv("S3C_SLOW_CALLS_MS"), *log = getenv("S3C_SLOW_CALLS_LOG");
    long ms = v && *v ? strtol(v, NULL, 10) : 0;
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    REAL(clock_nanosleep);

    seen(name);
    if (log && *log) {
        char line[64];
        size_t n = strlen(name);

        if (n > sizeof(line) - 2)
            n = sizeof(line) - 2;
        memcpy(line, name, n);
        line[n++] = '\n';
        append(log, line, n);
    }
    while (ms > 0 && real_clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0)
        ;
}

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res)
{
    REAL(getaddrinfo);
    slow("getaddrinfo");
    return real_getaddrinfo(node, service, hints, res);
}

int posix_fallocate(int fd, off_t offset, off_t len)
{
    REAL(posix_fallocate);
    slow("posix_fallocate");
    return real_posix_fallocate(fd, offset, len);
}

int posix_fallocate64(int fd, off_t offset, off_t len)
{
    REAL(posix_fallocate64);
    slow("posix_fallocate");
    return real_posix_fallocate64(fd, offset, len);
}

int fallocate(int fd, int mode, off_t offset, off_t len)
{
    REAL(fallocate);
    slow("fallocate");
    return real_fallocate(fd, mode, offset, len);
}

int fallocate64(int fd, int mode, off_t offset, off_t len)
{
    REAL(fallocate64);
    slow("fallocate");
    return real_fallocate64(fd, mode, offset, len);
}

int fsync(int fd)
{
    REAL(fsync);
    slow("fsync");
    return real_fsync(fd);
}

int fdatasync(int fd)
{
    REAL(fdatasync);
    slow("fdatasync");
    return real_fdatasync(fd);
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    REAL(nanosleep);
    seen("nanosleep");
    return real_nanosleep(req, rem);
}

int usleep(useconds_t us)
{
    REAL(usleep);
    seen("usleep");
    return real_usleep(us);
}

int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
    REAL(clock_nanosleep);
    seen("clock_nanosleep");
    return real_clock_nanosleep(clk, flags, req, rem);
}

/* A wait of a loop inside the engine's call to next() (s3c_checker_in_next),
 * checked only with S3C_CHECK_NEXT_WAITS=1: a source that runs a request to
 * its end there (store_s3_send, http_do, a nap) waits here. */
int epoll_wait(int ep, struct epoll_event *ev, int max, int timeout_ms)
{
    REAL(epoll_wait);
    if (in_next && timeout_ms != 0) {
        const char *v = getenv("S3C_CHECK_NEXT_WAITS");

        if (v && !strcmp(v, "1"))
            seen("epoll_wait inside the source's next()");
    }
    return real_epoll_wait(ep, ev, max, timeout_ms);
}

/* A read named 'name' of a regular file, checked only when the switch 'env' is 1 (see above). */
static void read_seen(int fd, const char *env, const char *name)
{
    const char *v = getenv(env);
    struct stat st;

    if (v && !strcmp(v, "1") && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        slow(name);
}

static void pread_seen(int fd)
{
    read_seen(fd, "S3C_SLOW_PREAD", "pread");
}

ssize_t read(int fd, void *buf, size_t n)
{
    REAL(read);
    read_seen(fd, "S3C_SLOW_READ", "read");
    return real_read(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    REAL(pread);
    pread_seen(fd);
    return real_pread(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    REAL(pread64);
    pread_seen(fd);
    return real_pread64(fd, buf, n, off);
}
