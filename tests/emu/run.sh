#!/usr/bin/env bash
# tests/emu/run.sh: the s3emu suite. Starts build/s3emu on a free loopback
# port, drives it with the AWS CLI (s3 and s3api), curl (SigV4, presigned,
# faults, latency), tests/emu/chunked.py (aws-chunked uploads), tests/emu/etags.py
# (ETags of bodies received side by side) and
# tests/emu/express.py (S3 Express directory buckets and sessions), and ends
# with one line: "emu: N passed, N failed". Exit status 0 only if none failed.
#
#   tests/emu/run.sh                 uses build/s3emu
#   S3EMU=build-san/s3emu tests/emu/run.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EMU=${S3EMU:-$ROOT/build/s3emu}
AWS_BIN=${AWS_BIN:-/usr/bin/aws}
PY=${PY:-/usr/bin/python3}
AK=s3emu-access
SK=s3emu-secret
T=$(mktemp -d)
pass=0
fail=0
EMU_PID=

cleanup() {
    [ -n "$EMU_PID" ] && kill "$EMU_PID" 2>/dev/null && wait "$EMU_PID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT

ok() { pass=$((pass + 1)); echo "ok   ${SECONDS}s $1"; }
bad() { fail=$((fail + 1)); echo "FAIL ${SECONDS}s $1${2:+ ($2)}"; }
# not_ CMD...: succeeds when CMD fails
not_() { ! "$@"; }
# ge A B / lt A B: float comparisons
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# check NAME CMD...: passes when CMD exits 0
check() { local n=$1; shift; if "$@" >>"$T/log" 2>&1; then ok "$n"; else bad "$n" "see command: $*"; fi; }
# eq NAME GOT WANT
eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got [$2] want [$3]"; fi; }
# has NAME HAYSTACK NEEDLE
has() { case "$2" in *"$3"*) ok "$1" ;; *) bad "$1" "[$3] not in [${2:0:300}]" ;; esac; }

# A sanitizer build reports on stderr: any report is a failure.
check_emu_log() {
    if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$T/emu.err" 2>/dev/null; then
        bad "sanitizer report" "$(grep -m3 -E 'ERROR|runtime error' "$T/emu.err")"
    fi
}

