# tests/e2e/test_cp.sh — issue 4: `s3c cp` end to end.
# shellcheck shell=bash
#
# Each test makes its own bucket(s) and local files, runs s3c, and checks
# three things: what s3c printed (stdout lines, one stderr line per error,
# the exit code), the local tree, and the bucket (keys, bytes, headers, read
# with curl or the AWS CLI rather than with s3c). Contents are compared by
# SHA-256. Large random files come from t_data's cache, made once per run.
#
# Sizes around the multipart threshold (8 MiB by default): 8 MiB - 1 goes in
# one PUT, 8 MiB + 1 and 20 MB go in parts (ETag "…-N").

MIB=$((1024 * 1024))

# ---------------------------------------------------------------- helpers --

# _mixed_tree DIR: the round-trip tree: 0 B, 1 B, 8 MiB-1, 8 MiB+1, 20 MB,
# 50 small files, and names with spaces, unicode, + % # ? in them.
_mixed_tree() {
    local d=$1 i
    mkdir -p "$d/small" "$d/big" "$d/odd names/sub"
    : > "$d/empty"
    printf x > "$d/one"
    cp "$(t_data 8MiB-1 $((8 * MIB - 1)))" "$d/big/8MiB-1"
    cp "$(t_data 8MiB+1 $((8 * MIB + 1)))" "$d/big/8MiB+1"
    cp "$(t_data 20MB 20000000)" "$d/big/20MB"
    for i in $(seq -w 1 50); do printf 'small file %s\n' "$i" > "$d/small/f$i.txt"; done
    printf 'space\n' > "$d/odd names/with space.txt"
    printf 'unicode\n' > "$d/odd names/ünïcødé ✓.txt"
    printf 'plus\n' > "$d/odd names/a+b=c.txt"
    printf 'percent\n' > "$d/odd names/100%20%.txt"
    printf 'hash\n' > "$d/odd names/sub/#hash#.txt"
    printf 'question\n' > "$d/odd names/sub/what?.txt"
}

# _keys_of_tree DIR PREFIX: the keys DIR's files become under PREFIX, sorted.
_keys_of_tree() {
    (cd "$1" && find . -type f | sed "s|^\./|$2|" | LC_ALL=C sort)
}

# _keys BUCKET: the bucket's keys, sorted.
_keys() { t_list_keys "$1" | LC_ALL=C sort; }

# _etag BUCKET KEY: the object's ETag, without quotes.
_etag() { t_head_header "$1" "$2" etag | tr -d '"'; }

# _assert_multipart BUCKET KEY PARTS: the object was written in PARTS parts.
_assert_multipart() {
    local etag
    etag=$(_etag "$1" "$2")
    [[ $etag == *-"$3" ]] || t_fail "s3://$1/$2: ETag '$etag', expected a multipart ETag ending in -$3"
}

# _assert_single_part BUCKET KEY: the object was written in one PUT.
_assert_single_part() {
    local etag
    etag=$(_etag "$1" "$2")
    [[ $etag =~ ^[0-9a-f]{32}$ ]] || t_fail "s3://$1/$2: ETag '$etag', expected a single-part MD5 ETag"
}

# _assert_object_sha256 BUCKET KEY HEX: the object's bytes (read with curl).
_assert_object_sha256() {
    t_get "$1" "$2" "$T_DIR/.got"
    assert_file_sha256 "$T_DIR/.got" "$3"
}

# _assert_object_text BUCKET KEY TEXT: the object holds exactly TEXT.
_assert_object_text() {
    t_get "$1" "$2" "$T_DIR/.got"
    assert_eq "$3" "$(cat "$T_DIR/.got")" "content of s3://$1/$2"
}

# _assert_no_key BUCKET KEY
_assert_no_key() {
    ! t_list_keys "$1" | grep -qxF -- "$2" || t_fail "s3://$1/$2 exists"
}

# _assert_gone PATH
_assert_gone() {
    [ ! -e "$1" ] || t_fail "$1 exists"
}

# _pipe_up FILE S3URL: `cat FILE | s3c cp - S3URL` (stdin is a pipe, not a file).
_pipe_up() {
    # shellcheck disable=SC2002  # a pipe on purpose: not a seekable file
    cat "$1" | s3c cp - "$2"
}

# _pipe_down_sha S3URL: `s3c cp S3URL - | sha256sum`; exit status of s3c.
_pipe_down_sha() {
    s3c cp "$1" - | sha256sum | cut -d' ' -f1
    return "${PIPESTATUS[0]}"
}

# ------------------------------------------------------------ round trips --

