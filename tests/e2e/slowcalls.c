/*
 * slowcalls.so: an LD_PRELOAD shim for the loop-lag tests (test_looplag.sh).
 * It makes the calls that block on a slow system slow here too: each of
 * getaddrinfo (a slow DNS server), posix_fallocate (glibc writes a byte a
 * block on NFS and many FUSE mounts; not fallocate(2), which fails at once
 * there and changes metadata elsewhere), fsync and fdatasync (a slow disk)
 * sleeps S3C_SLOW_CALLS_MS milliseconds (default 300) before it runs. A
 * loop thread that makes one is then blocked that long, which the loop-lag
 * probe (S3C_LOOP_LAG_MS, src/base/lag.h) reports; a worker thread that
 * makes one only takes longer. Every call is counted in the file named by
 * S3C_SLOW_CALLS_LOG (one line "NAME" a call), so a test can prove the
 * shim was in the way and the slow call was made (not skipped).
 *
 * Test code: not linked into s3c. Built without sanitizers (under an ASan
 * s3c the harness sets verify_asan_link_order=0).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static void slow(const char *name)
{
    const char *v = getenv("S3C_SLOW_CALLS_MS"), *log = getenv("S3C_SLOW_CALLS_LOG");
    long ms = v && *v ? strtol(v, NULL, 10) : 300;
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    if (log && *log) {
        int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

        if (fd >= 0) {
            char line[64];
            size_t n = strlen(name);

            if (n > sizeof(line) - 2)
                n = sizeof(line) - 2;
            memcpy(line, name, n);
            line[n++] = '\n';
            if (write(fd, line, n) < 0) {
                /* nothing to do */
            }
            close(fd);
        }
    }
    while (ms > 0 && nanosleep(&ts, &ts) != 0)
        ;
}

#define REAL(name) static __typeof__(&name) real_##name; \
    if (!real_##name) \
        real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

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