start_emu() {
    "$EMU" --port 0 "$@" >"$T/emu.out" 2>"$T/emu.err" &
    EMU_PID=$!
    # Up to 20 s: a sanitizer build on a busy machine can take seconds to say ready.
    for _ in $(seq 1 400); do
        grep -q '^ready https\?://' "$T/emu.out" 2>/dev/null && break
        kill -0 "$EMU_PID" 2>/dev/null || break
        sleep 0.05
    done
    URL=$(sed -n 's/^ready //p' "$T/emu.out")
    PORT=${URL##*:}
    [ -n "$URL" ] || bad "$EMU started" "no ready line in 20 s: $(tail -n 3 "$T/emu.err" 2>/dev/null)"
}

[ -x "$EMU" ] || { echo "no $EMU: run make first"; echo "emu: 0 passed, 1 failed"; exit 1; }
start_emu
[ -n "$URL" ] || { echo "s3emu printed no ready line"; cat "$T/emu.err"; echo "emu: 0 passed, 1 failed"; exit 1; }
ok "ready line: $URL"

# An isolated AWS CLI setup: its own config and credentials files.
export AWS_CONFIG_FILE=$T/config AWS_SHARED_CREDENTIALS_FILE=$T/credentials
unset AWS_PROFILE AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_DEFAULT_REGION AWS_REGION AWS_CA_BUNDLE
printf '[default]\nregion = us-east-1\n' >"$AWS_CONFIG_FILE"
printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$AK" "$SK" >"$AWS_SHARED_CREDENTIALS_FILE"
export AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
aws() { "$AWS_BIN" --endpoint-url "$URL" "$@"; }
s3curl() { curl -s --aws-sigv4 "aws:amz:${REGION:-us-east-1}:s3" --user "$AK:$SK" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
admin() { curl -s -X POST --data-binary "$1" "$URL/_s3emu/config" >/dev/null; }
stat() { curl -s "$URL/_s3emu/stats" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval("d" + sys.argv[1]))' "$1"; }

B=emu-test-$$
D=$T/data
mkdir -p "$D/up" "$D/down"

# ---- buckets ----
check "mb" aws s3 mb "s3://$B"
has "ls lists the bucket" "$(aws s3 ls)" "$B"
out=$(aws s3 mb "s3://$B" 2>&1)
has "mb twice: BucketAlreadyOwnedByYou" "$out" "BucketAlreadyOwnedByYou"
check "head-bucket" aws s3api head-bucket --bucket "$B"
out=$(aws s3api head-bucket --bucket "nope-$B" 2>&1)
has "head-bucket missing: 404" "$out" "404"
eq "get-bucket-location us-east-1" "$(aws s3api get-bucket-location --bucket "$B" --output text)" "None"
check "mb with LocationConstraint" aws s3api create-bucket --bucket "$B-west" --create-bucket-configuration LocationConstraint=us-west-2
eq "get-bucket-location us-west-2" "$(aws s3api get-bucket-location --bucket "$B-west" --output text)" "us-west-2"

# ---- objects: cp, sync, rm ----
echo "hello s3emu" >"$D/small.txt"
check "cp up" aws s3 cp --only-show-errors "$D/small.txt" "s3://$B/dir/small.txt"
check "cp down" aws s3 cp --only-show-errors "s3://$B/dir/small.txt" "$D/small.back"
check "cp round trip" cmp "$D/small.txt" "$D/small.back"
eq "cp to stdout" "$(aws s3 cp "s3://$B/dir/small.txt" -)" "hello s3emu"
for i in $(seq 1 40); do head -c $((i * 100)) /dev/urandom >"$D/up/f$i"; done
mkdir -p "$D/up/sub"; echo nested >"$D/up/sub/n.txt"
check "sync up" aws s3 sync --only-show-errors "$D/up" "s3://$B/sync/"
eq "ls --recursive counts 41" "$(aws s3 ls --recursive "s3://$B/sync/" | wc -l)" "41"
check "sync down" aws s3 sync --only-show-errors "s3://$B/sync/" "$D/down"
check "sync round trip" diff -r "$D/up" "$D/down"
eq "sync again copies nothing" "$(aws s3 sync "$D/up" "s3://$B/sync/" | wc -l)" "0"
rm "$D/up/f1"
check "sync --delete" aws s3 sync --only-show-errors --delete "$D/up" "s3://$B/sync/"
eq "sync --delete removed one" "$(aws s3 ls --recursive "s3://$B/sync/" | wc -l)" "40"

# ---- multipart through the CLI (8 MB parts) ----
head -c 20000000 /dev/urandom >"$D/big.bin"
check "multipart cp up" aws s3 cp --only-show-errors "$D/big.bin" "s3://$B/big.bin"
etag=$(aws s3api head-object --bucket "$B" --key big.bin --query ETag --output text)
has "multipart ETag is md5-of-md5s-3" "$etag" "-3\""
want=$("$PY" -c '
import hashlib,sys
d=open(sys.argv[1],"rb").read(); p=8*1024*1024
ms=b"".join(hashlib.md5(d[i:i+p]).digest() for i in range(0,len(d),p))
print("\"%s-%d\"" % (hashlib.md5(ms).hexdigest(), (len(d)+p-1)//p))' "$D/big.bin")
eq "multipart ETag value" "$etag" "$want"
check "multipart cp down" aws s3 cp --only-show-errors "s3://$B/big.bin" "$D/big.back"
check "multipart round trip" cmp "$D/big.bin" "$D/big.back"
eq "partNumber=2 size" "$(aws s3api head-object --bucket "$B" --key big.bin --part-number 2 --query ContentLength --output text)" "8388608"
s3curl -o "$D/range" -r 100-199 "$URL/$B/big.bin"
check "ranged GET bytes" cmp "$D/range" <(tail -c +101 "$D/big.bin" | head -c 100)
code=$(s3curl -o /dev/null -w '%{http_code}' -r 30000000- "$URL/$B/big.bin")
eq "unsatisfiable range: 416" "$code" "416"

# Mixed trees in parallel: an empty file, a tiny one and a multipart one share
# kept-alive connections, each request with Expect: 100-continue (botocore
# hangs unless every such request sees a 100 first).
mkdir -p "$D/mix/sub"; : >"$D/mix/empty"; printf x >"$D/mix/one"; cp "$D/big.bin" "$D/mix/sub/big"
par_cp() {
    local i pids=() rc=0
    for i in 1 2 3; do
        timeout 90 "$AWS_BIN" --endpoint-url "$URL" s3 cp --recursive --only-show-errors "$D/mix" "s3://$B/mix/$i/" &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || rc=1; done
    return $rc
}
check "3 parallel cp --recursive of a mixed tree (no hang)" par_cp
eq "... all 9 objects there" "$(aws s3 ls --recursive "s3://$B/" | grep -c ' mix/[123]/')" "9"

# ---- listings and pagination ----
mkdir -p "$D/page"; for i in $(seq -w 1 25); do echo "$i" >"$D/page/k$i"; done
aws s3 sync --only-show-errors "$D/page" "s3://$B/page/"
eq "list-objects-v2 paginates (page 7)" "$(aws s3api list-objects-v2 --bucket "$B" --prefix page/ --page-size 7 --query 'length(Contents)')" "25"
eq "list-objects v1 paginates (page 7)" "$(aws s3api list-objects --bucket "$B" --prefix page/ --page-size 7 --query 'length(Contents)')" "25"
eq "delimiter: common prefixes" "$(aws s3api list-objects-v2 --bucket "$B" --delimiter / --query 'CommonPrefixes[].Prefix' --output text)" "dir/	mix/	page/	sync/"
eq "start-after" "$(aws s3api list-objects-v2 --bucket "$B" --prefix page/ --start-after page/k20 --query 'length(Contents)')" "5"
eq "max-items with delimiter pages" "$(aws s3api list-objects-v2 --bucket "$B" --prefix sync/ --delimiter / --page-size 3 --query 'length(Contents)')" "39"
echo x | aws s3 cp --only-show-errors - "s3://$B/odd/a b+c&d.txt"
eq "encoding-type=url round trip" "$(aws s3api list-objects-v2 --bucket "$B" --prefix odd/ --query 'Contents[0].Key' --output text)" "odd/a b+c&d.txt"
has "raw encoding-type=url" "$(s3curl "$URL/$B?encoding-type=url&list-type=2&prefix=odd%2F")" "<Key>odd/a+b%2Bc%26d.txt</Key>"

# ---- copy ----
check "cp s3 to s3" aws s3 cp --only-show-errors "s3://$B/dir/small.txt" "s3://$B/copy/small.txt"
eq "copied content" "$(aws s3 cp "s3://$B/copy/small.txt" -)" "hello s3emu"
check "copy-object REPLACE" aws s3api copy-object --bucket "$B" --key copy/meta.txt --copy-source "$B/dir/small.txt" --metadata-directive REPLACE --metadata color=blue --content-type text/x-test
eq "REPLACE metadata" "$(aws s3api head-object --bucket "$B" --key copy/meta.txt --query Metadata.color --output text)" "blue"
eq "REPLACE content-type" "$(aws s3api head-object --bucket "$B" --key copy/meta.txt --query ContentType --output text)" "text/x-test"
check "copy-object COPY" aws s3api copy-object --bucket "$B" --key copy/meta2.txt --copy-source "$B/copy/meta.txt"
eq "COPY keeps metadata" "$(aws s3api head-object --bucket "$B" --key copy/meta2.txt --query Metadata.color --output text)" "blue"
out=$(aws s3api copy-object --bucket "$B" --key copy/meta2.txt --copy-source "$B/copy/meta2.txt" 2>&1)
has "copy onto itself: InvalidRequest" "$out" "InvalidRequest"
# S3 keeps no class or encryption of a copy's source: the request's, else STANDARD and none.
check "put with class and SSE" aws s3api put-object --bucket "$B" --key copy/ia.txt --body "$D/small.txt" --storage-class STANDARD_IA --server-side-encryption aws:kms --ssekms-key-id k1
check "copy-object COPY with class and SSE" aws s3api copy-object --bucket "$B" --key copy/ia2.txt --copy-source "$B/copy/ia.txt" --storage-class GLACIER_IR --server-side-encryption AES256
eq "COPY takes the request's class and SSE" "$(aws s3api head-object --bucket "$B" --key copy/ia2.txt --query '[StorageClass, ServerSideEncryption, SSEKMSKeyId]' --output text)" "GLACIER_IR	AES256	None"
check "copy-object COPY, no class or SSE" aws s3api copy-object --bucket "$B" --key copy/ia3.txt --copy-source "$B/copy/ia.txt"
eq "COPY without them: STANDARD, no SSE" "$(aws s3api head-object --bucket "$B" --key copy/ia3.txt --query '[StorageClass, ServerSideEncryption]' --output text)" "None	None"
check "copy onto itself with SSE" aws s3api copy-object --bucket "$B" --key copy/ia3.txt --copy-source "$B/copy/ia3.txt" --server-side-encryption AES256
eq "encrypted in place" "$(aws s3api head-object --bucket "$B" --key copy/ia3.txt --query ServerSideEncryption --output text)" "AES256"
check "cross-region copy" aws s3api copy-object --bucket "$B-west" --key x.txt --copy-source "$B/dir/small.txt"
admin 'xregion_ms=400'
t=$(REGION=us-west-2 s3curl -o /dev/null -w '%{time_starttransfer}' -X PUT -H "x-amz-copy-source: /$B/dir/small.txt" "$URL/$B-west/x2.txt")
check "cross-region copy costs xregion_ms (400 ms)" ge "$t" 0.39
t=$(s3curl -o /dev/null -w '%{time_starttransfer}' -X PUT -H "x-amz-copy-source: /$B/dir/small.txt" "$URL/$B/x3.txt")
check "same-region copy does not" lt "$t" 0.39
admin 'xregion_ms=0'

# ---- multipart through s3api: part rules, UploadPartCopy, ListParts ----
head -c 6000000 /dev/urandom >"$D/p1"; head -c 1000 /dev/urandom >"$D/p2"
uid=$(aws s3api create-multipart-upload --bucket "$B" --key mpu/obj --query UploadId --output text)
e1=$(aws s3api upload-part --bucket "$B" --key mpu/obj --upload-id "$uid" --part-number 1 --body "$D/p1" --query ETag --output text)
e2=$(aws s3api upload-part --bucket "$B" --key mpu/obj --upload-id "$uid" --part-number 2 --body "$D/p2" --query ETag --output text)
eq "list-parts" "$(aws s3api list-parts --bucket "$B" --key mpu/obj --upload-id "$uid" --query 'length(Parts)')" "2"
has "list-multipart-uploads" "$(aws s3api list-multipart-uploads --bucket "$B" --query 'Uploads[].UploadId' --output text)" "$uid"
out=$(aws s3api complete-multipart-upload --bucket "$B" --key mpu/obj --upload-id "$uid" --multipart-upload "{\"Parts\":[{\"PartNumber\":2,\"ETag\":$e2},{\"PartNumber\":1,\"ETag\":$e1}]}" 2>&1)
has "complete out of order: InvalidPartOrder" "$out" "InvalidPartOrder"
out=$(aws s3api complete-multipart-upload --bucket "$B" --key mpu/obj --upload-id "$uid" --multipart-upload "{\"Parts\":[{\"PartNumber\":1,\"ETag\":\"\\\"00000000000000000000000000000000\\\"\"}]}" 2>&1)
has "complete wrong ETag: InvalidPart" "$out" "InvalidPart"
e3=$(aws s3api upload-part-copy --bucket "$B" --key mpu/obj --upload-id "$uid" --part-number 3 --copy-source "$B/big.bin" --copy-source-range bytes=0-5999999 --query CopyPartResult.ETag --output text)
has "upload-part-copy with range" "$e3" '"'
out=$(aws s3api complete-multipart-upload --bucket "$B" --key mpu/obj --upload-id "$uid" --multipart-upload "{\"Parts\":[{\"PartNumber\":1,\"ETag\":$e1},{\"PartNumber\":2,\"ETag\":$e2},{\"PartNumber\":3,\"ETag\":$e3}]}" 2>&1)
has "small middle part: EntityTooSmall" "$out" "EntityTooSmall"
check "complete 1,3" aws s3api complete-multipart-upload --bucket "$B" --key mpu/obj --upload-id "$uid" --multipart-upload "{\"Parts\":[{\"PartNumber\":1,\"ETag\":$e1},{\"PartNumber\":3,\"ETag\":$e3}]}"
aws s3 cp --only-show-errors "s3://$B/mpu/obj" "$D/mpu.back"
check "completed object = part1 + copied range" cmp "$D/mpu.back" <(cat "$D/p1"; head -c 6000000 "$D/big.bin")
uid=$(aws s3api create-multipart-upload --bucket "$B" --key mpu/aborted --query UploadId --output text)
check "abort-multipart-upload" aws s3api abort-multipart-upload --bucket "$B" --key mpu/aborted --upload-id "$uid"
out=$(aws s3api list-parts --bucket "$B" --key mpu/aborted --upload-id "$uid" 2>&1)
has "aborted upload: NoSuchUpload" "$out" "NoSuchUpload"

# ---- presigned URLs ----
purl=$(aws s3 presign "s3://$B/dir/small.txt" --expires-in 300)
eq "presigned GET with curl" "$(curl -s "$purl")" "hello s3emu"
code=$(curl -s -o /dev/null -w '%{http_code}' "${purl/X-Amz-Signature=/X-Amz-Signature=0}")
eq "tampered presigned URL: 403" "$code" "403"
purl=$(aws s3 presign "s3://$B/dir/small.txt" --expires-in 1); sleep 2
has "expired presigned URL" "$(curl -s "$purl")" "Request has expired"

# ---- auth ----
has "no auth: AccessDenied" "$(curl -s "$URL/$B/dir/small.txt")" "<Code>AccessDenied</Code>"
has "wrong secret: SignatureDoesNotMatch" "$(curl -s --aws-sigv4 aws:amz:us-east-1:s3 --user "$AK:wrong" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$URL/$B/dir/small.txt")" "SignatureDoesNotMatch"
has "unknown key: InvalidAccessKeyId" "$(curl -s --aws-sigv4 aws:amz:us-east-1:s3 --user "nobody:$SK" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$URL/$B/dir/small.txt")" "InvalidAccessKeyId"
out=$(REGION=us-west-2 s3curl "$URL/$B?list-type=2")
has "wrong region: AuthorizationHeaderMalformed" "$out" "AuthorizationHeaderMalformed"
has "wrong region: Region hint" "$out" "<Region>us-east-1</Region>"
eq "CLI with wrong region follows the hint" "$("$AWS_BIN" --endpoint-url "$URL" --region eu-west-1 s3api list-objects-v2 --bucket "$B" --prefix dir/ --query 'length(Contents)')" "1"
sha=$(printf 'abc' | sha256sum | cut -d' ' -f1)
code=$(curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 aws:amz:us-east-1:s3 --user "$AK:$SK" -H "x-amz-content-sha256: $sha" -X PUT --data-binary abc "$URL/$B/signed.txt")
eq "signed payload accepted" "$code" "200"
has "signed payload mismatch" "$(curl -s --aws-sigv4 aws:amz:us-east-1:s3 --user "$AK:$SK" -H "x-amz-content-sha256: $sha" -X PUT --data-binary abd "$URL/$B/signed.txt")" "XAmzContentSHA256Mismatch"
has "virtual-hosted addressing" "$(curl -s --aws-sigv4 aws:amz:us-east-1:s3 --user "$AK:$SK" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' --resolve "$B.localhost:$PORT:127.0.0.1" "http://$B.localhost:$PORT/dir/small.txt")" "hello s3emu"

out=$(s3curl -X PUT -H 'Expect: 100-continue' --data-binary @"$D/big.bin" -w ' %{http_code} %{size_upload}' "$URL/nope-$B/k")
has "Expect: 100-continue refused before the body" "$out" "NoSuchBucket</Code>"
has "... and no body bytes were sent" "$out" " 404 0"

# ---- canned ACLs: what an unsigned request may do ----
check "create-bucket --acl public-read" aws s3api create-bucket --bucket "$B-pub" --acl public-read
echo pub >"$D/pub.txt"
check "put a private object in it" aws s3 cp --only-show-errors "$D/pub.txt" "s3://$B-pub/priv.txt"
has "ls --no-sign-request on a public-read bucket" "$(aws s3 ls "s3://$B-pub" --no-sign-request)" "priv.txt"
has "ls --no-sign-request on a private bucket: AccessDenied" "$(aws s3 ls "s3://$B" --no-sign-request 2>&1)" "AccessDenied"
eq "unsigned GET of a private object: 403" "$(curl -s -o /dev/null -w '%{http_code}' "$URL/$B-pub/priv.txt")" "403"
check "put-object-acl public-read" aws s3api put-object-acl --bucket "$B-pub" --key priv.txt --acl public-read
eq "unsigned GET of a public-read object" "$(curl -s "$URL/$B-pub/priv.txt")" "pub"
eq "get-object-acl shows the AllUsers READ grant" "$(aws s3api get-object-acl --bucket "$B-pub" --key priv.txt --query 'Grants[].Permission' --output text)" "FULL_CONTROL	READ"
eq "unsigned PUT into a public-read bucket: 403" "$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data x "$URL/$B-pub/anon")" "403"
check "rb the public bucket" aws s3 rb --force "s3://$B-pub"

# ---- integrity: checksums, Content-MD5, aws-chunked ----
code=$(s3curl -o /dev/null -w '%{http_code}' -X PUT --data-binary abc -H 'x-amz-checksum-crc32: NSRBwg==' "$URL/$B/ck/crc32")
eq "x-amz-checksum-crc32 accepted" "$code" "200"
has "checksum returned with checksum-mode" "$(s3curl -I -H 'x-amz-checksum-mode: ENABLED' "$URL/$B/ck/crc32")" "x-amz-checksum-crc32: NSRBwg=="
has "wrong crc32: BadDigest" "$(s3curl -X PUT --data-binary abd -H 'x-amz-checksum-crc32: NSRBwg==' "$URL/$B/ck/crc32")" "BadDigest"
code=$(s3curl -o /dev/null -w '%{http_code}' -X PUT --data-binary 123456789 -H 'x-amz-checksum-crc64nvme: rosUhgp5mIg=' "$URL/$B/ck/crc64")
eq "x-amz-checksum-crc64nvme accepted" "$code" "200"
code=$(s3curl -o /dev/null -w '%{http_code}' -X PUT --data-binary 123456789 -H 'x-amz-checksum-crc32c: 4waSgw==' "$URL/$B/ck/crc32c")
eq "x-amz-checksum-crc32c accepted" "$code" "200"
md5=$(printf abc | openssl md5 -binary | base64)
code=$(s3curl -o /dev/null -w '%{http_code}' -X PUT --data-binary abc -H "Content-MD5: $md5" "$URL/$B/ck/md5")
eq "Content-MD5 accepted" "$code" "200"
has "wrong Content-MD5: BadDigest" "$(s3curl -X PUT --data-binary abd -H "Content-MD5: $md5" "$URL/$B/ck/md5")" "BadDigest"
CH=$ROOT/tests/emu/chunked.py
has "aws-chunked signed chunks" "$("$PY" "$CH" "$URL" "$B" ck/signed signed "$AK" "$SK")" "200"
has "aws-chunked bad chunk signature: 403" "$("$PY" "$CH" "$URL" "$B" ck/badsig badsig "$AK" "$SK")" "SignatureDoesNotMatch"
has "aws-chunked unsigned + crc32 trailer" "$("$PY" "$CH" "$URL" "$B" ck/trailer trailer "$AK" "$SK")" "200"
has "aws-chunked wrong trailer crc: BadDigest" "$("$PY" "$CH" "$URL" "$B" ck/badcrc badcrc "$AK" "$SK")" "BadDigest"
eq "aws-chunked object size" "$(aws s3api head-object --bucket "$B" --key ck/signed --query ContentLength --output text)" "66560"
# The ETag's MD5 is taken as bodies arrive, up to eight side by side: every ETag right (tests/emu/etags.py).
has "ETags of 128 interleaved bodies, every framing" "$("$PY" "$ROOT/tests/emu/etags.py" "$URL" "$B" "$AK" "$SK" 2>&1)" "ok 128"

# ---- conditional requests ----
etag=$(aws s3api head-object --bucket "$B" --key dir/small.txt --query ETag --output text)
eq "If-None-Match hit: 304" "$(s3curl -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$URL/$B/dir/small.txt")" "304"
eq "If-Match miss: 412" "$(s3curl -o /dev/null -w '%{http_code}' -H 'If-Match: "nope"' "$URL/$B/dir/small.txt")" "412"
eq "If-Modified-Since future: 304" "$(s3curl -o /dev/null -w '%{http_code}' -H 'If-Modified-Since: Fri, 01 Jan 2100 00:00:00 GMT' "$URL/$B/dir/small.txt")" "304"
eq "PUT If-None-Match * on existing: 412" "$(s3curl -o /dev/null -w '%{http_code}' -X PUT --data-binary x -H 'If-None-Match: *' "$URL/$B/dir/small.txt")" "412"
eq "PUT If-None-Match * on new: 200" "$(s3curl -o /dev/null -w '%{http_code}' -X PUT --data-binary x -H 'If-None-Match: *' "$URL/$B/cond/new")" "200"
eq "PUT If-Match right: 200" "$(s3curl -o /dev/null -w '%{http_code}' -X PUT --data-binary y -H "If-Match: $etag" "$URL/$B/dir/small.txt")" "200"

# ---- versioning ----
check "put-bucket-versioning" aws s3api put-bucket-versioning --bucket "$B-west" --versioning-configuration Status=Enabled
eq "get-bucket-versioning" "$(aws s3api get-bucket-versioning --bucket "$B-west" --query Status --output text)" "Enabled"
echo one >"$D/one"; v1=$(aws s3api put-object --bucket "$B-west" --key v.txt --body "$D/one" --query VersionId --output text)
echo two >"$D/two"; v2=$(aws s3api put-object --bucket "$B-west" --key v.txt --body "$D/two" --query VersionId --output text)
eq "two versions" "$(aws s3api list-object-versions --bucket "$B-west" --prefix v.txt --query 'length(Versions)')" "2"
aws s3api get-object --bucket "$B-west" --key v.txt --version-id "$v1" "$D/v1" >/dev/null
eq "GET by versionId" "$(cat "$D/v1")" "one"
dm=$(aws s3api delete-object --bucket "$B-west" --key v.txt --query DeleteMarker --output text)
eq "DELETE makes a delete marker" "$dm" "True"
out=$(aws s3api head-object --bucket "$B-west" --key v.txt 2>&1)
has "HEAD after delete marker: 404" "$out" "404"
eq "list-object-versions shows the marker" "$(aws s3api list-object-versions --bucket "$B-west" --prefix v.txt --query 'length(DeleteMarkers)')" "1"
check "DELETE a version" aws s3api delete-object --bucket "$B-west" --key v.txt --version-id "$v2"
eq "one version left" "$(aws s3api list-object-versions --bucket "$B-west" --prefix v.txt --query 'length(Versions)')" "1"

# ---- DeleteObjects ----
out=$(aws s3api delete-objects --bucket "$B" --delete '{"Objects":[{"Key":"page/k01"},{"Key":"page/k02"}]}' --query 'length(Deleted)')
eq "delete-objects verbose" "$out" "2"
out=$(aws s3api delete-objects --bucket "$B" --delete '{"Objects":[{"Key":"page/k03"}],"Quiet":true}' --output json)
eq "delete-objects quiet" "$(echo "$out" | grep -c Deleted)" "0"
eq "after delete-objects" "$(aws s3 ls "s3://$B/page/" | wc -l)" "22"

# ---- object tagging ----
echo tagged >"$D/tagged.txt"
check "put-object with --tagging" aws s3api put-object --bucket "$B" --key tag/a --body "$D/tagged.txt" --tagging 't1=v1&t2=a%20b'
eq "get-object-tagging" "$(aws s3api get-object-tagging --bucket "$B" --key tag/a --query 'TagSet[].[Key,Value]' --output text | tr '\t\n' '=;')" "t1=v1;t2=a b;"
has "HEAD says x-amz-tagging-count" "$(s3curl -I "$URL/$B/tag/a")" "x-amz-tagging-count: 2"
check "put-object-tagging" aws s3api put-object-tagging --bucket "$B" --key tag/a --tagging '{"TagSet":[{"Key":"k","Value":""}]}'
eq "tags replaced" "$(aws s3api get-object-tagging --bucket "$B" --key tag/a --query 'TagSet[].Key' --output text)" "k"
check "copy-object keeps the tags (COPY)" aws s3api copy-object --bucket "$B" --key tag/b --copy-source "$B/tag/a"
eq "copy's tags" "$(aws s3api get-object-tagging --bucket "$B" --key tag/b --query 'TagSet[].Key' --output text)" "k"
check "copy-object REPLACE" aws s3api copy-object --bucket "$B" --key tag/c --copy-source "$B/tag/a" --tagging-directive REPLACE --tagging 'x=y'
eq "REPLACE's tags" "$(aws s3api get-object-tagging --bucket "$B" --key tag/c --query 'TagSet[].Key' --output text)" "x"
check "delete-object-tagging" aws s3api delete-object-tagging --bucket "$B" --key tag/c
eq "no tags left" "$(aws s3api get-object-tagging --bucket "$B" --key tag/c --query 'length(TagSet)')" "0"
has "no x-amz-tagging-count without tags" "$(s3curl -I "$URL/$B/tag/c" | grep -ci tagging-count)" "0"
many=$(for i in $(seq 1 11); do printf '{Key=k%d,Value=v},' "$i"; done)
has "11 tags: BadRequest" "$(aws s3api put-object-tagging --bucket "$B" --key tag/a --tagging "TagSet=[${many%,}]" 2>&1)" "Object tags cannot be greater than 10"
has "a key of 129 characters: InvalidTag" "$(aws s3api put-object-tagging --bucket "$B" --key tag/a --tagging "TagSet=[{Key=$(printf 'k%.0s' $(seq 1 129)),Value=v}]" 2>&1)" "InvalidTag"
has "a value of 257 characters: InvalidTag" "$(aws s3api put-object-tagging --bucket "$B" --key tag/a --tagging "TagSet=[{Key=k,Value=$(printf 'v%.0s' $(seq 1 257))}]" 2>&1)" "InvalidTag"
has "a key twice: InvalidTag" "$(aws s3api put-object-tagging --bucket "$B" --key tag/a --tagging 'TagSet=[{Key=k,Value=1},{Key=k,Value=2}]' 2>&1)" "Cannot provide multiple Tags with the same key"
has "aws: prefix: InvalidTag" "$(aws s3api put-object-tagging --bucket "$B" --key tag/a --tagging 'TagSet=[{Key=aws:k,Value=1}]' 2>&1)" "InvalidTag"
has "a header key twice: InvalidArgument" "$(s3curl -X PUT --data-binary x -H 'x-amz-tagging: a=1&a=2' "$URL/$B/tag/d")" "InvalidArgument"
has "bad escape in the header: InvalidArgument" "$(s3curl -X PUT --data-binary x -H 'x-amz-tagging: a=%zz' "$URL/$B/tag/d")" "InvalidArgument"
has "a bad body: MalformedXML" "$(s3curl -X PUT --data-binary '<Tagging><Oops/></Tagging>' "$URL/$B/tag/a?tagging=")" "MalformedXML"
has "bucket tagging: 501" "$(s3curl "$URL/$B?tagging=")" "NotImplemented"
check "tag the multipart object" aws s3api put-object-tagging --bucket "$B" --key big.bin --tagging 'TagSet=[{Key=big,Value=yes}]'
check "the AWS CLI's multipart copy (GetObjectTagging first)" aws s3 cp --only-show-errors "s3://$B/big.bin" "s3://$B/tag/big-copy"
eq "its tags" "$(aws s3api get-object-tagging --bucket "$B" --key tag/big-copy --query 'TagSet[].[Key,Value]' --output text)" "big	yes"

# ---- faults ----
admin 'faults=500@op=GetObject,key=dir/*,nth=1'
has "fault 500 InternalError" "$(s3curl "$URL/$B/dir/small.txt")" "InternalError"
eq "fault nth=1 fires once" "$(s3curl "$URL/$B/dir/small.txt")" "y"
eq "stats count the 500" "$(stat '["faults"]["500"]')" "1"
admin 'faults=503@op=PutObject'
has "fault 503 SlowDown" "$(s3curl -X PUT --data-binary x "$URL/$B/f/x")" "<Code>SlowDown</Code>"
admin 'faults=503@op=PutObject,times=2'
check "CLI retries through two 503s" aws s3 cp --only-show-errors "$D/small.txt" "s3://$B/f/retried.txt"
admin 'faults=reset@op=GetObject'
s3curl -o /dev/null "$URL/$B/big.bin"; rc=$?
check "fault reset: curl fails" test "$rc" -ne 0
admin 'faults=reset-mid@op=GetObject'
s3curl -o /dev/null "$URL/$B/big.bin"; rc=$?
check "fault reset-mid: curl fails" test "$rc" -ne 0
admin 'faults=truncate@op=GetObject'
s3curl -o /dev/null "$URL/$B/big.bin"; rc=$?
eq "fault truncate: curl sees a partial file (18)" "$rc" "18"
admin 'faults=corrupt@op=GetObject,key=big.bin'
s3curl -o "$D/corrupt" "$URL/$B/big.bin"
check "fault corrupt: same size" test "$(stat -c %s "$D/corrupt" 2>/dev/null || wc -c <"$D/corrupt")" = 20000000
check "fault corrupt: different bytes" not_ cmp -s "$D/corrupt" "$D/big.bin"
admin 'faults=slow@op=GetObject,rate=200000'
t=$(s3curl -o /dev/null -w '%{time_total}' -r 0-399999 "$URL/$B/big.bin")
check "fault slow: 400 KB at 200 KB/s takes >= 1.5 s" ge "$t" 1.5
admin 'faults=reset-mid@op=PutObject'
head -c 1000000 /dev/urandom >"$D/mid"
s3curl -o /dev/null -X PUT --data-binary @"$D/mid" "$URL/$B/f/mid"; rc=$?
check "fault reset-mid on upload: curl fails" test "$rc" -ne 0
admin 'faults=deny@op=PutObject,key=f/denied'
has "fault deny: 403 AccessDenied" "$(s3curl -X PUT --data-binary x "$URL/$B/f/denied")" "<Code>AccessDenied</Code>"
# In DeleteObjects a deny rule with key= refuses each matching key alone, as a bucket policy would.
admin 'faults=deny@op=DeleteObjects,key=page/k1*'
out=$(aws s3api delete-objects --bucket "$B" --delete '{"Objects":[{"Key":"page/k04"},{"Key":"page/k10"},{"Key":"page/k11"}],"Quiet":true}' --output json)
eq "fault deny per key: the matching keys fail" "$(echo "$out" | "$PY" -c 'import json,sys; print(" ".join(e["Key"] + ":" + e["Code"] for e in json.load(sys.stdin)["Errors"]))')" "page/k10:AccessDenied page/k11:AccessDenied"
eq "fault deny per key: the others go, the denied stay" "$(aws s3 ls "s3://$B/page/" | grep -c -E ' k(04|10|11)$')" "2"
eq "stats count the PUT's and the two keys' denials" "$(stat '["faults"]["deny"]')" "3"
admin 'faults=500@p=0.5'
n500=0; for i in $(seq 1 40); do c=$(s3curl -o /dev/null -w '%{http_code}' "$URL/$B/dir/small.txt"); [ "$c" = 500 ] && n500=$((n500 + 1)); done
check "fault p=0.5: between 5 and 35 of 40" test "$n500" -ge 5 -a "$n500" -le 35
admin 'faults='
eq "faults cleared" "$(s3curl -o /dev/null -w '%{http_code}' "$URL/$B/dir/small.txt")" "200"
has "stats has per-op counters" "$(curl -s "$URL/_s3emu/stats")" '"GetObject":'

# ---- latency, bandwidth, rate limits ----
admin '{"latency_ms": 200}'
t=$(s3curl -o /dev/null -w '%{time_starttransfer}' "$URL/$B/dir/small.txt")
check "latency 200 ms: first byte >= 0.19 s" ge "$t" 0.19
admin 'latency_ms=0'
t=$(s3curl -o /dev/null -w '%{time_starttransfer}' "$URL/$B/dir/small.txt")
check "latency 0: first byte < 0.1 s" lt "$t" 0.1
admin 'latency_ms=20&tail_pct=50&tail_mult=10'
slow=0; for i in $(seq 1 20); do t=$(s3curl -o /dev/null -w '%{time_starttransfer}' "$URL/$B/dir/small.txt"); ge "$t" 0.15 && slow=$((slow + 1)); done
check "tail: some of 20 requests 10x slower" test "$slow" -ge 2 -a "$slow" -le 18
admin 'latency_ms=0&tail_pct=0'
admin 'bandwidth_mbps=4'
t=$(s3curl -o /dev/null -w '%{time_total}' -r 0-7999999 "$URL/$B/big.bin")
check "bandwidth 4 MB/s: 8 MB takes >= 1.8 s" ge "$t" 1.8
admin 'bandwidth_mbps=0'
admin 'rate_get=2'
n503=0; for i in $(seq 1 30); do c=$(s3curl -o /dev/null -w '%{http_code}' "$URL/$B/dir/small.txt"); [ "$c" = 503 ] && n503=$((n503 + 1)); done
check "rate limit 2/s: 30 quick GETs see 503s" test "$n503" -ge 5
check "rate limit counted" test "$(stat '["slowdowns"]')" -ge 5
admin 'rate_get=0'
has "bad config is refused" "$(curl -s -X POST --data 'nonsense=1' "$URL/_s3emu/config")" "unknown setting"

# ---- temporary credentials (tests/creds/fake_iam.py issues them) ----
"$PY" "$ROOT/tests/creds/fake_iam.py" --access-key "$AK" --secret-key "$SK" --parent-pid $$ \
    --config '{"web_identity_tokens": ["oidc-token"]}' >"$T/fake.out" 2>"$T/fake.err" &
FAKE_PID=$!
for _ in $(seq 1 100); do grep -q '^ready ' "$T/fake.out" 2>/dev/null && break; sleep 0.05; done
FAKE=$(sed -n 's/^ready //p' "$T/fake.out")
# xml_field TAG: the text of <TAG> in stdin
xml_field() { sed -n "s|.*<$1>\([^<]*\)</$1>.*|\1|p"; }
wi=$(curl -s -X POST "$FAKE/" --data 'Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn:aws:iam::123456789012:role/emu&RoleSessionName=emu&WebIdentityToken=oidc-token')
TAK=$(xml_field AccessKeyId <<<"$wi") TSK=$(xml_field SecretAccessKey <<<"$wi") TTOK=$(xml_field SessionToken <<<"$wi")
has "fake: web identity issues an ASIA key" "$TAK" "ASIA"
tcurl() { curl -s --aws-sigv4 "aws:amz:us-east-1:s3" --user "$TAK:$TSK" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
curl -s -X DELETE "$URL/_s3emu/stats" >/dev/null
eq "temporary key with its token: 200" "$(tcurl -H "x-amz-security-token: $TTOK" -o /dev/null -w '%{http_code}' "$URL/$B?list-type=2")" "200"
eq "signers counts the temporary key" "$(stat "['signers']['$TAK']")" "1"
has "temporary key without a token: InvalidAccessKeyId" "$(tcurl "$URL/$B?list-type=2")" "<Code>InvalidAccessKeyId</Code>"
# Its last character changed (to '0', or to '1' where it was '0': the token unchanged passed once in CI).
bad_tok=${TTOK%?}0; [ "$bad_tok" = "$TTOK" ] && bad_tok=${TTOK%?}1
has "a token not ours: InvalidToken" "$(tcurl -H "x-amz-security-token: $bad_tok" "$URL/$B?list-type=2")" "<Code>InvalidToken</Code>"
has "another key's secret: SignatureDoesNotMatch" "$(curl -s --aws-sigv4 "aws:amz:us-east-1:s3" --user "$TAK:$SK" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -H "x-amz-security-token: $TTOK" "$URL/$B?list-type=2")" "SignatureDoesNotMatch"
head -c 9000000 /dev/urandom >"$D/temp.bin"
check "AWS CLI with a session token: multipart cp up" env AWS_ACCESS_KEY_ID="$TAK" AWS_SECRET_ACCESS_KEY="$TSK" AWS_SESSION_TOKEN="$TTOK" AWS_SHARED_CREDENTIALS_FILE=/dev/null "$AWS_BIN" --endpoint-url "$URL" s3 cp --only-show-errors "$D/temp.bin" "s3://$B/temp.bin"
check "... and down" env AWS_ACCESS_KEY_ID="$TAK" AWS_SECRET_ACCESS_KEY="$TSK" AWS_SESSION_TOKEN="$TTOK" AWS_SHARED_CREDENTIALS_FILE=/dev/null "$AWS_BIN" --endpoint-url "$URL" s3 cp --only-show-errors "s3://$B/temp.bin" "$D/temp.back"
check "... round trip" cmp "$D/temp.bin" "$D/temp.back"
purl=$("$PY" -c 'import sys, botocore.session, botocore.config
s = botocore.session.get_session()
c = s.create_client("s3", region_name="us-east-1", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3], aws_session_token=sys.argv[4], config=botocore.config.Config(signature_version="s3v4"))
print(c.generate_presigned_url("get_object", Params={"Bucket": sys.argv[5], "Key": "temp.bin"}, ExpiresIn=300))' "$URL" "$TAK" "$TSK" "$TTOK" "$B")
has "presigned URL carries X-Amz-Security-Token" "$purl" "X-Amz-Security-Token="
eq "presigned GET with a temporary key" "$(curl -s "$purl" | sha256sum)" "$(sha256sum <"$D/temp.bin")"
# STS AssumeRole: signed with s3emu's key, then chained from the key it issued.
ar=$(curl -s --aws-sigv4 "aws:amz:us-east-1:sts" --user "$AK:$SK" -X POST "$FAKE/" --data 'Action=AssumeRole&Version=2011-06-15&RoleArn=arn:aws:iam::123456789012:role/a&RoleSessionName=emu')
RAK=$(xml_field AccessKeyId <<<"$ar") RSK=$(xml_field SecretAccessKey <<<"$ar") RTOK=$(xml_field SessionToken <<<"$ar")
has "fake: AssumeRole signed with s3emu's key" "$RAK" "ASIA"
has "fake: AssumeRole with a wrong secret: SignatureDoesNotMatch" "$(curl -s --aws-sigv4 "aws:amz:us-east-1:sts" --user "$AK:nope" -X POST "$FAKE/" --data 'Action=AssumeRole&Version=2011-06-15&RoleArn=arn:aws:iam::123456789012:role/a&RoleSessionName=emu')" "<Code>SignatureDoesNotMatch</Code>"
ar2=$(curl -s --aws-sigv4 "aws:amz:us-east-1:sts" --user "$RAK:$RSK" -H "x-amz-security-token: $RTOK" -X POST "$FAKE/" --data 'Action=AssumeRole&Version=2011-06-15&RoleArn=arn:aws:iam::123456789012:role/b&RoleSessionName=emu2&DurationSeconds=1000')
has "fake: role chaining (AssumeRole signed with an issued key)" "$(curl -s "$FAKE/_fake/issued" | jq -c '.issued[-1] | [.signed_by, .role_arn, .expiration - (.issued_at | floor)]')" "[\"$RAK\",\"arn:aws:iam::123456789012:role/b\",1000]"
has "fake: role chaining answer" "$ar2" "<AccessKeyId>ASIA"
# Expiry: a key issued for 2 s is refused after it with ExpiredToken.
curl -s -X POST "$FAKE/_fake/config" --data '{"lifetime": 2}' >/dev/null
wi=$(curl -s -X POST "$FAKE/" --data 'Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn:aws:iam::123456789012:role/emu&RoleSessionName=emu&WebIdentityToken=oidc-token')
TAK=$(xml_field AccessKeyId <<<"$wi") TSK=$(xml_field SecretAccessKey <<<"$wi") TTOK=$(xml_field SessionToken <<<"$wi")
eq "short-lived key before expiry: 200" "$(tcurl -H "x-amz-security-token: $TTOK" -o /dev/null -w '%{http_code}' "$URL/$B?list-type=2")" "200"
sleep 2.2
out=$(tcurl -H "x-amz-security-token: $TTOK" -w ' %{http_code}' "$URL/$B?list-type=2")
has "after expiry: 400 ExpiredToken" "$out" "<Code>ExpiredToken</Code>"
has "... with status 400" "$out" " 400"
curl -s -X DELETE "$URL/_s3emu/stats" >/dev/null
eq "stats reset empties signers" "$(stat "['signers']")" "{}"
kill "$FAKE_PID"; wait "$FAKE_PID" 2>/dev/null

# ---- clean up: rm, rb ----
check "rm --recursive" aws s3 rm --only-show-errors --recursive "s3://$B/"
eq "bucket empty" "$(aws s3 ls --recursive "s3://$B/" | wc -l)" "0"
check "rb" aws s3 rb "s3://$B"
out=$(aws s3 rb "s3://$B-west" 2>&1)
has "rb non-empty: BucketNotEmpty" "$out" "BucketNotEmpty"
out=$(aws s3 rb --force "s3://$B-west" 2>&1)
has "rb --force on a versioned bucket leaves versions (as S3 does)" "$out" "BucketNotEmpty"
aws s3api list-object-versions --bucket "$B-west" --output json --query '{Objects: [Versions[].{Key: Key, VersionId: VersionId}, DeleteMarkers[].{Key: Key, VersionId: VersionId}][]}' >"$D/versions.json"
check "delete-objects by version id" aws s3api delete-objects --bucket "$B-west" --delete "file://$D/versions.json"
check "rb after deleting versions" aws s3 rb "s3://$B-west"
check "emulator still alive" kill -0 "$EMU_PID"

# ---- anonymous mode, keys from flags ----
kill "$EMU_PID"; wait "$EMU_PID" 2>/dev/null; check_emu_log
start_emu --anonymous --dir "$T/emudir"
eq "anonymous: PUT without auth" "$(curl -s -o /dev/null -w '%{http_code}' -X PUT "$URL/anon")" "200"
curl -s -X PUT --data-binary @"$D/big.bin" "$URL/anon/big" >/dev/null
check "--dir: object bytes live in a mapped file" grep -q "$T/emudir/blob-" "/proc/$EMU_PID/maps"
curl -s -o "$D/dir.back" "$URL/anon/big"
check "--dir: round trip" cmp "$D/big.bin" "$D/dir.back"
# One connection, two PUTs: the empty one must not inherit the first body's digest.
curl -s -o /dev/null -X PUT --data-binary @"$D/big.bin" "$URL/anon/ka1" --next -s -o /dev/null -X PUT --data-binary "" "$URL/anon/ka2"
has "keep-alive: an empty PUT after a full one has the empty ETag" "$(curl -s -I "$URL/anon/ka2")" "d41d8cd98f00b204e9800998ecf8427e"
# Many workers, one store: parallel PUTs from 8 clients all land and are all counted.
curl -s -X DELETE "$URL/_s3emu/stats" >/dev/null
seq 1 48 | xargs -P 8 -I{} curl -s -o /dev/null -X PUT --data-binary "body {}" "$URL/anon/par/k{}"
eq "threads: 48 parallel PUTs listed" "$(curl -s "$URL/anon?list-type=2&prefix=par/" | grep -o '<Key>' | wc -l)" "48"
eq "threads: 48 parallel PUTs counted" "$(stat '["ops"]["PutObject"]')" "48"
eq "threads: content of one" "$(curl -s "$URL/anon/par/k17")" "body 17"
kill "$EMU_PID"; wait "$EMU_PID" 2>/dev/null; check_emu_log

# ---- populate and listing at scale ----
start_emu --anonymous --threads 2
out=$(curl -s -X POST "$URL/_s3emu/populate?bucket=pop&prefix=p/&count=2500&size=3")
has "populate: 2500 created" "$out" '"created":2500'
has "populate: ETag is the MD5 of 3 zero bytes" "$(curl -s -I "$URL/pop/p/000002499")" "$(head -c 3 /dev/zero | openssl md5 | sed 's/.* //')"
eq "populate: bytes are zeros" "$(curl -s "$URL/pop/p/000000007" | od -An -tx1 | tr -d ' \n')" "000000"
curl -s -X POST "$URL/_s3emu/populate?bucket=pop&prefix=p/&count=10&start=2500" >/dev/null
pages=0 keys=0 tok=
while :; do
    curl -s "$URL/pop?list-type=2${tok:+&continuation-token=$tok}" >"$D/pop.xml"
    pages=$((pages + 1)); keys=$((keys + $(grep -o '<Key>' "$D/pop.xml" | wc -l)))
    tok=$(sed -n 's/.*<NextContinuationToken>\([^<]*\)<.*/\1/p' "$D/pop.xml" | sed 's/=/%3D/g; s/+/%2B/g; s#/#%2F#g')
    [ -n "$tok" ] && [ "$pages" -lt 10 ] || break
done
eq "populate: 2510 keys in 3 pages of 1000" "$pages $keys" "3 2510"
has "list start-after seeks there" "$(curl -s "$URL/pop?list-type=2&max-keys=1&start-after=p/000001233")" "<Key>p/000001234</Key>"
has "populate without count: 400" "$(curl -s -X POST "$URL/_s3emu/populate?bucket=pop")" '"error"'
kill "$EMU_PID"; wait "$EMU_PID" 2>/dev/null; check_emu_log
start_emu --access-key AKIDEXAMPLE --secret-key wJalrXUtnFEMI --region eu-central-1
AK=AKIDEXAMPLE SK=wJalrXUtnFEMI REGION=eu-central-1
eq "keys from flags accepted" "$(s3curl -o /dev/null -w '%{http_code}' -X PUT "$URL/flagkeys")" "200"
AK=s3emu-access SK=s3emu-secret
has "default keys refused then" "$(s3curl "$URL/flagkeys?list-type=2")" "InvalidAccessKeyId"
kill "$EMU_PID"; wait "$EMU_PID" 2>/dev/null; EMU_PID=; check_emu_log

# ---- S3 Express One Zone: directory buckets, sessions (tests/emu/express.py) ----
start_emu
"$PY" "$ROOT/tests/emu/express.py" "$URL" "$AK" "$SK" >"$T/express.out" 2>&1
while IFS= read -r line; do
    case "$line" in
    "ok   "*) ok "${line#ok   }" ;;
    "FAIL "*) bad "${line#FAIL }" ;;
    *) echo "     $line" ;;
    esac