test_cp_tree_round_trip_mixed_sizes() {
    local b n lm
    t_new_bucket b
    _mixed_tree tree
    n=$(find tree -type f | wc -l)

    assert_ok s3c cp --recursive tree "s3://$b/up/"
    assert_lines "$n" "$T_OUT" "upload lines"
    assert_eq "" "$T_ERR" "stderr"
    assert_contains "$T_OUT" "upload: tree/empty to s3://$b/up/empty"
    assert_contains "$T_OUT" "upload: tree/big/20MB to s3://$b/up/big/20MB"
    assert_contains "$T_OUT" "upload: tree/odd names/sub/what?.txt to s3://$b/up/odd names/sub/what?.txt"
    assert_contains "$T_OUT" "upload: tree/odd names/ünïcødé ✓.txt to s3://$b/up/odd names/ünïcødé ✓.txt"
    assert_eq "$(_keys_of_tree tree up/)" "$(_keys "$b")" "keys in the bucket"
    _assert_single_part "$b" up/big/8MiB-1
    _assert_multipart "$b" up/big/8MiB%2B1 2
    _assert_multipart "$b" up/big/20MB 3
    assert_eq 0 "$(t_head_header "$b" up/empty content-length)" "size of up/empty"
    _assert_object_text "$b" "up/odd%20names/100%2520%25.txt" percent
    _assert_object_text "$b" "up/odd%20names/sub/%23hash%23.txt" hash

    assert_ok s3c cp --recursive "s3://$b/up/" dl
    assert_lines "$n" "$T_OUT" "download lines"
    assert_eq "" "$T_ERR" "stderr"
    assert_contains "$T_OUT" "download: s3://$b/up/odd names/a+b=c.txt to dl/odd names/a+b=c.txt"
    assert_contains "$T_OUT" "download: s3://$b/up/big/8MiB+1 to dl/big/8MiB+1"
    # Every file, byte for byte, and nothing else (no temp file left behind).
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums dl)" "sha256 of every file, sent and received"
    # A downloaded file's mtime is the one its upload recorded (test_fattr.sh), to the nanosecond;
    # with --no-preserve, the object's LastModified.
    assert_eq "$(stat -c %.9Y tree/one)" "$(stat -c %.9Y dl/one)" "mtime of dl/one vs tree/one"
    assert_ok s3c cp --no-preserve "s3://$b/up/one" dl/one-lm
    lm=$(t_head_header "$b" up/one last-modified)
    assert_eq "$(date -d "$lm" +%s)" "$(stat -c %Y dl/one-lm)" "mtime of dl/one-lm vs LastModified $lm"
}

test_cp_single_file_forms() {
    local b sum
    t_new_bucket b
    printf 'hello\n' > f.txt
    printf '{"a":1}\n' > data.json
    sum=$(t_sha256 f.txt)

    # Upload: to the bucket, to a "directory", to a key of its own name.
    assert_ok s3c cp f.txt "s3://$b/"
    assert_eq "upload: ./f.txt to s3://$b/f.txt" "$T_OUT"
    assert_ok s3c cp f.txt "s3://$b/dir/"
    assert_eq "upload: ./f.txt to s3://$b/dir/f.txt" "$T_OUT"
    assert_ok s3c cp f.txt "s3://$b/renamed.bin"
    assert_eq "upload: ./f.txt to s3://$b/renamed.bin" "$T_OUT"
    assert_ok s3c cp data.json "s3://$b/data.json"
    assert_ok s3c cp --content-type text/x-mine --cache-control max-age=7 f.txt "s3://$b/typed"
    assert_eq "$(printf '%s\n' data.json dir/f.txt f.txt renamed.bin typed)" "$(_keys "$b")" "keys"
    _assert_object_sha256 "$b" dir/f.txt "$sum"
    # Content-Type: guessed from the extension, or as given.
    assert_eq application/json "$(t_head_header "$b" data.json content-type)" "guessed Content-Type"
    assert_eq text/x-mine "$(t_head_header "$b" typed content-type)" "--content-type"
    assert_eq max-age=7 "$(t_head_header "$b" typed cache-control)" "--cache-control"

    # Download: into a directory, to a file name, into a new directory "x/".
    mkdir out
    assert_ok s3c cp "s3://$b/dir/f.txt" out
    assert_eq "download: s3://$b/dir/f.txt to out/f.txt" "$T_OUT"
    assert_ok s3c cp "s3://$b/renamed.bin" out/new-name.txt
    assert_eq "download: s3://$b/renamed.bin to out/new-name.txt" "$T_OUT"
    assert_ok s3c cp "s3://$b/f.txt" out/sub/
    assert_eq "download: s3://$b/f.txt to out/sub/f.txt" "$T_OUT"
    assert_file_sha256 out/f.txt "$sum"
    assert_file_sha256 out/new-name.txt "$sum"
    assert_file_sha256 out/sub/f.txt "$sum"
    assert_eq "$(printf '%s\n' f.txt new-name.txt sub sub/f.txt)" \
        "$(cd out && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort)" "the local tree"
    # Overwrites an existing file.
    printf 'old old old\n' > out/new-name.txt
    assert_ok s3c cp "s3://$b/typed" out/new-name.txt
    assert_file_sha256 out/new-name.txt "$sum"
}

