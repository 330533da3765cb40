/*
 * xfer/samesec: sync's same-second proof as a plan of steps, pure (no I/O,
 * no engine types), so that the engine (prove.c: its hash workers and
 * requests in flight) and a dry run (cli/cmd_sync.c, in place) take the same
 * decisions in the same order, and a unit test pins them.
 *
 * An entry whose two ends have the same size and were last modified within
 * the same second (plan/merge.h: MERGE_WHY_SAME_SECOND) may or may not have
 * changed: it is copied unless a checksum proves both ends hold the same
 * bytes. A copy too many costs a request; a change missed is lost for good,
 * so anything that fails on the way (a HEAD refused, a file that cannot be
 * read or changes while read) is no proof. The order:
 *   S3 to S3: equal ETags; else both ends' stored full-object CRCs, equal
 *   (a HEAD of each, the destination's only when the source has one).
 *   Upload or download (one end a local file of at most SAMESEC_READ_MAX
 *   bytes): an MD5 ETag against the file's MD5; a multipart ETag against
 *   the md5 of its parts' MD5s at the part sizes an uploader likely used
 *   (xfer_part_size_guesses, at most SAMESEC_GUESSES); else the object's
 *   stored full-object CRC (a HEAD) against the file's CRC.
 *
 * The caller does each step the plan asks for and hands its outcome to the
 * matching function, which returns the next step, until SAMESEC_SAME,
 * SAMESEC_COPY or SAMESEC_UNKNOWN. A step that could not be done is
 * SAMESEC_COPY: the caller stops there.
 *
 * sync --checksum ('by_content') asks the same of every entry whose two ends
 * have the same size, and tells a difference from no checksum at all:
 *   - SAMESEC_COPY only where a checksum differs: the file's CRC against the
 *     stored full-object CRC of the same algorithm, two stored CRCs of one
 *     algorithm, or a single-part MD5 ETag that is an MD5 (not a directory
 *     bucket's, not SSE-KMS or SSE-C: the HEAD says) against the file's MD5;
 *   - SAMESEC_UNKNOWN where no usable checksum exists (a multipart ETag of an
 *     unguessed part size and no stored CRC, CRCs of two algorithms, an
 *     encrypted single-part object without one): the caller decides by size
 *     and time, as without --checksum, and says how many did;
 *   - no size cap: a file of any size is read; the stored CRC is asked first
 *     (a HEAD, then the cheap CRC of the file) except for a single-part MD5
 *     ETag of at most SAMESEC_READ_MAX bytes, whose MD5 needs no request.
 * Without by_content, SAMESEC_UNKNOWN never comes back: it is SAMESEC_COPY.
 */
#ifndef S3C_XFER_SAMESEC_H
#define S3C_XFER_SAMESEC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ck.h"
#include "http/http.h"
#include "xfer/xfer.h"

#define SAMESEC_READ_MAX ((uint64_t)64 << 20)  /* larger files are copied, not read to compare */
#define SAMESEC_GUESSES 3                       /* part sizes tried for a multipart ETag */
#define SAMESEC_ETAG_MAX 80                     /* a longer ETag is no MD5 of anything: no proof */

enum samesec_step {
    SAMESEC_SAME,       /* proven: both ends hold the same bytes; nothing is copied */
    SAMESEC_COPY,       /* no proof: the entry is copied */
    SAMESEC_MD5,        /* the MD5 of the local file's whole: samesec_md5() */
    SAMESEC_PARTS,      /* the md5 of the MD5s of its parts of part_size bytes: samesec_parts() */
    SAMESEC_HEAD_SRC,   /* a HeadObject of the source with x-amz-checksum-mode: ENABLED: samesec_head() */
    SAMESEC_HEAD_DST,   /* ... of the destination */
    SAMESEC_CRC,        /* the CRC crc_algo of the local file's whole: samesec_crc() */
    SAMESEC_UNKNOWN,    /* by_content: no usable checksum: size and time decide (the caller's) */
};

/* The plan of one entry; samesec_begin fills it in. */
struct samesec {
    enum xfer_op op;
    uint64_t size;                  /* the local file's, as listed (both ends have it) */
    enum samesec_step step;         /* what is asked now */
    char etag[SAMESEC_ETAG_MAX];    /* the S3 end's ETag (an upload's destination, a download's source) */
    char hex[33];                   /* a multipart ETag's md5 of part MD5s */
    uint32_t parts;                 /* ... and its part count; 0: not multipart */
    uint64_t guesses[SAMESEC_GUESSES];
    int n_guesses, guess;           /* SAMESEC_PARTS: guesses[guess] is part_size */
    uint64_t part_size;             /* SAMESEC_PARTS: the part size asked */
    enum ck_algo crc_algo;          /* SAMESEC_CRC, SAMESEC_HEAD_DST of a copy: the stored CRC's algorithm */
    char crc_want[CK_B64_MAX];      /* ... and its value (a copy: the source's) */
    const char *how;                /* SAMESEC_SAME: what proved it ("ETags", "MD5"...), for --debug */
    bool by_content;                /* sync --checksum (see above) */
    bool headed;                    /* by_content: the S3 end's HEAD is answered (it had no stored CRC) */
    bool md5_differs;               /* by_content: the file's MD5 is not the single-part ETag */
    bool md5_plain;                 /* by_content, a copy: both ETags single-part MD5 shapes */
    bool etag_hidden;               /* by_content: the HEAD said the ETag is no MD5 (SSE-KMS, SSE-C, directory bucket) */
    const char *src_bucket, *dst_bucket; /* the S3 ends (NULL: local), the caller's */
};

/* What samesec_begin is told of an entry. */
struct samesec_entry {
    enum xfer_op op;                /* XFER_UPLOAD, XFER_DOWNLOAD or XFER_COPY */
    uint64_t size;                  /* both ends' */
    const char *src_etag, *dst_etag; /* as listed (NULL: none; a local end has none) */
    const char *src_bucket, *dst_bucket; /* the S3 ends (NULL: local); kept by pointer */
    uint64_t part_size;             /* the configured part size (0: none), the first guess */
    bool by_content;                /* sync --checksum */
};

/* Start the plan of entry 'en'. Returns the first step (also in p->step). */
enum samesec_step samesec_begin(struct samesec *p, const struct samesec_entry *en);

/* The same for sync's object 'o' (o->same_second set): what the engine and a dry run prove. */
enum samesec_step samesec_begin_obj(struct samesec *p, const struct xfer_obj *o);

/* SAMESEC_MD5 done: 'md5' is the file's. */
enum samesec_step samesec_md5(struct samesec *p, const unsigned char md5[16]);

/* SAMESEC_PARTS done: 'md5_of_md5s' is the md5 of the MD5s of its parts of p->part_size bytes. */
enum samesec_step samesec_parts(struct samesec *p, const unsigned char md5_of_md5s[16]);

/* SAMESEC_HEAD_SRC or SAMESEC_HEAD_DST answered 2xx with 'resp'; NULL: it did not (refused, failed). */
enum samesec_step samesec_head(struct samesec *p, const struct http_resp *resp);

/* SAMESEC_CRC done: 'crc' is the file's CRC p->crc_algo. */
enum samesec_step samesec_crc(struct samesec *p, uint64_t crc);

/*
 * The full-object CRC a HeadObject reply names (x-amz-checksum-type absent or
 * FULL_OBJECT; CRC64NVME, then CRC32C, then CRC32; not a composite "...-N"):
 * its algorithm and its value as sent. False when it names none.
 */
bool samesec_stored_crc(const struct http_resp *resp, enum ck_algo *a, char value[CK_B64_MAX]);

#endif
