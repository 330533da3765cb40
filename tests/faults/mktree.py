#!/usr/bin/env python3
"""mktree.py DIR N SEED: write N files of mixed sizes under DIR, reproducibly.

Mostly small files (1 B to 64 KiB) in a few levels of directories, 1 in 50
empty, and a few large ones: N // 500 just above the 8 MiB multipart
threshold (8 MiB + 1 byte to 8 MiB + 64 KiB) and 2 of about 20 MB. Names
include spaces, '+', '=' and UTF-8, which S3 clients must encode. Prints the
total bytes written.
"""
import os
import random
import sys

MIB = 1 << 20


def sizes(n, rng):
    out = []
    n_big = 2 if n >= 100 else 0
    n_mp = n // 500 if n >= 500 else 0
    for i in range(n):
        if i < n_big:
            out.append(20 * MIB + rng.randrange(1, 1 << 20))
        elif i < n_big + n_mp:
            out.append(8 * MIB + rng.randrange(1, 64 << 10))
        elif i % 50 == 7:
            out.append(0)
        elif i % 10 == 3:
            out.append(rng.randrange(16 << 10, 64 << 10))
        else:
            out.append(rng.randrange(1, 8 << 10))
    rng.shuffle(out)
    return out


NAMES = ["f", "data file", "a+b=c", "caf\u00e9", "x.bin", "log-2024.txt"]


def main():
    root, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    total = 0
    for i, size in enumerate(sizes(n, rng)):
        d = os.path.join(root, "d%02d" % (i % 17), "e%d" % (i % 5)) if i % 3 else os.path.join(root, "top")
        os.makedirs(d, exist_ok=True)
        name = "%s-%05d" % (NAMES[i % len(NAMES)], i)
        with open(os.path.join(d, name), "wb") as f:
            f.write(rng.randbytes(size))
        total += size
    print(total)


if __name__ == "__main__":
    main()