# ---------------------------------------------------------------- S3 -> S3 --

test_cp_s3_to_s3_copy_and_multipart_copy() {
    local src dst sum
    t_copy_threshold   # the multipart copy path at these sizes
    t_new_bucket src
    t_new_bucket dst
    cp "$(t_data 20MB 20000000)" big
    sum=$(t_sha256 big)
    printf 'small\n' > small.txt
    t_put "$src" small.txt small.txt
    t_put "$src" dir/big big                    # one PUT: a plain MD5 ETag

    assert_ok s3c cp "s3://$src/small.txt" "s3://$dst/copied.txt"
    assert_eq "copy: s3://$src/small.txt to s3://$dst/copied.txt" "$T_OUT"
    _assert_object_text "$dst" copied.txt small

    # 20 MB, above the threshold: UploadPartCopy, so the copy has parts.
    assert_ok s3c cp "s3://$src/dir/big" "s3://$dst/"
    assert_eq "copy: s3://$src/dir/big to s3://$dst/big" "$T_OUT"
    _assert_single_part "$src" dir/big
    _assert_multipart "$dst" big 3
    _assert_object_sha256 "$dst" big "$sum"

    # A whole prefix, same bucket and across buckets.
    assert_ok s3c cp --recursive "s3://$src/" "s3://$dst/all/"
    assert_lines 2 "$T_OUT" "copy lines"
    assert_contains "$T_OUT" "copy: s3://$src/dir/big to s3://$dst/all/dir/big"
    assert_eq "$(printf '%s\n' all/dir/big all/small.txt big copied.txt)" "$(_keys "$dst")" "keys of $dst"
    _assert_object_sha256 "$dst" all/dir/big "$sum"
    assert_ok s3c cp --recursive "s3://$src/dir/" "s3://$src/dir2"
    assert_eq "$(printf '%s\n' dir/big dir2/big small.txt)" "$(_keys "$src")" "keys of $src"
}

# _meta BUCKET KEY: ContentType, CacheControl and Metadata of an object, as
# `aws s3api head-object` reports them (one compact JSON line), but the mtime
# an upload records (test_fattr.sh's), which _meta_mtime gives.
_meta() {
    t_cmd awsx s3api head-object --bucket "$1" --key "$2" || t_fail "head-object s3://$1/$2"
    jq -cS '{ContentType, CacheControl, Metadata: (.Metadata | del(.mtime))}' <<<"$T_OUT"
}
_meta_mtime() {
    t_cmd awsx s3api head-object --bucket "$1" --key "$2" || t_fail "head-object s3://$1/$2"
    jq -r '.Metadata.mtime // "none"' <<<"$T_OUT"
}

