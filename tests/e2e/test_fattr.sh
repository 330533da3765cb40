# tests/e2e/test_fattr.sh — mtimes and modes that survive a round trip (issue 26 item 2).
# shellcheck shell=bash
#
# Uploads record the file's mtime as rclone does (x-amz-meta-mtime, "S.NNNNNNNNN"), and with
# --preserve its mode, uid and gid in rclone's keys; downloads set them back, reading rclone's keys
# or s3cmd's s3cmd-attrs; sync keeps working on the times so restored (src/plan/merge.h). Peers:
# rclone and s3cmd write and read the same objects. They are Debian packages that CI installs
# (scripts/deps.sh); a local run without them skips those tests, CI fails them.

# _fa_need TOOL: the peer tool, or a skip (local runs) / a failure (CI).
_fa_need() {
    command -v "$1" >/dev/null && return 0
    [ -n "${CI:-}" ] && t_fail "$1 is not installed (scripts/deps.sh installs it)"
    t_skip "$1 is not installed (apt-get install $1)"
}

# _fa_rclone ARGS...: rclone with a remote "t:" of this test's store, no config file.
_fa_rclone() {
    env -u AWS_CA_BUNDLE RCLONE_CONFIG="$T_DIR/no-rclone.conf" RCLONE_CONFIG_T_TYPE=s3 \
        RCLONE_CONFIG_T_PROVIDER=Other RCLONE_CONFIG_T_ENDPOINT="$S3C_TEST_ENDPOINT" \
        RCLONE_CONFIG_T_FORCE_PATH_STYLE=true RCLONE_CONFIG_T_REGION="$S3C_TEST_REGION" \
        RCLONE_CONFIG_T_ACCESS_KEY_ID="$S3C_TEST_ACCESS_KEY" \
        RCLONE_CONFIG_T_SECRET_ACCESS_KEY="$S3C_TEST_SECRET_KEY" rclone "$@"
}

