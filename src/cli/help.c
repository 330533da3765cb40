/* The text of `s3c help [VERB]`. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/doc.h"

struct help {
    const char *verb;
    const char *synopsis;
    const char *text;
};

/* The flags rm and restore share after their own (cli/cmd_rm.c: one job, two verbs). */
#define KEY_JOB_FLAGS                                                                              \
    "  --request-payer requester\n"                                                                \
    "  --concurrency N, --numworkers N   fixed requests in flight (default: adaptive)\n"           \
    "  --loops N, --no-progress, --stat  as for cp\n"                                              \
    "  --part-size, --bwlimit, --expected-size, --resume, --hedge-writes   accepted as for cp;\n"  \
    "                         no effect here\n"                                                    \
    "  --shard K/N|auto, --from-manifest FILE   as for cp (the root: the argument's prefix)\n"

static const struct help helps[] = {
    { "ls", "s3c ls [s3://BUCKET[/PREFIX|/PATTERN]] [--recursive] [--human-readable] [--summarize] [flags]",
      "List buckets, or the objects and common prefixes (PRE lines) under a prefix,\n"
      "as `aws s3 ls` prints them. --json prints one JSON object per line.\n"
      "  --recursive, -r     list every key under the prefix, with its full name\n"
      "  --human-readable, --humanize, -H   sizes in KiB, MiB, GiB...\n"
      "  --summarize         print Total Objects and Total Size at the end\n"
      "  --etag, -e          an ETag column (s5cmd)\n"
      "  --storage-class, -s  a storage class column (s5cmd); an archived object's with its\n"
      "                      restore status: GLACIER:restoring, GLACIER:restored (--json:\n"
      "                      restore_in_progress, restore_expiry)\n"
      "  --show-fullpath     each entry as its s3:// URL alone, prefixes too (s5cmd)\n"
      "  --all-versions      every version and delete marker (ListObjectVersions): a\n"
      "                      version id column, DELETE in the size column of a delete\n"
      "                      marker, each key's newest first; --summarize counts versions\n"
      "  --exclude/--include P  AWS CLI filters on the names under the prefix\n"
      "  --page-size N       keys per list request (default 1000)\n"
      "  --request-payer requester  list a requester-pays bucket\n"
      "  --directory-buckets, --x-s3  list the S3 Express directory buckets\n"
      "                      (ListDirectoryBuckets) instead of the general-purpose ones\n"
      "Columns: DATE TIME [CLASS] [ETAG] SIZE [VERSION-ID] NAME; the extra ones appear\n"
      "only when asked for, so the default output is the AWS CLI's.\n"
      "A PATTERN with s5cmd wildcards ('*' and '?' cross '/', \\* a literal star)\n"
      "lists every matching key under its literal prefix, named relative to the\n"
      "pattern's directory (full names with --recursive): ls 's3://b/logs/2024-*/*.gz'.\n"
      "On a versioned bucket, plain ls shows current objects only (a delete marker\n"
      "hides its key), as the AWS CLI does.\n"
      "A directory bucket (NAME--ZONE--x-s3) lists in no particular order: s3c sorts\n"
      "its listing (in bounded memory) and prints it in key order, as for any bucket.\n"
      "Exits 1 when a prefix or pattern matches nothing.\n" },
    { "du", "s3c du s3://BUCKET[/PREFIX|/PATTERN] [--humanize] [--group] [--all-versions|--version-id ID] [flags]",
      "Total objects and bytes under a prefix or wildcard pattern, as s5cmd's du\n"
      "prints them (\"N bytes in N objects: s3://...\"). Every key under the prefix\n"
      "counts, however deep (s5cmd counts one level; --recursive, -r is taken and\n"
      "changes nothing). --json prints the totals as JSON lines.\n"
      "  --humanize, -H, --human-readable   sizes as s5cmd writes them (1.5K, 2.0G)\n"
      "  --group, -g         one line per storage class\n"
      "  --all-versions      count every version (delete markers hold no bytes: not counted)\n"
      "  --version-id ID     count that version of one key only (s5cmd's); exit 1 when the\n"
      "                      key has no such version\n"
      "  --exclude/--include P  AWS CLI filters on the names under the prefix\n"
      "  --page-size N       keys per list request (default 1000)\n" },
    { "mb", "s3c mb s3://BUCKET",
      "Create a bucket in the configured region (LocationConstraint outside us-east-1).\n"
      "A name BASE--ZONEID--x-s3 creates an S3 Express directory bucket in that zone\n"
      "(SingleAvailabilityZone; SingleLocalZone for a Local Zone id), through the\n"
      "s3express-control endpoint.\n" },
    { "rb", "s3c rb s3://BUCKET [--force]",
      "Remove an empty bucket. --force first deletes everything in it. On a versioned\n"
      "bucket that means every version and delete marker too: a plain delete there\n"
      "only adds a delete marker, so the AWS CLI's rb --force deletes the current\n"
      "objects, leaves their history and then fails with BucketNotEmpty. Whoever\n"
      "says --force wants the bucket gone, and a removed bucket keeps no history\n"
      "anyway, so s3c removes it all. Stores without ListObjectVersions get the plain\n"
      "deletes.\n" },
    { "head", "s3c head s3://BUCKET[/KEY] [--version-id ID] [--raw]",
      "Print an object's metadata (HeadObject) as JSON, with the same field names as\n"
      "`aws s3api head-object`; with no key, check the bucket (HeadBucket).\n"
      "A key names one object: a wildcard in it is refused, as s5cmd's head refuses it\n"
      "('\\*' is a star).\n"
      "  --version-id ID        that version of the object (head-object --version-id; s5cmd's);\n"
      "                         one the bucket does not have: NoSuchVersion, exit 254\n"
      "  --raw                  the key as given: '*', '?' and '\\' are its own characters\n" },
    { "cp", "s3c cp SRC DST [--recursive] [--exclude P] [--include P] [flags]",
      "Copy local files to S3, S3 objects to local files, or S3 to S3 (server side).\n"
      "SRC or DST may be '-' (stdin/stdout); '*' and '?' in SRC select many objects (in a\n"
      "key they match '/' too, as s5cmd's; in a local path not, as its Glob; '\\*' is a star).\n"
      "  --recursive, -r        every file under a directory or key under a prefix\n"
      "  --exclude/--include P  AWS CLI filters: the last matching one wins\n"
      "  --flatten              drop the directories of the source names\n"
      "  --raw                  take SRC literally (no wildcards)\n"
      "  --dryrun, --dry-run    print what would be done\n"
      "  --no-overwrite         never replace an object (If-None-Match: *)\n"
      "  -n, --no-clobber       skip destinations that exist\n"
      "  -s, --if-size-differ   skip destinations that exist, unless their size differs (s5cmd)\n"
      "  -u, --if-source-newer  skip destinations that exist, unless the source is newer (s5cmd)\n"
      "                         (given together, the last of -n, -s, -u decides, as in s5cmd)\n"
      "  --content-type T, --cache-control V, --content-encoding V, --content-disposition V,\n"
      "  --content-language V, --expires V, --metadata k=v[,k=v], --metadata-directive COPY|REPLACE,\n"
      "  --storage-class C, --acl A, --sse AES256|aws:kms, --sse-kms-key-id K, --request-payer requester\n"
      "                         (the AWS CLI's choices; header values without control characters;\n"
      "                         a --metadata value that is not ASCII is sent as =?UTF-8?B?...?=)\n"
      "  --copy-props default|metadata-directive|none   what an S3 to S3 copy keeps of its source,\n"
      "                         as the AWS CLI: default its metadata (Content-Type, -Encoding,\n"
      "                         -Disposition, -Language, Cache-Control, Expires, x-amz-meta-*)\n"
      "                         and its tags; metadata-directive the metadata only; none nothing\n"
      "                         but what the flags say. A copy in parts asks the source\n"
      "                         (HeadObject, GetObjectTagging) and keeps the same as CopyObject.\n"
      "                         --metadata-directive, when given, decides for the metadata;\n"
      "                         without it, metadata flags (--content-type, --metadata...)\n"
      "                         replace those properties and the source's others are kept\n"
      "  --source-region R      S3 to S3: the region of the source bucket, whose requests\n"
      "                         (HeadObject, GetObjectTagging, listings) are signed for it\n"
      "                         from the first; the copies go to the destination's\n"
      "  --source-profile P, --source-endpoint-url URL, --source-no-sign-request,\n"
      "  --source-ca-bundle FILE, --source-addressing-style auto|path|virtual\n"
      "                         S3 to S3: the source side's own settings (the destination\n"
      "                         keeps --profile, --endpoint-url...): its profile (credentials\n"
      "                         of any provider, refreshed apart; its endpoint, region and s3\n"
      "                         section), then each flag over it. Listings, HEADs, GETs and\n"
      "                         tags of the source go there (--debug names the side, errors\n"
      "                         too). On the same service the copy is server-side (CopyObject,\n"
      "                         UploadPartCopy), read with the destination's keys (refused with\n"
      "                         403, it goes as between two services); between two\n"
      "                         services the bytes go through s3c: ranged GETs from the source\n"
      "                         into PutObject or UploadPart, at most 256 MiB in memory, no\n"
      "                         disk; what was read is checked against the source's stored\n"
      "                         CRC or MD5 ETag, what was sent against the destination's\n"
      "                         answers (mv deletes a source only then)\n"
      "  --destination-region R  the region of the destination bucket, whose requests are\n"
      "                         signed for it (s5cmd's; the AWS CLI's is --region)\n"
      "  --grants PERM=GRANTEE [PERM=GRANTEE...]   x-amz-grant-read, -read-acp, -write-acp,\n"
      "                         -full-control for read, readacl, writeacl, full; GRANTEE as\n"
      "                         S3 takes it (uri=..., id=..., several joined by ','), as the\n"
      "                         AWS CLI sends it\n"
      "  --website-redirect URL  x-amz-website-redirect-location of the object written\n"
      "  --force-glacier-transfer   download or copy GLACIER and DEEP_ARCHIVE objects anyway\n"
      "                         (else skipped with the AWS CLI's warning, exit 2: unless\n"
      "                         restored, S3 refuses them; a listed object's restore is not\n"
      "                         known, so a recursive one is skipped even when restored)\n"
      "  --ignore-glacier-warnings  skip them silently (exit 0)\n"
      "  --page-size N          keys per list request (default 1000)\n"
      "  --sse-c AES256 --sse-c-key KEY32    customer key of the object written (or read, downloads);\n"
      "                         new AWS buckets block SSE-C writes since April 2026 (403\n"
      "                         AccessDenied, said so): put-bucket-encryption allows them\n"
      "  --sse-c-copy-source AES256 --sse-c-copy-source-key KEY32   customer key of a copy's source\n"
      "  --no-guess-mime-type, --follow-symlinks, --no-follow-symlinks\n"
      "  (mtimes) an upload records the file's mtime in the object's user metadata as rclone\n"
      "                         does (x-amz-meta-mtime: seconds.nanoseconds); a download sets\n"
      "                         the file's mtime from it, or from s3cmd's x-amz-meta-s3cmd-attrs,\n"
      "                         else from the object's LastModified (to the second)\n"
      "  --preserve             also mode, uid and gid: uploads record them in rclone's keys\n"
      "                         (x-amz-meta-mode, octal with the file type; -uid, -gid), downloads\n"
      "                         set them from those or s3cmd-attrs: the owner only when run as\n"
      "                         root, setuid and setgid bits only with it\n"
      "  --no-preserve          record nothing, and stamp downloads with LastModified (the AWS\n"
      "                         CLI's behaviour); --metadata mtime=... always wins over s3c's\n"
      "  --directory-markers    an empty directory goes up as a 0-byte \"dir/\" object, as the\n"
      "                         AWS console and rclone's --s3-directory-markers make them, and\n"
      "                         such a marker comes down as the directory (never a file \"dir\");\n"
      "                         without it downloads skip every \"dir/\" key (cp, sync; not mv)\n"
      "  --checksum-algorithm A  the flexible checksum uploads carry, which the store verifies\n"
      "                         and keeps: CRC64NVME (default), CRC32, CRC32C, SHA1 or SHA256\n"
      "                         (a SHA is hashed by worker threads; multipart: a CRC of the\n"
      "                         whole object, a SHA of the parts' SHAs, \"...-N\", as S3 keeps it)\n"
      "  --checksum-mode ENABLED  downloads ask for the stored checksum (s3c does unless\n"
      "                         response_checksum_validation = when_required) and check it\n"
      "  --concurrency N, --numworkers N   fixed requests in flight (default: adaptive)\n"
      "  --loops N              event loops, each on a thread with its own connections\n"
      "                         (default: one per core, at most 16; 1 with --bwlimit); the\n"
      "                         others start only when more objects queue than one takes,\n"
      "                         and share the requests in flight; $S3C_LOOPS sets the default\n"
      "  --hedge-writes auto|never|always   whether an overdue PutObject may get a duplicate\n"
      "                         on another connection (reads and parts may, in 3% of requests).\n"
      "                         auto (default): only to a bucket never versioned (asked once a\n"
      "                         run, GetBucketVersioning) or a directory bucket; not while\n"
      "                         unknown or refused, never with -n. A duplicate still fires a\n"
      "                         second event notification: never where those matter;\n"
      "                         $S3C_HEDGE_WRITES sets the default\n"
      "  --part-size SIZE       multipart part size (default: from the object size)\n"
      "  --bwlimit RATE         cap throughput, e.g. 50MB/s\n"
      "  --expected-size SIZE   size of stdin, to pick the part size\n"
      "  --no-progress          no live progress line\n"
      "  --stat                 a summary table at the end: per operation, total, errors, bytes\n"
      "  --resume               continue multipart uploads a killed run left, of files or of\n"
      "                         copies between two stores (journaled in $S3C_STATE_DIR, else\n"
      "                         ~/.local/state/s3c; parts checked by MD5),\n"
      "                         and large downloads an interrupted (SIGINT, SIGTERM, kill -9)\n"
      "                         --resume run left: parts already in the hidden temp file\n"
      "                         (.s3c-NAME.XXXXXXXX.tmp) are not fetched again; the whole is\n"
      "                         still verified. Without --resume an interrupt removes it,\n"
      "                         and an upload a killed run left for the key is aborted first.\n"
      "  --shard K/N            do only shard K of N (0 <= K < N): the objects whose name\n"
      "                         relative to the source root hashes there (FNV-1a 64 mod N),\n"
      "                         so N processes with K = 0..N-1 do the job once; --shard auto\n"
      "                         takes K and N from a Slurm job array or a Kubernetes Indexed Job\n"
      "  --from-manifest FILE   the source set from FILE (local or s3://) instead of a listing:\n"
      "                         an S3 Inventory manifest.json (CSV data files, gzip'd or not)\n"
      "                         or a plain list of keys of the source bucket, one a line\n"
      "  --version-id ID        read or copy that version of one S3 source object (s5cmd's):\n"
      "                         its HEAD, GETs and tags, and a copy's x-amz-copy-source (parts\n"
      "                         too) name it; checked against that version's ETag or checksum.\n"
      "                         Not with --recursive, wildcards, --from-manifest, a local\n"
      "                         source, mv (cp, then rm --version-id) or a directory bucket\n"
      "                         (no versioning: only the id null there): usage error, exit\n"
      "                         252. An id the bucket does not have fails as NoSuchVersion\n"
      "                         (exit 1), no file left behind. Copied onto its own key, the\n"
      "                         version is the newest again (how S3 restores one)\n" },
    { "run", "s3c run FILE|- [--concurrency N] [--stat]",
      "Execute one s3c command a line (FILE, or - for standard input), in this process.\n"
      "Lines are split like shell words (quotes, backslashes, # comments), with no expansion.\n"
      "cp, mv, rm, restore and sync lines run in parallel on one engine; any other verb waits for\n"
      "the lines before it to finish. A failed line is named by its number; exit code 1\n"
      "(2 when lines only skipped files).\n"
      "A line may carry the output options --json, --quiet and --only-show-errors, for its\n"
      "own results; --no-progress on any line turns the run's one status line off. The\n"
      "connection options (--endpoint-url, --profile, --region...) and --debug are the\n"
      "run's: given on a line, that line fails.\n"
      "  --concurrency N, --numworkers N, --loops N, --part-size SIZE, --bwlimit RATE,\n"
      "  --expected-size SIZE, --no-progress, --stat, --resume, --hedge-writes, --page-size N\n"
      "                         as for cp, for the one\n"
      "                         engine of all the lines\n"
      "  --shard K/N|auto       as for cp, for every line without a --shard of its own\n" },
    { "mv", "s3c mv SRC DST [--recursive] [flags]",
      "Like cp, then delete each source once its copy has been verified: an echoed checksum\n"
      "or an ETag equal to what was sent, the ETag of the copy made, a download's check. A\n"
      "store that answers 200 with neither proves nothing: the source is kept (exit 1).\n"
      "An S3 source is deleted only while it is still what was copied (DeleteObject with\n"
      "If-Match: its ETag, or DeleteObjects with each key's ETag once the store is known to\n"
      "check them): one changed meanwhile (412) is kept, a failed delete (exit 1).\n"
      "Within one directory bucket (S3 Express) mv is RenameObject: one atomic request, no\n"
      "copy and no delete (a store without it, 501, gets both).\n"
      "A store that ignores or refuses If-Match on deletes (Ceph 16) is learnt from the\n"
      "first delete and said once; its sources are then deleted without that check.\n" },
    { "rm", "s3c rm s3://BUCKET/KEY... [--recursive] [--exclude P] [--include P] [--dryrun] [--all-versions]",
      "Delete objects: one key, every key under a prefix (--recursive), or every key an\n"
      "s5cmd wildcard matches ('*' and '?', which cross '/'). Several arguments may be\n"
      "given. Deletes go 1,000 keys to a DeleteObjects request, several in flight.\n"
      "Deleting a key that does not exist succeeds, as on S3.\n"
      "  --recursive, -r        every key under s3://BUCKET/PREFIX/ (the whole bucket for s3://BUCKET)\n"
      "  --exclude/--include P  AWS CLI filters: the last matching one wins\n"
      "  --raw                  take the key literally (no wildcards)\n"
      "  --dryrun, --dry-run    print what would be deleted, delete nothing\n"
      "  --page-size N          keys per list request (default 1000)\n"
      "  --version-id V         delete that version of one object\n"
      "  --all-versions         delete every version and delete marker of the keys selected\n"
      KEY_JOB_FLAGS
      "Each key that fails is one error line; any failure exits 1.\n" },
    { "restore", "s3c restore s3://BUCKET/KEY... [--recursive] [--days N] [--tier Standard|Bulk|Expedited] [--dryrun]",
      "Start restores of archived objects (GLACIER, DEEP_ARCHIVE, INTELLIGENT_TIERING's\n"
      "archive tiers): a temporary copy that GET, cp and sync can read for --days days.\n"
      "Arguments as for rm: one key, every key under a prefix (--recursive), or every key\n"
      "an s5cmd wildcard matches. One RestoreObject request an object, many in flight.\n"
      "Running it again is harmless: an object being restored (409\n"
      "RestoreAlreadyInProgress) or restored already (its expiry set anew) is a success,\n"
      "said in parentheses; --json records say \"status\": started, in_progress or restored.\n"
      "An object that is not archived is skipped with a warning (a listed one of another\n"
      "storage class without a request; a named one when the store says 403\n"
      "InvalidObjectState). See the restore's progress with ls -s (GLACIER:restoring,\n"
      "GLACIER:restored) or head (its Restore field).\n"
      "  --days N               days the restored copy stays readable (default 1)\n"
      "  --tier T               retrieval tier: Standard (the store's default), Bulk or Expedited\n"
      "  --recursive, -r        every key under s3://BUCKET/PREFIX/ (the whole bucket for s3://BUCKET)\n"
      "  --exclude/--include P  AWS CLI filters: the last matching one wins\n"
      "  --raw                  take the key literally (no wildcards)\n"
      "  --dryrun, --dry-run    print what would be restored, send nothing\n"
      "  --page-size N          keys per list request (default 1000)\n"
      "  --version-id V         restore that version of one object\n"
      KEY_JOB_FLAGS
      "Exit 0 when every object is restored or being restored, 2 when some were skipped,\n"
      "1 when any failed.\n" },
    { "cat", "s3c cat s3://BUCKET/KEY|PATTERN|PREFIX/ [--raw] [--version-id ID] [--part-size SIZE] [--concurrency N]",
      "Write an object to stdout: ranged GETs in parallel, written in order, with at\n"
      "most 64 MiB in memory (8 ranges of 8 MiB; small objects in smaller ranges).\n"
      "The stored checksum checks it (a CRC of the whole, or a composite one part by\n"
      "part); else a single-part object its ETag (MD5), a multipart one the md5 of its\n"
      "part MD5s, the ranges cut at the upload's parts and each part's MD5 taken before\n"
      "it is written (an object of at most 64 MiB is written only once all of it is\n"
      "proven; a part that keeps failing exits 1; one of 1 MiB or less is held until\n"
      "its check passes, and fetched again when it fails). Only the object goes to\n"
      "stdout: --json records and --stat tables go to stderr. A reader that stops early\n"
      "(s3c cat ... | head) ends it quietly with exit 0, as s5cmd (the AWS CLI says\n"
      "\"[Errno 32] Broken pipe\" and exits 1). Same as `s3c cp s3://BUCKET/KEY -`.\n"
      "A wildcard (s3://BUCKET/logs/*.gz) or a prefix (s3://BUCKET/logs/) writes every\n"
      "object it names, in key order, one after the other, as s5cmd's cat; the first\n"
      "that fails ends it; one that names nothing exits 1.\n"
      "  --raw                  a key with * or ? taken literally\n"
      "  --version-id ID        that version of the object (one key: not with a wildcard or a\n"
      "                         prefix), as cp --version-id\n"
      "  --part-size SIZE       range size (capped at 32 MiB), --concurrency N, --numworkers N,\n"
      "  --bwlimit RATE, --request-payer requester, --no-progress, --checksum-mode ENABLED\n" },
    { "pipe", "s3c pipe s3://BUCKET/KEY [--expected-size SIZE] [object flags]",
      "Upload stdin as one object: a PUT when it ends within the first part, else a\n"
      "multipart upload, parts sent in parallel from at most 64 MiB of part buffers\n"
      "(8 of 8 MiB). With --expected-size the part size fits that size in 10,000\n"
      "parts; without it parts start at 8 MiB (or --part-size) and double every 2,000\n"
      "parts, up to 16 times the start, so stdin may be up to 62,000 start-size parts\n"
      "(484 GiB at 8 MiB). Same as `s3c cp - s3://BUCKET/KEY`.\n"
      "  --content-type T, --cache-control V, --content-encoding V, --content-disposition V,\n"
      "  --content-language V, --expires V, --metadata k=v[,k=v], --storage-class C, --acl A,\n"
      "  --sse AES256|aws:kms, --sse-kms-key-id K, --request-payer requester,\n"
      "  --sse-c AES256 --sse-c-key KEY32, --no-guess-mime-type, --no-overwrite,\n"
      "  -n/--no-clobber, --raw (accepted, as s5cmd's), --checksum-algorithm A (as for cp)\n"
      "  --expected-size SIZE, --part-size SIZE, --concurrency N, --numworkers N,\n"
      "  --bwlimit RATE, --no-progress, --stat\n"
      "  --metadata-directive, --copy-props, --source-region, --sse-c-copy-source,\n"
      "  --source-profile, --source-endpoint-url, --source-no-sign-request,\n"
      "  --source-ca-bundle, --source-addressing-style,\n"
      "  --grants PERM=GRANTEE..., --website-redirect URL   as for cp\n"
      "  --sse-c-copy-source-key, --resume, --loops, --hedge-writes, --destination-region,\n"
      "  --force-glacier-transfer, --ignore-glacier-warnings, --page-size\n"
      "                         accepted as for cp; no effect on a stream\n"
      "  --checksum-mode, --preserve, --no-preserve, --directory-markers\n"
      "                         accepted as for cp; no effect on a stream\n" },
    { "presign", "s3c presign s3://BUCKET/KEY [--expires-in SECONDS] [--version-id ID]",
      "Print a presigned GET URL for the object (no request is sent), as\n"
      "`aws s3 presign`: the configured endpoint, addressing style and region;\n"
      "X-Amz-Security-Token when the credentials have a session token.\n"
      "  --expires-in SECONDS   1 to 604800 (7 days); default 3600\n"
      "  --version-id ID        a URL of that version of the object (versionId, signed; s5cmd's)\n" },
    { "sync", "s3c sync SRC DST [--delete] [--size-only] [--exact-timestamps] [--checksum] [flags]",
      "Make DST hold what SRC holds: local dir -> S3 prefix, S3 -> local dir, or S3 -> S3,\n"
      "as `aws s3 sync` does; SRC may be an s5cmd wildcard ('s3://b/p/*.gz', 'dir/*'): then\n"
      "what it matches is synced, named under its literal directory, and only DST's names\n"
      "it would match are compared or deleted. A file or object is copied when it is missing at DST, its\n"
      "size differs, or (uploads and copies) the source is newer; downloads copy when the\n"
      "local file is newer than the object, and set its mtime to the one the object records\n"
      "(else LastModified), so a second sync of unchanged data copies nothing and sends\n"
      "only the listings. Where a recorded mtime matters and the listing cannot tell (a\n"
      "same-sized file newer than its object, or older but unchanged in status since before\n"
      "the object was written: a newer upload of the same size), a HEAD of that object\n"
      "compares the mtime it records with the file's; --exact-timestamps compares them too.\n"
      "Times compare at the precision both ends have; the same size in the same second is\n"
      "copied unless a checksum proves the bytes equal (MD5 or multipart ETag, stored CRC,\n"
      "equal ETags).\n"
      "  --delete               delete what DST has and SRC has not (never what --exclude\n"
      "                         keeps out, nor what SRC could not read), each key only while\n"
      "                         it is what was listed (its ETag, as mv's sources): one written\n"
      "                         again meanwhile is kept (exit 1)\n"
      "  --size-only            only a size difference copies\n"
      "  --exact-timestamps     downloads: copy same-sized files unless the times are equal\n"
      "                         (the mtime the object records, else LastModified)\n"
      "  --checksum             same-sized files and objects are compared by content (rclone's\n"
      "                         name): the stored full-object CRC (CRC64NVME, CRC32C, CRC32; a\n"
      "                         HEAD each) against the file's, or a single-part MD5 ETag against\n"
      "                         its MD5; S3 to S3, equal ETags or stored CRCs. A change that keeps\n"
      "                         size and time is found. Where neither end has a usable checksum\n"
      "                         (a multipart ETag of an unknown part size and no stored CRC, an\n"
      "                         SSE-KMS or SSE-C object without one) size and time decide, and\n"
      "                         a warning says for how many. Reads every same-sized file whole\n"
      "  --exclude/--include P  AWS CLI filters, applied to both ends: the last match wins\n"
      "  --raw                  take SRC literally (no wildcards)\n"
      "  --dryrun, --dry-run    print what would be done\n"
      "  --follow-symlinks (default), --no-follow-symlinks\n"
      "  and cp's object flags: --content-type T, --cache-control V, --content-encoding V,\n"
      "  --content-disposition V, --content-language V, --expires V, --metadata k=v[,k=v],\n"
      "  --metadata-directive COPY|REPLACE, --copy-props default|metadata-directive|none,\n"
      "  --source-region R, --source-profile P, --source-endpoint-url URL,\n"
      "  --source-no-sign-request, --source-ca-bundle FILE, --source-addressing-style S\n"
      "  (S3 to S3: the two listings are each read on its own side),\n"
      "  --destination-region R, --grants PERM=GRANTEE...,\n"
      "  --website-redirect URL, --force-glacier-transfer, --ignore-glacier-warnings,\n"
      "  --page-size N, --storage-class C, --acl A, --sse AES256|aws:kms,\n"
      "  --sse-kms-key-id K, --sse-c AES256 --sse-c-key KEY32, --sse-c-copy-source AES256\n"
      "  --sse-c-copy-source-key KEY32, --request-payer requester, --no-guess-mime-type,\n"
      "  --checksum-algorithm A, --checksum-mode ENABLED, --preserve, --no-preserve,\n"
      "  --directory-markers (sync up: markers at both ends are up to date; --delete\n"
      "  deletes a marker whose directory is gone or holds files; sync down --delete\n"
      "  removes an empty directory the source has no marker for),\n"
      "  and its engine flags: --concurrency N, --numworkers N, --part-size SIZE,\n"
      "  --loops N, --bwlimit RATE, --expected-size SIZE, --no-progress, --stat, --resume,\n"
      "  --hedge-writes auto|never|always\n"
      "  --shard K/N|auto       as for cp; both ends go by the same names, so --delete\n"
      "                         deletes only within the shard\n"
      "  --from-manifest FILE   as for cp: the source's objects (sizes and times from an\n"
      "                         inventory; a plain key list copies only what DST lacks)\n" },
    { "configure", "s3c configure list [--profile NAME]",
      "Print the configuration in effect as `aws configure list` does: the profile,\n"
      "the access and secret key (masked to their last 4 characters) with the\n"
      "credential provider that supplied them as Type (env, assume-role, sso,\n"
      "shared-credentials-file, custom-process, config-file, container-role,\n"
      "iam-role...), and the region. Credentials are resolved as for a transfer.\n" },
    { "version", "s3c version",
      "Print the version, the libcurl, OpenSSL, expat and ISA-L versions and the CPU\n"
      "features s3c's checksums and TLS use, for bug reports. Same as s3c --version.\n" },
    { "help", "s3c help [VERB]",
      "Print help for every verb, or for one; also s3c VERB --help (or -h), and s3c VERB help\n"
      "when help is the only argument, as the AWS CLI. Anywhere else help is a path: s3c cp\n"
      "help s3://b/k uploads the file named help. A path that starts with - goes after --.\n" },
    { NULL, NULL, NULL },
};