test_cp_copy_metadata_directive() {
    local b orig
    t_copy_threshold   # the multipart copy path at these sizes
    t_new_bucket b
    printf 'meta\n' > m.txt
    cp "$(t_data 20MB 20000000)" big.bin
    orig='{"CacheControl":"max-age=60","ContentType":"text/x-orig","Metadata":{"color":"blue","size":"xl"}}'

    assert_ok s3c cp --content-type text/x-orig --cache-control max-age=60 --metadata color=blue,size=xl \
        m.txt "s3://$b/m.txt"
    assert_ok s3c cp --content-type text/x-orig --cache-control max-age=60 --metadata color=blue,size=xl \
        big.bin "s3://$b/big.bin"
    assert_eq "$orig" "$(_meta "$b" m.txt)" "metadata as uploaded"
    assert_eq "$(stat -c %Y big.bin)" "$(_meta_mtime "$b" big.bin | cut -d. -f1)" "the mtime a multipart upload records"

    # COPY (the default): the copy keeps the source's headers, one part or many.
    assert_ok s3c cp "s3://$b/m.txt" "s3://$b/m-copy.txt"
    assert_ok s3c cp --metadata-directive COPY "s3://$b/big.bin" "s3://$b/big-copy.bin"
    _assert_multipart "$b" big-copy.bin 3
    assert_eq "$orig" "$(_meta "$b" m-copy.txt)" "metadata after a copy"
    assert_eq "$orig" "$(_meta "$b" big-copy.bin)" "metadata after a multipart copy"
    assert_eq "$(_meta_mtime "$b" m.txt)" "$(_meta_mtime "$b" m-copy.txt)" "the mtime a copy keeps"
    assert_eq "$(_meta_mtime "$b" big.bin)" "$(_meta_mtime "$b" big-copy.bin)" "the mtime a multipart copy keeps"

    # REPLACE: the copy has what the command line says, and nothing else.
    assert_ok s3c cp --metadata-directive REPLACE --content-type text/x-new --metadata shape=round \
        "s3://$b/m.txt" "s3://$b/m-repl.txt"
    assert_ok s3c cp --metadata-directive REPLACE --content-type text/x-new --metadata shape=round \
        "s3://$b/big.bin" "s3://$b/big-repl.bin"
    assert_eq '{"CacheControl":null,"ContentType":"text/x-new","Metadata":{"shape":"round"}}' \
        "$(_meta "$b" m-repl.txt)" "metadata after a copy with REPLACE"
    assert_eq '{"CacheControl":null,"ContentType":"text/x-new","Metadata":{"shape":"round"}}' \
        "$(_meta "$b" big-repl.bin)" "metadata after a multipart copy with REPLACE"
    _assert_object_sha256 "$b" big-repl.bin "$(t_sha256 big.bin)"
}

# ------------------------------------------------------------------ peers --

# _peer_tree DIR: a small tree for the AWS CLI cross-reads, with a 20 MB file.
_peer_tree() {
    mkdir -p "$1/sub"
    : > "$1/empty"
    printf x > "$1/one"
    printf 'space plus\n' > "$1/sub/with space+ü.txt"
    cp "$(t_data 20MB 20000000)" "$1/sub/big"
}

test_cp_aws_cli_reads_what_s3c_wrote() {
    local b
    t_new_bucket b
    _peer_tree up
    assert_ok s3c cp --recursive up "s3://$b/p/"
    _assert_multipart "$b" p/sub/big 3
    assert_ok awsx s3 cp --recursive --no-progress "s3://$b/p/" got
    assert_eq "$(t_tree_sums up)" "$(t_tree_sums got)" "sha256: s3c uploaded, AWS CLI downloaded"
}

test_cp_s3c_reads_what_aws_cli_wrote() {
    local b
    t_new_bucket b
    _peer_tree up
    assert_ok awsx s3 cp --recursive --no-progress up "s3://$b/p/"
    _assert_multipart "$b" p/sub/big 3          # the AWS CLI's own multipart upload
    assert_ok s3c cp --recursive "s3://$b/p/" got
    assert_lines 4 "$T_OUT" "download lines"
    assert_eq "$(t_tree_sums up)" "$(t_tree_sums got)" "sha256: AWS CLI uploaded, s3c downloaded"
    assert_ok _pipe_down_sha "s3://$b/p/sub/big"
    assert_eq "$(t_sha256 up/sub/big)" "$T_OUT" "sha256 of the multipart object to stdout"
}

# -------------------------------------------------- wildcards and filters --

test_cp_wildcards_s3_source() {
    local b k
    t_new_bucket b
    printf w > w
    for k in logs/2024/a.log logs/2024/b.txt logs/2025/c.log logs/x.log other/d.log 'lit*eral'; do
        t_put "$b" "${k//\*/%2A}" w
    done
    # '*' crosses '/'; names are relative to the literal part before it.
    assert_ok s3c cp "s3://$b/logs/*.log" w1/
    assert_lines 3 "$T_OUT" "download lines"
    assert_contains "$T_OUT" "download: s3://$b/logs/2025/c.log to w1/2025/c.log"
    assert_eq "$(printf '%s\n' 2024/a.log 2025/c.log x.log)" \
        "$(cd w1 && find . -type f | sed 's|^\./||' | LC_ALL=C sort)" "files matching logs/*.log"
    # '?' is one character.
    assert_ok s3c cp "s3://$b/logs/202?/a.log" w2/
    assert_eq "download: s3://$b/logs/2024/a.log to w2/2024/a.log" "$T_OUT"
    # S3 -> S3 with a wildcard.
    assert_ok s3c cp "s3://$b/*/2024/*" "s3://$b/copy/"
    assert_lines 2 "$T_OUT" "copy lines"
    assert_contains "$T_OUT" "copy: s3://$b/logs/2024/b.txt to s3://$b/copy/logs/2024/b.txt"
    # --raw: '*' is a plain character.
    assert_ok s3c cp --raw "s3://$b/lit*eral" w3/
    assert_eq "download: s3://$b/lit*eral to w3/lit*eral" "$T_OUT"
    [ -f "w3/lit*eral" ] || t_fail "no file w3/lit*eral"
    # No match at all: nothing happens, and nothing is written.
    t_cmd s3c cp "s3://$b/nothing*" w4/
    _assert_gone w4
}