# _fa_s3cmd ARGS...: s3cmd against this test's store (path style, plain HTTP, SigV4).
_fa_s3cmd() {
    local hp=${S3C_TEST_ENDPOINT#http://}
    printf '%s\n' "[default]" "access_key = $S3C_TEST_ACCESS_KEY" "secret_key = $S3C_TEST_SECRET_KEY" \
        "host_base = $hp" "host_bucket = $hp" "use_https = False" "signature_v2 = False" \
        "bucket_location = $S3C_TEST_REGION" > "$T_DIR/s3cfg"
    env -u AWS_CA_BUNDLE s3cmd -c "$T_DIR/s3cfg" --no-progress "$@"
}

# _fa_tree DIR: three files of old mtimes with nanoseconds and mode 0640: one landed from memory
# (10 bytes), one downloaded in one GET into a temp file (200 KB), one in parts both ways (20 MB).
_fa_tree() {
    mkdir -p "$1/sub"
    printf 'small one\n' > "$1/small.txt"
    cp "$(t_data fa-200k 200000)" "$1/sub/mid.bin"
    cp "$(t_data fa-20m 20000000)" "$1/sub/big.bin"
    touch -d '2020-01-02 03:04:05.123456789' "$1/small.txt"
    touch -d '2019-06-07 08:09:10.5' "$1/sub/mid.bin"
    touch -d '2001-02-03 04:05:06.000000007' "$1/sub/big.bin"
    chmod 0640 "$1/small.txt" "$1/sub/mid.bin" "$1/sub/big.bin"
}

# _fa_times DIR: "REL MTIME" (to the nanosecond) of every file under DIR, sorted.
_fa_times() {
    (cd "$1" && find . -type f -printf '%P %T@\n' | LC_ALL=C sort)
}

# _fa_modes DIR: "REL MODE" of every file under DIR, sorted.
_fa_modes() {
    (cd "$1" && find . -type f -printf '%P %m\n' | LC_ALL=C sort)
}

# cp up records each file's mtime to the nanosecond, in one PutObject and in a multipart upload;
# cp down sets it back, whichever way the file was downloaded; the bytes are the same.
test_fattr_cp_round_trip() {
    local b
    t_new_bucket b
    _fa_tree up
    assert_ok s3c cp --recursive up "s3://$b/t/"
    assert_eq "1577934245.123456789" "$(t_head_header "$b" t/small.txt x-amz-meta-mtime)" "small.txt's recorded mtime"
    assert_eq "1559894950.5" "$(t_head_header "$b" t/sub/mid.bin x-amz-meta-mtime)" "mid.bin's recorded mtime"
    assert_eq "981173106.000000007" "$(t_head_header "$b" t/sub/big.bin x-amz-meta-mtime)" \
        "big.bin's recorded mtime (multipart)"
    assert_eq "" "$(t_head_header "$b" t/small.txt x-amz-meta-mode)" "no mode without --preserve"
    assert_ok s3c cp --recursive "s3://$b/t/" down
    assert_eq "$(_fa_times up)" "$(_fa_times down)" "mtimes after the round trip"
    assert_eq "$(t_tree_sums up)" "$(t_tree_sums down)" "bytes after the round trip"
    # One object named alone, and the ranged path with a part size that makes 4 ranges.
    assert_ok s3c cp --part-size 5MiB "s3://$b/t/sub/big.bin" one.bin
    assert_eq "$(stat -c %.9Y up/sub/big.bin)" "$(stat -c %.9Y one.bin)" "mtime of a ranged download"
}

# --no-preserve is the AWS CLI's behaviour: nothing recorded, downloads stamped with
# LastModified (to the second); --metadata mtime=... wins over the file's own.
test_fattr_no_preserve() {
    local b lm
    t_new_bucket b
    _fa_tree up
    assert_ok s3c cp --no-preserve up/small.txt "s3://$b/plain.txt"
    assert_eq "" "$(t_head_header "$b" plain.txt x-amz-meta-mtime)" "nothing recorded with --no-preserve"
    assert_ok s3c cp --metadata mtime=1234567890.5 up/small.txt "s3://$b/given.txt"
    assert_eq "1234567890.5" "$(t_head_header "$b" given.txt x-amz-meta-mtime)" "--metadata mtime wins"
    assert_ok s3c cp up/small.txt "s3://$b/rec.txt"
    lm=$(date -u -d "$(t_head_header "$b" rec.txt Last-Modified)" +%s)
    assert_ok s3c cp --no-preserve "s3://$b/rec.txt" stamped.txt
    assert_eq "$lm" "$(stat -c %Y stamped.txt)" "--no-preserve: the file gets LastModified"
    assert_ok s3c cp "s3://$b/given.txt" given.txt
    assert_eq "1234567890.500000000" "$(stat -c %.9Y given.txt)" "the recorded mtime, as given"
    assert_exit 252 s3c cp --preserve --no-preserve up/small.txt "s3://$b/x"
    assert_contains "$T_ERR" "contradict"
}

# --preserve records mode, uid and gid in rclone's keys and sets them back; without it a download
# takes the mode new files get, and never a setuid bit from metadata.
test_fattr_preserve_mode_owner() {
    local b
    t_new_bucket b
    _fa_tree up
    assert_ok s3c cp --preserve --recursive up "s3://$b/t/"
    assert_eq "100640 $(id -u) $(id -g)" "$(t_head_header "$b" t/small.txt x-amz-meta-mode) \
$(t_head_header "$b" t/small.txt x-amz-meta-uid) $(t_head_header "$b" t/small.txt x-amz-meta-gid)" \
        "mode, uid, gid recorded"
    assert_eq "100640" "$(t_head_header "$b" t/sub/big.bin x-amz-meta-mode)" "mode recorded by a multipart upload"
    (umask 022 && s3c cp --recursive "s3://$b/t/" plain >/dev/null 2>&1) || t_fail "cp down"
    assert_eq "$(printf 'small.txt 644\nsub/big.bin 644\nsub/mid.bin 644')" "$(_fa_modes plain)" \
        "modes without --preserve: new files' own"
    assert_ok s3c cp --preserve --recursive "s3://$b/t/" kept
    assert_eq "$(_fa_modes up)" "$(_fa_modes kept)" "modes with --preserve"
    # Metadata anyone may write: a setuid mode and another owner.
    printf 'x' > suid
    t_put "$b" suid suid -H "x-amz-meta-mode: 104755" -H "x-amz-meta-uid: 4321" -H "x-amz-meta-gid: 4322"
    assert_ok s3c cp "s3://$b/suid" suid-plain
    [ -u suid-plain ] && t_fail "a setuid bit from metadata without --preserve"
    assert_ok s3c cp --preserve "s3://$b/suid" suid-kept
    if [ "$(id -u)" = 0 ]; then
        assert_eq "4755 4321 4322" "$(stat -c '%a %u %g' suid-kept)" "as root, --preserve sets owner and setuid"
    else
        assert_eq "755 $(id -u)" "$(stat -c '%a %u' suid-kept)" "not root: no owner, no setuid"
    fi
}

# s3cmd's one key: its mtime (whole seconds) and, with --preserve, its decimal mode.
test_fattr_reads_s3cmd_attrs() {
    local b
    t_new_bucket b
    printf 'from s3cmd\n' > f
    t_put "$b" f f -H "x-amz-meta-s3cmd-attrs: atime:1700000999/ctime:1700000888/gid:0/gname:root/md5:x/mode:33184/mtime:1577934245/uid:0/uname:root"
    assert_ok s3c cp --preserve "s3://$b/f" got
    assert_eq "1577934245.000000000 640" "$(stat -c '%.9Y %a' got)" "mtime and mode from s3cmd-attrs"
}

# sync down sets the recorded mtimes; a second sync either way copies nothing.
test_fattr_sync_round_trip() {
    local b
    t_new_bucket b
    _fa_tree up
    assert_ok s3c sync up "s3://$b/t/"
    assert_ok s3c sync "s3://$b/t/" down
    assert_eq "$(_fa_times up)" "$(_fa_times down)" "mtimes after sync down"
    assert_ok s3c sync "s3://$b/t/" down
    assert_eq "" "$T_OUT" "a second sync down copies nothing"
    assert_ok s3c sync up "s3://$b/t/"
    assert_eq "" "$T_OUT" "a second sync up copies nothing"
    assert_ok s3c sync down "s3://$b/t/"
    assert_eq "" "$T_OUT" "a sync up of the downloaded tree copies nothing"
    # A local change is copied back, as before.
    printf 'changed\n' > down/small.txt
    assert_ok s3c sync "s3://$b/t/" down
    assert_contains "$T_OUT" "download: s3://$b/t/small.txt to down/small.txt"
    assert_eq "$(_fa_times up)" "$(_fa_times down)" "mtimes after the change was undone"
}

# rclone writes, s3c reads; s3c writes, rclone reads: the same mtimes (and with rclone's -M and
# s3c's --preserve, the same modes).
test_fattr_rclone_round_trip() {
    local b
    _fa_need rclone
    t_new_bucket b
    _fa_tree up
    assert_ok _fa_rclone -q copy -M up "t:$b/by-rclone"
    assert_ok s3c cp --preserve --recursive "s3://$b/by-rclone/" s3c-got
    assert_eq "$(_fa_times up)" "$(_fa_times s3c-got)" "mtimes of rclone's objects, downloaded by s3c"
    assert_eq "$(_fa_modes up)" "$(_fa_modes s3c-got)" "modes of rclone's objects, downloaded by s3c --preserve"
    assert_ok s3c sync --preserve up "s3://$b/by-s3c/"
    assert_ok _fa_rclone -q copy -M "t:$b/by-s3c" rclone-got
    assert_eq "$(_fa_times up)" "$(_fa_times rclone-got)" "mtimes of s3c's objects, downloaded by rclone"
    assert_eq "$(_fa_modes up)" "$(_fa_modes rclone-got)" "modes of s3c's objects, downloaded by rclone -M"
    # rclone's own check finds nothing to do against what s3c uploaded (size and mtime agree).
    assert_ok _fa_rclone copy -v up "t:$b/by-s3c"
    assert_not_contains "$T_ERR" "Copied" "rclone copies nothing over s3c's upload"
}

# s3cmd writes (sync keeps its attributes), s3c reads them. s3cmd reads only its own key, which s3c
# does not write (s3/fattr.h says why): the other way is not a round trip s3cmd can make.
test_fattr_s3cmd_round_trip() {
    local b
    _fa_need s3cmd
    t_new_bucket b
    _fa_tree up
    assert_ok _fa_s3cmd sync up/ "s3://$b/by-s3cmd/"
    [ -n "$(t_head_header "$b" by-s3cmd/small.txt x-amz-meta-s3cmd-attrs)" ] ||
        t_fail "s3cmd recorded no s3cmd-attrs"
    assert_ok s3c sync --preserve "s3://$b/by-s3cmd/" s3c-got
    # s3cmd keeps whole seconds.
    assert_eq "$(cd up && find . -type f -printf '%P %Ts\n' | LC_ALL=C sort)" \
        "$(cd s3c-got && find . -type f -printf '%P %T@\n' | sed 's/\.0*$//' | LC_ALL=C sort)" \
        "mtimes of s3cmd's objects, downloaded by s3c"
    assert_eq "$(_fa_modes up)" "$(_fa_modes s3c-got)" "modes of s3cmd's objects, downloaded by s3c --preserve"
}

# _fa_heads_after HEADS-BEFORE DEBUG-OUTPUT WANT: s3emu answered WANT HEADs since, less the ones
# a loaded machine hedged (t_resent).
_fa_heads_after() {
    t_assert_emu_ops HeadObject "$(($1 + $(t_resent HeadObject "$2")))" "$3"
}

# sync down with recorded mtimes (src/plan/merge.h, "Recorded mtimes"): the listing's times decide
# where they can, a HEAD where they cannot, none in the steady state. A same-sized object uploaded
# after the file was downloaded is found by the mtime it records (the AWS CLI's rule keeps the old
# file); a local change that keeps the size is undone; the tree the objects came from is proven
# the same once, then never asked again.
test_fattr_sync_down_recorded_model() {
    local b heads debug
    t_new_bucket b
    _fa_tree up
    assert_ok s3c sync up "s3://$b/t/"
    # The tree the objects came from: same mtimes, but its status changed before the upload.
    sleep 1.1
    heads=$(t_emu_ops HeadObject)
    assert_ok s3c --debug sync "s3://$b/t/" up
    debug=$T_ERR
    assert_eq "" "$T_OUT" "the source tree, synced down onto itself: nothing copied"
    _fa_heads_after "$heads" "$debug" 3
    heads=$(t_emu_ops HeadObject)
    assert_ok s3c --debug sync "s3://$b/t/" up
    debug=$T_ERR
    assert_eq "" "$T_OUT" "and again: nothing"
    _fa_heads_after "$heads" "$debug" 0

    # A fresh download: its files' status changed after the objects were written.
    assert_ok s3c sync "s3://$b/t/" down
    heads=$(t_emu_ops HeadObject)
    assert_ok s3c --debug sync "s3://$b/t/" down
    debug=$T_ERR
    assert_eq "" "$T_OUT" "steady state: nothing copied"
    _fa_heads_after "$heads" "$debug" 0

    # Another upload of the same size, with another mtime, after the download.
    sleep 1.1
    printf 'small two\n' > other.txt
    touch -d '2021-01-01 00:00:00.25' other.txt
    assert_ok s3c cp other.txt "s3://$b/t/small.txt"
    assert_ok s3c sync --dryrun "s3://$b/t/" down
    assert_eq "(dryrun) download: s3://$b/t/small.txt to down/small.txt" "$T_OUT" "the dry run finds it"
    assert_eq "small one" "$(cat down/small.txt)" "the dry run wrote nothing"
    assert_ok s3c sync "s3://$b/t/" down
    assert_eq "download: s3://$b/t/small.txt to down/small.txt" "$T_OUT" "a same-sized upload is found"
    assert_eq "small two 1609459200.250000000" "$(cat down/small.txt) $(stat -c %.9Y down/small.txt)" \
        "the new object, and its mtime"

    # A local change that keeps the size (a newer mtime): the object's bytes back.
    printf 'small ten\n' > down/small.txt
    assert_ok s3c sync "s3://$b/t/" down
    assert_eq "download: s3://$b/t/small.txt to down/small.txt" "$T_OUT" "a same-sized local change is undone"
    assert_eq "small two" "$(cat down/small.txt)" "the object's bytes"

    # --no-preserve: the AWS CLI's rules and stamps, no HEAD.
    assert_ok s3c sync --no-preserve "s3://$b/t/" plain
    heads=$(t_emu_ops HeadObject)
    assert_ok s3c sync --no-preserve "s3://$b/t/" plain
    assert_eq "" "$T_OUT" "--no-preserve: a second sync copies nothing"
    t_assert_emu_ops HeadObject "$heads" 0
}

# --directory-markers: empty directories go up as 0-byte "dir/" objects (as the AWS console makes
# them) and come down as directories, never as files named "dir"; sync keeps both ends so, and a
# second sync does nothing. Without the flag a marker is skipped, as before.
test_fattr_directory_markers() {
    local b
    t_new_bucket b
    mkdir -p up/e1 up/a/e2 up/f
    printf 'x\n' > up/f/x
    assert_ok s3c cp --recursive --directory-markers up "s3://$b/t/"
    assert_eq "$(printf '%s\n' t/a/e2/ t/e1/ t/f/x)" "$(t_list_keys "$b")" "the markers and the file"
    assert_eq "0" "$(t_head_header "$b" t/e1/ Content-Length)" "a marker holds 0 bytes"
    assert_ok awsx s3api put-object --bucket "$b" --key t/console/   # as the AWS console makes one
    assert_ok s3c cp --recursive "s3://$b/t/" plain
    assert_eq "$(printf '%s\n' plain plain/f plain/f/x)" "$(find plain | LC_ALL=C sort)" \
        "without the flag: markers skipped"
    assert_ok s3c cp --recursive --directory-markers "s3://$b/t/" kept
    assert_eq "$(printf '%s\n' kept/ kept/a/ kept/a/e2/ kept/console/ kept/e1/ kept/f/ kept/f/x)" \
        "$(find kept -type d -printf '%p/\n' -o -printf '%p\n' | LC_ALL=C sort)" "with it: directories"
    assert_exit 252 s3c mv --recursive --directory-markers up "s3://$b/mv/"

    assert_ok s3c sync --directory-markers up "s3://$b/s/"
    assert_eq "$(printf '%s\n' "upload: up/a/e2/ to s3://$b/s/a/e2/" "upload: up/e1/ to s3://$b/s/e1/" \
        "upload: up/f/x to s3://$b/s/f/x")" "$(LC_ALL=C sort <<<"$T_OUT")" "sync up: the markers too"
    assert_ok s3c sync --directory-markers up "s3://$b/s/"
    assert_eq "" "$T_OUT" "a second sync up does nothing"
    mkdir -p down/zz
    assert_ok s3c sync --delete --directory-markers "s3://$b/s/" down
    assert_eq "$(printf '%s\n' "delete: down/zz/" "download: s3://$b/s/f/x to down/f/x")" \
        "$(LC_ALL=C sort <<<"$T_OUT")" "sync down: files, and the empty directory no marker names goes"
    [ -d down/a/e2 ] && [ -d down/e1 ] && [ ! -e down/zz ] || t_fail "the directories after sync down"
    assert_ok s3c sync --delete --directory-markers "s3://$b/s/" down
    assert_eq "" "$T_OUT" "a second sync down does nothing"
    rmdir up/e1
    assert_ok s3c sync --delete --directory-markers up "s3://$b/s/"
    assert_eq "delete: s3://$b/s/e1/" "$T_OUT" "sync up --delete: the marker of a directory gone"
}
