/*
 * sigv4: AWS Signature Version 4 as pure functions. Nothing here reads a
 * clock, the environment or the network: the caller passes the time stamp,
 * so AWS's published examples run unchanged as tests, and the emulator uses
 * the same code to verify what clients send.
 *
 * Paths and query strings are taken as they go on the wire (already
 * percent-encoded by s3/); S3 does not encode the path a second time.
 */
#ifndef S3C_AUTH_SIGV4_H
#define S3C_AUTH_SIGV4_H

#include <stddef.h>

#include "base/buf.h"
#include "base/hash.h"

#define SIGV4_UNSIGNED_PAYLOAD "UNSIGNED-PAYLOAD"
#define SIGV4_STREAMING_PAYLOAD "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
#define SIGV4_STREAMING_UNSIGNED_TRAILER "STREAMING-UNSIGNED-PAYLOAD-TRAILER"

struct sigv4_header {
    const char *name;   /* any case; lower-cased for signing */
    const char *value;  /* trimmed, inner runs of spaces folded, for signing */
};

struct sigv4_request {
    const char *method;                   /* "GET", "PUT", ... */
    const char *path;                     /* "/bucket/key%20x", as sent; "" means "/" */
    const char *query;                    /* "a=b&c=", as sent, no '?'; NULL or "" for none */
    const struct sigv4_header *headers;   /* exactly the headers to sign; must include host */
    size_t n_headers;
    const char *payload_hash;             /* hex SHA-256 of the body, or UNSIGNED-PAYLOAD, ... */
};

struct sigv4_creds {
    const char *access_key;
    const char *secret_key;
    const char *session_token;            /* NULL or "" when none */
};

struct sigv4_scope {
    const char *amz_date;                 /* "20130524T000000Z" (ISO 8601 basic, UTC) */
    const char *region;                   /* "us-east-1" */
    const char *service;                  /* "s3" or "s3express" */
};

/* Canonical request text; 'signed_headers' (may be NULL) gets "host;range;x-amz-date". */
enum s3c_err sigv4_canonical_request(const struct sigv4_request *r, struct buf *out,
                                     struct buf *signed_headers);

/* The string to sign for a canonical request. */
enum s3c_err sigv4_string_to_sign(const struct sigv4_scope *s, struct sv canonical_request,
                                  struct buf *out);

/* kSigning = HMAC chain over date, region, service, "aws4_request". */
void sigv4_signing_key(const char *secret_key, const struct sigv4_scope *s,
                       unsigned char out[SHA256_LEN]);

/* Hex signature of request 'r' (header or query auth: the caller shapes 'r'). */
enum s3c_err sigv4_signature(const struct sigv4_request *r, const char *secret_key,
                             const struct sigv4_scope *s, char out_hex[2 * SHA256_LEN + 1]);

/*
 * The value of the Authorization header:
 * "AWS4-HMAC-SHA256 Credential=AK/20130524/us-east-1/s3/aws4_request,
 *  SignedHeaders=...,Signature=..." (one line, ", " separated as AWS shows).
 */
enum s3c_err sigv4_authorization(const struct sigv4_request *r, const struct sigv4_creds *c,
                                 const struct sigv4_scope *s, struct buf *out);

/* The same with a signing key already derived (sigv4_signing_key), so a
 * client signing many requests a day pays the four HMACs once. */
enum s3c_err sigv4_authorization_with_key(const struct sigv4_request *r, const char *access_key,
                                          const unsigned char signing_key[SHA256_LEN],
                                          const struct sigv4_scope *s, struct buf *out);

/*
 * Presigned URL query auth. Appends to 'out' the full query string to send:
 * the request's own query, plus X-Amz-Algorithm, X-Amz-Credential,
 * X-Amz-Date, X-Amz-Expires, X-Amz-SignedHeaders (host only, plus any
 * headers in 'r'), X-Amz-Security-Token when there is a session token, and
 * X-Amz-Signature last. The payload hash used is UNSIGNED-PAYLOAD.
 */
enum s3c_err sigv4_presign(const struct sigv4_request *r, const struct sigv4_creds *c,
                           const struct sigv4_scope *s, long expires_s, struct buf *out);

/*
 * Signature of one chunk of a STREAMING-AWS4-HMAC-SHA256-PAYLOAD body:
 * string to sign "AWS4-HMAC-SHA256-PAYLOAD\n<date>\n<scope>\n<prev>\n<sha256("")>\n<sha256(chunk)>".
 */
void sigv4_chunk_signature(const unsigned char signing_key[SHA256_LEN], const struct sigv4_scope *s,
                           const char *prev_signature_hex, const void *chunk, size_t n,
                           char out_hex[2 * SHA256_LEN + 1]);

/* RFC 3986 percent-encoding as SigV4 wants it (unreserved kept); '/' kept iff keep_slash. */
enum s3c_err sigv4_uri_encode(struct sv in, int keep_slash, struct buf *out);

#endif