test_cp_wildcards_local_source() {
    local b
    t_new_bucket b
    mkdir -p src/a src/b
    printf 1 > src/one.txt; printf 2 > src/a/two.txt; printf 3 > src/b/three.log; printf 4 > src/a/x5.txt
    # A local '*' stops at '/', as s5cmd's Glob: src/a/two.txt is not 'src/*.txt'.
    assert_ok s3c cp 'src/*.txt' "s3://$b/t/"
    assert_eq "upload: src/one.txt to s3://$b/t/one.txt" "$T_OUT"
    assert_ok s3c cp 'src/?/x?.txt' "s3://$b/q/"
    assert_eq "upload: src/a/x5.txt to s3://$b/q/a/x5.txt" "$T_OUT"
    # A directory the pattern matches is taken whole.
    assert_ok s3c cp 'src/?' "s3://$b/d/"
    assert_lines 3 "$T_OUT" "upload lines"
    assert_contains "$T_OUT" "upload: src/b/three.log to s3://$b/d/b/three.log"
    assert_eq "$(printf '%s\n' d/a/two.txt d/a/x5.txt d/b/three.log q/a/x5.txt t/one.txt)" "$(_keys "$b")" "keys"
}

test_cp_exclude_include_last_match_wins() {
    local b
    t_new_bucket b
    mkdir -p tree/inc tree/skip
    printf a > tree/inc/a.txt; printf b > tree/inc/b.log; printf c > tree/skip/c.txt
    printf d > tree/top.txt; printf e > tree/top.log

    # Everything out, .txt back in, skip/ out again: the last match wins.
    assert_ok s3c cp --recursive --exclude '*' --include '*.txt' --exclude 'skip/*' tree "s3://$b/f/"
    assert_lines 2 "$T_OUT" "upload lines"
    assert_eq "$(printf '%s\n' f/inc/a.txt f/top.txt)" "$(_keys "$b")" "keys after filtered upload"

    t_seed_tree "$b" tree all/
    assert_ok s3c cp --recursive --exclude '*.txt' "s3://$b/all/" dl
    assert_eq "$(printf '%s\n' inc/b.log top.log)" \
        "$(cd dl && find . -type f | sed 's|^\./||' | LC_ALL=C sort)" "files after filtered download"
    assert_ok s3c cp --recursive --include '*.txt' --exclude 'inc/*' "s3://$b/all/" "s3://$b/c/"
    assert_eq "$(printf '%s\n' c/skip/c.txt c/top.log c/top.txt)" "$(_keys "$b" | grep '^c/')" "keys after filtered copy"
}

test_cp_flatten() {
    local b
    t_new_bucket b
    mkdir -p tree/x/y tree/z
    printf 1 > tree/x/y/deep.txt; printf 2 > tree/z/mid.txt; printf 3 > tree/top.txt
    assert_ok s3c cp --recursive --flatten tree "s3://$b/flat/"
    assert_contains "$T_OUT" "upload: tree/x/y/deep.txt to s3://$b/flat/deep.txt"
    assert_eq "$(printf '%s\n' flat/deep.txt flat/mid.txt flat/top.txt)" "$(_keys "$b")" "keys"
    t_seed_tree "$b" tree nested/
    assert_ok s3c cp --recursive --flatten "s3://$b/nested/" dl
    assert_eq "$(printf '%s\n' deep.txt mid.txt top.txt)" "$(cd dl && find . -type f | sed 's|^\./||' | LC_ALL=C sort)" "files"
    assert_eq 1 "$(cat dl/deep.txt)" "dl/deep.txt"
}

# ------------------------------------------------- dry run, no-overwrite --

