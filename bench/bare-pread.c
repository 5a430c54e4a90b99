/* bare-pread.c FILE BS SECONDS — the limit row of bench/run-vs-fio.sh (case f): 4 KiB
 * random preads of FILE in one thread for SECONDS, with nothing else per read (no per-I/O
 * clock read, no statistics, no random map: an xorshift draw and the system call; opened
 * with O_NOATIME, as iomark opens its targets, so both make the same system calls). The
 * time is checked once every 4096 reads. Prints "iops N reads N seconds S". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: bare-pread FILE BS SECONDS\n");
        return 2;
    }
    long bs = atol(argv[2]);
    double secs = atof(argv[3]);
    int fd = open(argv[1], O_RDONLY | O_NOATIME);
    if (fd < 0)
        fd = open(argv[1], O_RDONLY); /* not the owner and not root */
    struct stat st;
    if (bs <= 0 || secs <= 0 || fd < 0 || fstat(fd, &st) != 0 || st.st_size < bs) {
        perror("bare-pread");
        return 3;
    }
    uint64_t blocks = st.st_size / bs, x = 88172645463325252ull, n = 0;
    char *buf = aligned_alloc(4096, (bs + 4095) / 4096 * 4096);
    double t0 = now(), end = t0 + secs, t = t0;
    for (;;) {
        for (int i = 0; i < 4096; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            if (pread(fd, buf, bs, (off_t)((x % blocks) * bs)) != bs) {
                perror("bare-pread: pread");
                return 1;
            }
        }
        n += 4096;
        t = now();
        if (t >= end)
            break;
    }
    printf("iops %.0f reads %llu seconds %.3f\n", n / (t - t0), (unsigned long long)n, t - t0);
    return 0;
}