done <"$T/express.out"
grep -q '^ok   express: deleted bucket gone' "$T/express.out" || bad "express.py ran to its end" "$(tail -3 "$T/express.out")"
# Appends as the AWS CLI sends them (put-object --write-offset-bytes: CreateSession, then the
# session-signed PutObject with its CRC32), into the directory bucket express.py leaves. Debian
# 12's AWS CLI (2.9) predates appends: the checks run with the first CLI that has them, if any.
APPEND_AWS=
for a in "$AWS_BIN" $(type -P -a aws); do
    if "$a" s3api put-object --generate-cli-skeleton input 2>/dev/null | grep -q WriteOffsetBytes; then
        APPEND_AWS=$a
        break
    fi
done
if [ -n "$APPEND_AWS" ]; then
    XB=emu-x--use1-az4--x-s3
    ap() { "$APPEND_AWS" --endpoint-url "$URL" s3api "$@"; }
    head -c 100000 /dev/urandom >"$D/ap1"; head -c 12345 /dev/urandom >"$D/ap2"; cat "$D/ap1" "$D/ap2" >"$D/ap12"
    admin "reset_stats=1"
    check "append (AWS CLI): put-object --write-offset-bytes 0 creates" ap put-object --bucket "$XB" \
        --key cli/app.bin --body "$D/ap1" --write-offset-bytes 0
    check "append (AWS CLI): ... at its size appends" ap put-object --bucket "$XB" --key cli/app.bin \
        --body "$D/ap2" --write-offset-bytes 100000
    has "append (AWS CLI): ... at another offset: InvalidWriteOffset" "$(ap put-object --bucket "$XB" \
        --key cli/app.bin --body "$D/ap2" --write-offset-bytes 100000 2>&1)" "InvalidWriteOffset"
    check "append (AWS CLI): get-object" ap get-object --bucket "$XB" --key cli/app.bin "$D/ap.back"
    check "append (AWS CLI): the bytes of both" cmp "$D/ap12" "$D/ap.back"
    eq "append (AWS CLI): head-object's CRC32 is the whole's" "$(ap head-object --bucket "$XB" \
        --key cli/app.bin --checksum-mode ENABLED --query ChecksumCRC32 --output text)" \
        "$("$PY" -c 'import base64,sys,zlib; print(base64.b64encode(zlib.crc32(open(sys.argv[1],"rb").read()).to_bytes(4,"big")).decode())' "$D/ap12")"
    eq "append (AWS CLI): 3 AppendObject counted, no PutObject" \
        "$(stat '["ops"].get("AppendObject")') $(stat '["ops"].get("PutObject", 0)')" "3 0"