test_cp_dryrun_changes_nothing() {
    local b
    t_new_bucket b
    mkdir -p tree/sub
    printf 1 > tree/a.txt; printf 2 > tree/sub/b.txt
    t_put "$b" s/k.txt tree/a.txt

    assert_ok s3c cp --dryrun --recursive tree "s3://$b/up/"
    assert_eq "$(printf '%s\n' "(dryrun) upload: tree/a.txt to s3://$b/up/a.txt" \
        "(dryrun) upload: tree/sub/b.txt to s3://$b/up/sub/b.txt")" "$(LC_ALL=C sort <<<"$T_OUT")" "stdout"
    assert_ok s3c cp --dryrun tree/a.txt "s3://$b/one"
    assert_eq "(dryrun) upload: tree/a.txt to s3://$b/one" "$T_OUT"
    assert_ok s3c cp --dryrun --recursive "s3://$b/s/" dl
    assert_eq "(dryrun) download: s3://$b/s/k.txt to dl/k.txt" "$T_OUT"
    assert_ok s3c cp --dryrun "s3://$b/s/k.txt" "s3://$b/c.txt"
    assert_eq "(dryrun) copy: s3://$b/s/k.txt to s3://$b/c.txt" "$T_OUT"
    assert_ok s3c mv --dryrun "s3://$b/s/k.txt" here.txt
    assert_eq "(dryrun) move: s3://$b/s/k.txt to ./here.txt" "$T_OUT"
    assert_ok s3c mv --dryrun tree/a.txt "s3://$b/m"

    assert_eq "s/k.txt" "$(_keys "$b")" "keys after dry runs"
    _assert_gone dl
    _assert_gone here.txt
    [ -f tree/a.txt ] || t_fail "mv --dryrun removed tree/a.txt"
}

test_cp_no_overwrite_and_no_clobber_keep_destination() {
    local b
    t_new_bucket b
    printf old > old; printf new > new
    t_put "$b" k1 old
    t_put "$b" k2 old

    # Local -> S3: an existing key is skipped, silently, exit 0.
    assert_ok s3c cp --no-overwrite new "s3://$b/k1"
    assert_eq "" "$T_OUT" "stdout of a skipped upload"
    _assert_object_text "$b" k1 old
    assert_ok s3c cp -n new "s3://$b/k2"
    _assert_object_text "$b" k2 old
    # ...and a new key is written.
    assert_ok s3c cp --no-overwrite new "s3://$b/k3"
    assert_eq "upload: ./new to s3://$b/k3" "$T_OUT"
    _assert_object_text "$b" k3 new
    # Multipart: the condition is on CompleteMultipartUpload.
    if t_store_is ceph; then
        t_note "Ceph 16.2 ignores If-None-Match on CompleteMultipartUpload: multipart --no-overwrite not checked"
    else
        cp "$(t_data 8MiB+1 $((8 * MIB + 1)))" big
        assert_ok s3c cp --no-overwrite big "s3://$b/k1"
        _assert_object_text "$b" k1 old
        [ "$(t_mpu_count "$b")" = 0 ] || t_fail "a multipart upload was left behind"
    fi

    # S3 -> local with -n: an existing file is kept.
    printf 'local old' > here
    assert_ok s3c cp -n "s3://$b/k3" here
    assert_eq "local old" "$(cat here)" "content of here"
    mkdir d
    printf keep > d/k1
    assert_ok s3c cp --recursive -n "s3://$b/" d
    assert_eq "keep" "$(cat d/k1)" "d/k1"
    assert_eq "new" "$(cat d/k3)" "d/k3"

    # S3 -> S3 (CopyObject with If-None-Match: *).
    if t_store_is ceph; then
        t_note "Ceph 16.2 ignores If-None-Match on CopyObject: S3->S3 --no-overwrite not checked"
    else
        assert_ok s3c cp --no-overwrite "s3://$b/k3" "s3://$b/k1"
        _assert_object_text "$b" k1 old
    fi

    # Control: without the flags, the destination is replaced.
    assert_ok s3c cp new "s3://$b/k1"
    _assert_object_text "$b" k1 new
    assert_ok s3c cp "s3://$b/k3" here
    assert_eq "new" "$(cat here)" "content of here"
}

# ---------------------------------------------------------- stdin, stdout --

test_cp_stdin_stdout_20MB() {
    local b f sum
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    sum=$(t_sha256 "$f")

    assert_ok _pipe_up "$f" "s3://$b/k"
    assert_eq "" "$T_OUT" "stdout of a stream's upload (the AWS CLI prints nothing)"
    _assert_multipart "$b" k 3                  # streamed in parts
    _assert_object_sha256 "$b" k "$sum"
    assert_ok _pipe_down_sha "s3://$b/k"
    assert_eq "$sum" "$T_OUT" "sha256 of s3c cp s3://$b/k -"

    # Small and empty standard input: one PUT each.
    printf 'tiny\n' > tiny
    assert_ok _pipe_up tiny "s3://$b/tiny"
    _assert_object_text "$b" tiny tiny
    : > nothing
    assert_ok _pipe_up nothing "s3://$b/empty"
    assert_eq 0 "$(t_head_header "$b" empty content-length)" "size of the empty object"
    assert_ok _pipe_down_sha "s3://$b/empty"
    assert_eq "$(t_sha256 nothing)" "$T_OUT" "sha256 of an empty object to stdout"
}

