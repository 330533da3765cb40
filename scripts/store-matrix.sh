#!/usr/bin/env bash
# scripts/store-matrix.sh — what an S3 store supports, asked with curl (no s3c):
# the answers docs/STORES.md's matrix is made of. One line per feature:
#   FEATURE: yes|no|ignored — the status codes that say so
#
# Usage: scripts/store-matrix.sh ENDPOINT ACCESS-KEY SECRET-KEY [REGION]
# Makes a bucket of its own (s3c-matrix-<pid>), and deletes what it made.
#
# Features: flexible checksums (CRC32, sent as the SDKs send it, with
# x-amz-sdk-checksum-algorithm: a right one stored and echoed, a wrong one
# refused), CRC64NVME (the same), UploadPartCopy, conditional writes
# (PutObject with If-None-Match: * over an object: 412; DeleteObject with an
# If-Match no object has: 412, where 2xx means the header is ignored and 501
# refused), ListObjectsV2 (list-type=2 pages: KeyCount and a continuation
# token that leads on).
set -uo pipefail

[ $# -ge 3 ] || { echo "usage: $0 ENDPOINT ACCESS-KEY SECRET-KEY [REGION]" >&2; exit 2; }
EP=${1%/} AK=$2 SK=$3 REGION=${4:-us-east-1}
B=s3c-matrix-$$
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# req METHOD PATH [CURL-ARGS...]: one signed request; prints the status code,
# the body in $TMP/body and the headers in $TMP/head.
req() {
    local m=$1 p=$2; shift 2
    curl -sS -o "$TMP/body" -D "$TMP/head" -w '%{http_code}' -X "$m" --aws-sigv4 "aws:amz:$REGION:s3" \
        --user "$AK:$SK" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@" "$EP$p"
}

# ck ALGO FILE: the base64 of FILE's checksum (crc32 or crc64nvme), as S3 spells it.
ck() {
    python3 - "$1" "$2" <<'EOF'
import base64, sys, zlib
algo, data = sys.argv[1], open(sys.argv[2], "rb").read()
if algo == "crc32":
    raw = zlib.crc32(data).to_bytes(4, "big")
else:
    c = 0xFFFFFFFFFFFFFFFF
    for x in data:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ 0x9A6C9329AC4BC9B5 if c & 1 else c >> 1
    raw = (c ^ 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big")
print(base64.b64encode(raw).decode())
EOF
}

# flex ALGO: a right checksum stored and echoed (HEAD with checksum mode), a wrong one refused.
flex() {
    local a=$1 right wrong put bad echoed
    right=$(ck "$a" "$TMP/data")
    wrong=$(printf 'x' > "$TMP/x"; ck "$a" "$TMP/x")
    put=$(req PUT "/$B/ck-$a" -T "$TMP/data" -H "x-amz-checksum-$a: $right" -H "x-amz-sdk-checksum-algorithm: ${a^^}")
    req HEAD "/$B/ck-$a" --head -H "x-amz-checksum-mode: ENABLED" >/dev/null
    echoed=$(tr -d '\r' < "$TMP/head" | grep -i "^x-amz-checksum-$a:" | sed 's/^[^:]*: //')
    bad=$(req PUT "/$B/ck-$a-bad" -T "$TMP/data" -H "x-amz-checksum-$a: $wrong" -H "x-amz-sdk-checksum-algorithm: ${a^^}")
    if [ "$echoed" = "$right" ] && [ "${bad:0:1}" = 4 ]; then
        echo "$a: yes — PUT $put, stored and echoed by HEAD, a wrong one refused ($bad)"
    elif [ "$echoed" = "$right" ] && [ "${bad:0:1}" = 2 ]; then
        echo "$a: stored, not checked — PUT $put, stored and echoed by HEAD, a wrong one taken ($bad)"
    elif [ "${put:0:1}" = 2 ] && [ -z "$echoed" ] && [ "${bad:0:1}" = 2 ]; then
        echo "$a: ignored — PUT $put, none echoed by HEAD, a wrong one taken ($bad)"
    else
        echo "$a: no — PUT $put, HEAD echoed '${echoed}', a wrong one $bad"
    fi
}

printf 'matrix hello\n' > "$TMP/data"
code=$(req PUT "/$B")
[ "${code:0:1}" = 2 ] || { echo "cannot make bucket $B: $code $(cat "$TMP/body")" >&2; exit 1; }

flex crc32
flex crc64nvme

# UploadPartCopy: a part copied from an object.
req PUT "/$B/src" -T "$TMP/data" >/dev/null
req POST "/$B/mpu?uploads=" -H "Content-Length: 0" >/dev/null
uid=$(grep -o '<UploadId>[^<]*' "$TMP/body" | sed 's/<UploadId>//')
code=$(req PUT "/$B/mpu?partNumber=1&uploadId=$uid" -H "x-amz-copy-source: /$B/src" -H "Content-Length: 0")
if [ "${code:0:1}" = 2 ] && grep -q '<ETag>' "$TMP/body"; then
    echo "UploadPartCopy: yes — $code with a CopyPartResult"
else
    echo "UploadPartCopy: no — $code $(grep -o '<Code>[^<]*' "$TMP/body" | sed 's/<Code>//')"
fi
req DELETE "/$B/mpu?uploadId=$uid" >/dev/null

# Conditional writes.
code=$(req PUT "/$B/src" -T "$TMP/data" -H "If-None-Match: *")
case $code in
    412) echo "If-None-Match on PutObject: yes — 412 over an object" ;;
    2*) echo "If-None-Match on PutObject: ignored — $code, the object written over" ;;
    *) echo "If-None-Match on PutObject: no — $code $(grep -o '<Code>[^<]*' "$TMP/body" | sed 's/<Code>//')" ;;
esac
code=$(req DELETE "/$B/src" -H 'If-Match: "00000000000000000000000000000000"')
case $code in
    412) echo "If-Match on DeleteObject: yes — 412 for an ETag the object has not" ;;
    2*) echo "If-Match on DeleteObject: ignored — $code, the object deleted" ;;
    *) echo "If-Match on DeleteObject: no — $code $(grep -o '<Code>[^<]*' "$TMP/body" | sed 's/<Code>//')" ;;
esac

# ListObjectsV2: two keys, one a page.
req PUT "/$B/l1" -T "$TMP/data" >/dev/null
req PUT "/$B/l2" -T "$TMP/data" >/dev/null
code=$(req GET "/$B?list-type=2&max-keys=1&prefix=l") # in canonical order: curl signs it as written
tok=$(grep -o '<NextContinuationToken>[^<]*' "$TMP/body" | sed 's/<NextContinuationToken>//')
first=$(grep -o '<Key>[^<]*' "$TMP/body" | sed 's/<Key>//')
if grep -q '<KeyCount>1</KeyCount>' "$TMP/body" && [ -n "$tok" ]; then
    tok=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$tok")
    code2=$(req GET "/$B?continuation-token=$tok&list-type=2&max-keys=1&prefix=l")
    second=$(grep -o '<Key>[^<]*' "$TMP/body" | sed 's/<Key>//')
    echo "ListObjectsV2: yes — $code then $code2, pages $first then $second"
else
    echo "ListObjectsV2: no — $code $(grep -o '<Code>[^<]*' "$TMP/body" | sed 's/<Code>//'), no KeyCount or NextContinuationToken"
fi

# Clean up: every key, then the bucket.
for k in ck-crc32 ck-crc32-bad ck-crc64nvme ck-crc64nvme-bad src mpu l1 l2; do
    req DELETE "/$B/$k" >/dev/null
done
req DELETE "/$B" >/dev/null