else
    echo "skip append (AWS CLI): no AWS CLI with put-object --write-offset-bytes ($("$AWS_BIN" --version 2>&1))"
fi
kill "$EMU_PID"; wait "$EMU_PID" 2>/dev/null; EMU_PID=; check_emu_log

# ---- HTTPS (--tls-dir) on two addresses (--listen) ----
start_emu --anonymous --threads 2 --tls-dir "$T/tls" --listen 127.0.0.1 --listen 127.0.0.2
has "tls: ready line says https" "$URL" "https://127.0.0.1:"
CA=$T/tls/ca.pem
check "tls: CA, certificate and key written" test -s "$CA" -a -s "$T/tls/cert.pem" -a -s "$T/tls/key.pem"
eq "tls: key readable by its owner only" "$(command stat -c %a "$T/tls/key.pem")" "600"
head -c 3000000 /dev/urandom >"$D/tls.bin"
check "tls: PUT bucket with the CA" curl -sf --cacert "$CA" -X PUT "$URL/tlsb"
check "tls: PUT 3 MB" curl -sf --cacert "$CA" -T "$D/tls.bin" "$URL/tlsb/o"
check "tls: GET it back and a second time on one connection" \
    curl -sf --cacert "$CA" "$URL/tlsb/o" -o "$D/tls.back" "$URL/tlsb/o" -o "$D/tls.back2"
