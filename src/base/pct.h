/*
 * pct: percent-encoding as RFC 3986 and SigV4 want it: unreserved
 * characters (A-Z a-z 0-9 - _ . ~) kept, everything else as %XX with
 * upper-case hex; '/' kept or not, as the caller says (kept in paths, not
 * in query values). One implementation for URLs, signing and the emulator.
 */
#ifndef S3C_BASE_PCT_H
#define S3C_BASE_PCT_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/str.h"

/* Append 'in' encoded to 'out'; S3C_ENOMEM past out's cap. */
enum s3c_err pct_encode(struct sv in, bool keep_slash, struct buf *out);

/* The value of one hex digit, or -1. */
int pct_hexval(char c);

#endif