# ---------------------------------------------------------- errors, exits --

test_cp_missing_local_source_exit_2() {
    local b
    t_new_bucket b
    # One file: a usage error (exit 252), one line naming it, as the AWS CLI says.
    assert_exit 252 s3c cp no-such-file "s3://$b/x"
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "no-such-file does not exist"
    # --recursive on a missing directory: the same usage error (exit 252), one line.
    assert_exit 252 s3c cp --recursive no-such-dir "s3://$b/x/"
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "no-such-dir"
    assert_eq "" "$(_keys "$b")" "keys"
    # A wildcard to standard output names many objects: refused, and no directory "-" appears.
    assert_exit 252 s3c cp "s3://$b/pre*" -
    assert_contains "$T_ERR" "single object only"
    [ ! -e ./- ] || t_fail "a local '-' was created"
}

test_cp_missing_key_404() {
    local b
    t_new_bucket b
    assert_exit 1 s3c cp "s3://$b/no/such/key" here
    assert_lines 1 "$T_ERR" "stderr"
    assert_match "$T_ERR" "^download failed: s3://$b/no/such/key to ./here An error occurred \(NoSuchKey\) when calling the HeadObject operation: The specified key does not exist\.$" "stderr"
    _assert_gone here
    assert_exit 1 s3c cp "s3://$b/no/such/key" "s3://$b/copy"
    assert_contains "$T_ERR" "(NoSuchKey)"
    assert_eq "" "$(_keys "$b")" "keys"
}

test_cp_unreadable_file_in_tree() {
    local b
    t_new_bucket b
    mkdir -p tree/sub
    printf 1 > tree/a.txt; printf 2 > tree/sub/b.txt; printf 3 > tree/z.txt
    ln -s no-such-target tree/sub/dangling      # stat fails: ENOENT
    mkfifo tree/fifo                            # not a regular file: skipped, never opened
    # The dangling link and the FIFO are skipped with a warning (exit 2, as
    # the AWS CLI's skipped files).
    assert_exit 2 s3c cp --recursive tree "s3://$b/t/"
    assert_lines 2 "$(grep '^warning: Skipping file' <<<"$T_ERR")" "skip lines"
    assert_match "$T_ERR" '^warning: Skipping file tree/sub/dangling\. .*No such file or directory' "stderr"
    assert_match "$T_ERR" '^warning: Skipping file tree/fifo\. not a regular file' "stderr"
    assert_lines 3 "$T_OUT" "upload lines"
    assert_eq "$(printf '%s\n' t/a.txt t/sub/b.txt t/z.txt)" "$(_keys "$b")" "keys: every other file"
}

test_cp_full_disk() {
    local b mnt=$T_DIR/mnt
    t_new_bucket b
    mkdir -p "$mnt"
    mount -t tmpfs -o size=1m s3c-e2e "$mnt" 2>/dev/null ||
        t_skip "cannot mount a 1 MiB tmpfs here (needs root and mount rights)"
    t_at_exit 'umount "'"$mnt"'"'
    cp "$(t_data 2MiB $((2 * MIB)))" big
    printf s > small
    t_put "$b" big big
    t_put "$b" dir/big big
    t_put "$b" dir/small small

    assert_exit 1 s3c cp "s3://$b/big" "$mnt/"
    assert_lines 1 "$T_ERR" "stderr"
    assert_match "$T_ERR" "^download failed: s3://$b/big to .*No space left on device" "stderr"
    assert_eq "" "$(find "$mnt" -mindepth 1)" "files left on the full disk"

    assert_exit 1 s3c cp --recursive "s3://$b/dir/" "$mnt/d"
    assert_contains "$T_ERR" "No space left on device"
    assert_eq "d/small" "$(cd "$mnt" && find . -type f | sed 's|^\./||')" "files on the full disk"
}