check "tls: the bytes" cmp "$D/tls.bin" "$D/tls.back"
check "tls: the bytes again" cmp "$D/tls.bin" "$D/tls.back2"
eq "tls: without the CA curl refuses (60)" "$(curl -s -o /dev/null "$URL/tlsb/o"; echo $?)" "60"
check "tls: plain HTTP to the TLS port gets nothing" not_ curl -sf --max-time 5 "http://127.0.0.1:$PORT/tlsb/o" -o /dev/null
check "tls: the second address, its IP in the certificate" curl -sf --cacert "$CA" "https://127.0.0.2:$PORT/tlsb/o" -o /dev/null
check "tls: the AWS CLI trusts the CA (multipart up and down)" env AWS_CA_BUNDLE="$CA" "$AWS_BIN" --endpoint-url "$URL" \
    s3 cp --only-show-errors "$D/big.bin" s3://tlsb/big.bin
check "tls: ... down" env AWS_CA_BUNDLE="$CA" "$AWS_BIN" --endpoint-url "$URL" s3 cp --only-show-errors s3://tlsb/big.bin "$D/tls-big.back"
check "tls: ... the bytes" cmp "$D/big.bin" "$D/tls-big.back"
admin() { curl -s --cacert "$CA" -X POST --data-binary "$1" "$URL/_s3emu/config" >/dev/null; }
admin "faults=truncate@key=o,times=1"
check "tls: a truncated body is an error under TLS too" not_ curl -sf --cacert "$CA" "$URL/tlsb/o" -o /dev/null
admin "faults="
st=$(curl -s --cacert "$CA" "$URL/_s3emu/stats")
stat() { curl -s --cacert "$CA" "$URL/_s3emu/stats" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval("d" + sys.argv[1]))' "$1"; }
check "tls: handshakes counted" ge "$(stat '["tls"]["handshakes"]')" 5
eq "tls: two listening addresses" "$(stat '["listeners"][0]["addr"]') $(stat '["listeners"][1]["addr"]')" \
    "127.0.0.1:$PORT 127.0.0.2:$PORT"
eq "tls: one connection and request on the second" "$(stat '["listeners"][1]["conns"]') $(stat '["listeners"][1]["reqs"]')" "1 1"
has "tls: stats JSON" "$st" '"listeners":['
kill "$EMU_PID"; wait "$EMU_PID" 2>/dev/null; EMU_PID=; check_emu_log
check "tls: --tls-cert/--tls-key serve a given certificate" sh -c "
    '$EMU' --port 0 --tls-cert '$T/tls/cert.pem' --tls-key '$T/tls/key.pem' >'$T/emu2.out' 2>&1 & p=\$!
    for i in \$(seq 50); do grep -q ready '$T/emu2.out' && break; sleep 0.1; done
    u=\$(sed -n 's/^ready //p' '$T/emu2.out'); curl -sf --cacert '$CA' \"\$u/_s3emu/stats\" >/dev/null; r=\$?; kill \$p; exit \$r"
check "tls: --tls-dir with --tls-cert is refused" not_ "$EMU" --port 0 --tls-dir "$T/x" --tls-cert "$CA"

echo "emu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