static const char global_text[] =
    "Global options (anywhere on the line):\n"
    "  --endpoint-url URL  S3 endpoint (http:// or https://, any port)\n"
    "  --profile NAME      profile of ~/.aws/config and ~/.aws/credentials\n"
    "  --region REGION     region to sign for and to create buckets in\n"
    "  --no-sign-request   send anonymous requests\n"
    "  --no-verify-ssl     do not verify TLS certificates\n"
    "  --ca-bundle FILE    CA certificates to verify TLS with\n"
    "  --json              results as JSON lines\n"
    "  --quiet             print nothing, failures included (the exit code tells), as the AWS CLI\n"
    "  --only-show-errors  no result lines; failures and warnings only\n"
    "  --no-progress       no live progress line\n"
    "  --debug             trace requests on stderr (credentials are never shown)\n"
    "  --cli-read-timeout SECONDS  cut off a request whose answer moves under 256\n"
    "                      bytes a second (none: no answer) for this long, then retry\n"
    "                      it (default 60, as the AWS CLI; 0: never; profile key\n"
    "                      cli_read_timeout)\n"
    "  --cli-connect-timeout SECONDS  give up connecting after this long, then retry\n"
    "                      (default 10; 0: never; profile key cli_connect_timeout)\n"
    "  --no-paginate, --no-cli-pager, --color on|off|auto  accepted, as the AWS CLI's:\n"
    "                      s3c pages its listings itself, has no pager and no colours\n"
    "s5cmd's global options, the same:\n"
    "  --retry-count N, -r N  retry a failed request N times (max_attempts N + 1);\n"
    "                      -r before the verb only: after it, -r is --recursive\n"
    "  --credentials-file FILE  the shared credentials file (AWS_SHARED_CREDENTIALS_FILE)\n"
    "  --log trace|debug|info|error  trace and debug: --debug; error: --only-show-errors\n"
    "  --use-list-objects-v1  list with ListObjects (marker) for stores without V2\n"
    "  --install-completion  say how the shell gets s3c's completions\n"
    "  before the verb: --dry-run, --stat, --numworkers N, --request-payer requester,\n"
    "                      as the verb's own flags (--dry-run is --dryrun)\n"
    "Configuration follows the AWS CLI: flags, then AWS_* environment variables,\n"
    "then ~/.aws/config and ~/.aws/credentials (see man s3c).\n"
    "Exit codes, the AWS CLI v2's: 0 ok; 1 a transfer, mb or rb failed, or a prefix or\n"
    "wildcard matched nothing; 2 files skipped (unreadable, special, or a key leaving\n"
    "the destination), the rest done; 130 interrupted (SIGINT; SIGTERM 143; 0 when a\n"
    "pipe's reader left, as `s3c ls -r | head -1`); 252 bad command line; 253 bad\n"
    "configuration or no credentials; 254 the store answered with an error (ls, du,\n"
    "head); 255 any other error (the network, the machine).\n";

