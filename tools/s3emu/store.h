/*
 * store: the emulator's data. Buckets (an ordered map by name) hold an
 * ordered map of keys; each key holds its versions, newest first (one
 * version, id "null", when versioning was never enabled). Object bytes are
 * refcounted blobs, so a GET in flight keeps its bytes alive after an
 * overwrite, and CopyObject shares bytes instead of copying them.
 * Multipart uploads live in a second ordered map per bucket, keyed by
 * key + NUL + upload id, which is ListMultipartUploads' order.
 */
#ifndef S3EMU_STORE_H
#define S3EMU_STORE_H

#include "emu.h"

enum emu_versioning { VER_NONE = 0, VER_ENABLED, VER_SUSPENDED };

struct emu_cksum {
    char algo[12];      /* "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"; "" none */
    char value[96];     /* base64 (composite: "...-N") */
    char type[16];      /* "FULL_OBJECT" or "COMPOSITE" */
};

/*
 * An object's tags (S3 object tagging): 'n' pairs "key\0value\0" in 'data'
 * (malloc'd, NULL when there are none). Validated before they are stored
 * (ops_tagging.c): at most EMU_TAGS_MAX, keys and values within S3's limits.
 */
#define EMU_TAGS_MAX 10
struct emu_tags {
    char *data;
    size_t len;                 /* bytes of data */
    int n;                      /* pairs */
};

struct emu_obj {
    struct emu_obj *older;      /* next older version */
    char vid[40];               /* version id, "null" when unversioned */
    bool delete_marker;
    struct emu_blob *blob;      /* NULL for a delete marker */
    uint64_t size;
    char etag[48];              /* with the quotes */
    int64_t mtime_ms;           /* wall clock, ms */
    char *hdrs;                 /* stored headers "Name: v\r\n..." (malloc'd, never NULL) */
    char storage_class[24];
    /* GLACIER, DEEP_ARCHIVE: RestoreObject (emu_model_restore says where it stands) */
    int64_t restore_asked_ms;   /* when the restore was started (202); 0: none asked */
    int64_t restore_days_ms;    /* ... its copy readable this long once ready */
    int64_t restored_until_ms;  /* an expiry set anew (200) on a restored copy; 0: ready + days */
    char acl[32];               /* canned ACL */
    struct emu_cksum ck;
    char ssec_md5[28];          /* SSE-C: base64 MD5 of the customer key; "" without */
    uint32_t n_parts;           /* 0 unless made by CompleteMultipartUpload */
    uint64_t *part_ends;        /* cumulative end offset of each part */
    struct emu_tags tags;       /* never on a directory bucket's objects */
};

struct emu_part {
    int num;
    struct emu_blob *blob;
    char etag[48];
    int64_t mtime_ms;
    struct emu_cksum ck;
};

struct emu_upload {
    char id[40];
    char *key;                  /* malloc'd */
    size_t klen;
    int64_t init_ms;
    char *hdrs;                 /* headers to give the object */
    char storage_class[24];
    char ck_algo[12];           /* x-amz-checksum-algorithm at create */
    char ck_type[16];           /* x-amz-checksum-type at create */
    char acl[32];               /* x-amz-acl at create */
    char ssec_md5[28];          /* SSE-C key MD5 at create; parts must carry the same key */
    struct emu_tags tags;       /* x-amz-tagging at create: the object's at Complete */
    struct emu_part *parts;     /* sorted by num */
    int n_parts, cap_parts;
};

struct emu_bucket {
    char name[64];
    char region[32];
    int64_t created_ms;
    enum emu_versioning versioning;
    char acl[32];               /* canned ACL: "private", "public-read", ... */
    bool ssec_blocked;          /* BlockedEncryptionTypes SSE-C: SSE-C writes are 403 AccessDenied */
    bool directory;             /* S3 Express One Zone: named BASE--ZONEID--x-s3 */
    char zone[32];              /* its ZONEID */
    char zone_type[20];         /* "AvailabilityZone" or "LocalZone" */
    struct emu_sl keys;         /* key -> struct emu_obj* (newest version) */
    struct emu_sl uploads;      /* key NUL id -> struct emu_upload* */
    /* RenameObject's x-amz-client-token: the last renames done, so that one sent again (its
     * answer lost) succeeds without doing anything, as S3's does. */
    struct { char token[65]; uint64_t what; } renames[32];
    unsigned n_renames;
};

int64_t emu_wall_ms(void);
/*
 * --dir mode (blob.c): move a blob's bytes to an (unlinked) file under s->dir
 * and map it, so object data lives in the page cache, not the heap. No-op
 * without --dir, for blobs received into a file already, and for small ones
 * (EMU_BLOB_DIR_MIN). -1 if the disk said no (the blob is then unchanged).
 */
int emu_store_spill(struct emu_server *s, struct emu_blob *b);

struct emu_bucket *emu_store_bucket(struct emu_server *s, const char *name);
struct emu_bucket *emu_store_bucket_create(struct emu_server *s, const char *name, const char *region);
void emu_store_bucket_delete(struct emu_server *s, struct emu_bucket *b);
bool emu_store_bucket_empty(const struct emu_bucket *b);

/* Free the tags and leave none; a copy of 'src' into 'dst' (which held none): 0, or -1 on OOM. */
void emu_tags_release(struct emu_tags *t);
int emu_tags_copy(struct emu_tags *dst, const struct emu_tags *src);

struct emu_obj *emu_store_obj_new(void);
void emu_store_obj_free(struct emu_obj *o);

/* Latest version of key (may be a delete marker), or the version 'vid'. */
struct emu_obj *emu_store_get(struct emu_bucket *b, const char *key, size_t klen, const char *vid);
/*
 * Make 'o' the newest version of key, as the bucket's versioning says:
 * unversioned and suspended replace the "null" version; enabled adds one.
 * Takes ownership of 'o' (its vid is set here). 0, or -1 on OOM.
 */
int emu_store_put(struct emu_server *s, struct emu_bucket *b, const char *key, size_t klen,
                  struct emu_obj *o);
/* Remove version 'vid' of key; returns 1 if removed, 0 if absent. */
int emu_store_del_version(struct emu_bucket *b, const char *key, size_t klen, const char *vid,
                          bool *was_marker);

#define EMU_POPULATE_MAX 10000000ull    /* objects one populate call may create */

/*
 * Bulk load for scale tests: 'count' objects named prefix + a 9-digit number
 * counting from 'start' (prefix000000000, prefix000000001, ...), each 'size'
 * zero bytes, in bucket 'bucket' (created in s->region when missing). All
 * share one blob and one header string, so an object costs its index entry
 * only. Takes the store lock itself, 10,000 objects at a time, so other
 * requests go on meanwhile. Returns 0, or -1 with 'err' set.
 */
int emu_store_populate(struct emu_server *s, const char *bucket, const char *prefix, uint64_t start,
                       uint64_t count, uint64_t size, char *err, size_t errn);

struct emu_upload *emu_store_upload(struct emu_bucket *b, const char *key, size_t klen,
                                    const char *id);
void emu_store_upload_free(struct emu_upload *u);
/* Put (or replace) part 'num'; takes the blob reference. 0 or -1. */
int emu_store_upload_part(struct emu_upload *u, struct emu_part *p);  /* 1: replaced a part of that number */

#endif
