/* mktree DIR [N]: DIR/dNNN/fNNNN, N (default 1000) directories of 1000 empty files (bench/sync/run.sh). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    char p[4096];
    int d, f, n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 1000;
    mkdir(argv[1], 0755);
    for (d = 0; d < n; d++) {
        snprintf(p, sizeof(p), "%s/d%03d", argv[1], d);
        mkdir(p, 0755);
        for (f = 0; f < 1000; f++) {
            int fd;
            snprintf(p, sizeof(p), "%s/d%03d/f%04d", argv[1], d, f);
            fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0) { perror(p); return 1; }
            close(fd);
        }
    }
    return 0;
}