test_cp_sigint_aborts_multipart_upload() {
    local b pid i rc
    t_new_bucket b
    truncate -s 200M big                        # sparse: quick to make, 200 MB to send
    # 20 MB/s: about 10 s to send it all, so the signal lands mid-upload.
    "$S3C" cp --bwlimit 20MB/s big "s3://$b/big" > out 2> err &
    pid=$!
    for ((i = 0; i < 100; i++)); do             # up to 10 s for the upload to start
        [ "$(t_mpu_count "$b")" -gt 0 ] && break
        sleep 0.1
    done
    [ "$(t_mpu_count "$b")" -gt 0 ] || { kill -9 "$pid"; t_fail "no multipart upload in progress after 10 s"; }
    sleep 0.5
    kill -INT "$pid"
    for ((i = 0; i < 150; i++)); do             # up to 15 s to stop
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; t_fail "s3c still running 15 s after SIGINT"; }
    wait "$pid"
    rc=$?
    # shellcheck disable=SC2034  # read by t_fail
    T_LAST="s3c cp --bwlimit 20MB/s big s3://$b/big (SIGINT)" T_RC=$rc
    cp out "$T_DIR/.out"; cp err "$T_DIR/.err"
    [ "$rc" = 130 ] || t_fail "exit $rc after SIGINT, expected 130"
    assert_contains "$(cat err)" "interrupted" "stderr"
    assert_eq 0 "$(t_mpu_count "$b")" "multipart uploads in progress after SIGINT"
    assert_eq "" "$(_keys "$b")" "keys"
}

test_cp_download_refuses_escaping_keys() {
    local b
    t_new_bucket b
    printf evil > evil
    printf good > good
    # Keys with "..", sent as they are (curl would otherwise normalise the path).
    t_put "$b" 'h/../evil' evil --path-as-is
    t_put "$b" 'h/a/../../evil2' evil --path-as-is
    t_put "$b" h/ok.txt good
    t_put "$b" h/a/fine.txt good
    assert_eq "$(printf '%s\n' h/../evil h/a/../../evil2 h/a/fine.txt h/ok.txt)" "$(_keys "$b")" "keys as stored"
    mkdir -p top/in

    t_cmd s3c cp --recursive "s3://$b/h/" top/in
    # Siblings land; nothing is written outside top/in.
    assert_eq "$(printf '%s\n' in/a/fine.txt in/ok.txt)" \
        "$(cd top && find . -type f | sed 's|^\./||' | LC_ALL=C sort)" "files under top/"
    _assert_gone evil2
    assert_eq "evil" "$(cat evil)" "./evil"
    assert_lines 2 "$T_OUT" "download lines"
    assert_lines 2 "$T_ERR" "warning lines"
    assert_match "$T_ERR" '^warning: Skipping file .*h/\.\./evil\. .*\.\.' "stderr"
    assert_match "$T_ERR" '^warning: Skipping file .*h/a/\.\./\.\./evil2\. .*\.\.' "stderr"
    # A refused key is skipped, as the AWS CLI skips it: exit 2 (sync alike).
    [ "$T_RC" = 2 ] || t_fail "expected exit 2 for refused keys, got $T_RC"
}

# ------------------------------------------------------------ json, quiet --

test_cp_json_and_quiet() {
    local b
    t_new_bucket b
    mkdir tree
    printf 12345 > tree/a; printf 1 > tree/b
    assert_ok s3c cp --json --recursive tree "s3://$b/"
    assert_lines 2 "$T_OUT" "json lines"
    assert_json_lines "$T_OUT"
    assert_eq "{\"destination\":\"s3://$b/a\",\"object\":{\"size\":5},\"operation\":\"upload\",\"size\":5,\"source\":\"tree/a\",\"success\":true}" \
        "$(grep '"tree/a"' <<<"$T_OUT" | jq -cS .)" "json line of tree/a"
    assert_exit 1 s3c cp --json "s3://$b/missing" x
    assert_eq "false 404 NoSuchKey" "$(jq -r '[.success, .http_status, .error_code] | join(" ")' <<<"$T_OUT")" \
        "the record of a 404 with --json"
    assert_ok s3c cp --quiet --recursive "s3://$b/" dl
    assert_eq "" "$T_OUT" "stdout with --quiet"
    assert_eq "12345" "$(cat dl/a)" "dl/a"
}

# ------------------------------------------------------------ engine knobs --

test_cp_part_size_and_workers() {
    local b f sum
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    sum=$(t_sha256 "$f")
    cp "$f" big
    # 20 MB in 5 MiB parts: 4 parts, whatever the worker count.
    assert_ok s3c cp --part-size 5MiB --numworkers 1 big "s3://$b/w1"
    _assert_multipart "$b" w1 4
    assert_ok s3c cp --part-size 5MiB --concurrency 64 big "s3://$b/w64"
    _assert_multipart "$b" w64 4
    _assert_object_sha256 "$b" w64 "$sum"
    assert_ok s3c cp --part-size 16MiB "s3://$b/w1" got
    assert_file_sha256 got "$sum"
    # Out of range: a usage error before any request.
    assert_exit 252 s3c cp --part-size 1MiB big "s3://$b/bad"
    assert_exit 252 s3c cp --numworkers 0 big "s3://$b/bad"
    _assert_no_key "$b" bad
}