bool cli_help(const char *verb)
{
    const struct help *h;

    if (!verb) {
        printf("s3c %s: move data between local disks and S3, fast.\n\nUsage:\n", cli_version());
        for (h = helps; h->verb; h++)
            printf("  %s\n", h->synopsis);
        printf("\n%s", global_text);
        return true;
    }
    for (h = helps; h->verb; h++) {
        if (!strcmp(h->verb, verb)) {
            printf("Usage: %s\n\n%s\n%s", h->synopsis, h->text, global_text);
            return true;
        }
    }
    return false;
}

void cli_completion_help(const char *shell)
{
    const char *slash = shell ? strrchr(shell, '/') : NULL;
    const char *name = slash ? slash + 1 : shell ? shell : "";
    const char *file = !strcmp(name, "bash") ? "s3c.bash" : !strcmp(name, "zsh") ? "_s3c"
                     : !strcmp(name, "fish") ? "s3c.fish" : NULL;

    if (!file) {
        printf("# We couldn't recognize your SHELL \"%s\".\n"
               "# Shell completion is supported for bash, zsh and fish.\n"
               "# Make sure that your SHELL environment variable is set accurately.\n", name);
        return;
    }
    printf("# s3c's %s completion is installed with s3c (make install, the Debian package)\n"
           "# where %s looks for completions: a new shell completes s3c by itself.\n"
           "# From a build that is not installed, add this to your shell's startup file:\n",
           name, name);
    if (!strcmp(name, "zsh"))
        printf("fpath=(/path/to/s3c/build $fpath); autoload -Uz compinit && compinit\n");
    else
        printf("source /path/to/s3c/build/%s\n", file);
}

/* ---- the same text for the man page (cli/doc.c renders it as roff) ---- */

bool cli_help_at(int i, const char **verb, const char **synopsis, const char **text)
{
    if (i < 0 || i >= (int)(sizeof(helps) / sizeof(helps[0])) || !helps[i].verb)
        return false;
    *verb = helps[i].verb;
    *synopsis = helps[i].synopsis;
    *text = helps[i].text;
    return true;
}

const char *cli_help_globals(void)
{
    return global_text;
}
