# bench/emu-lib.sh: sourced by the benches that run one s3emu of their own.
# shellcheck shell=bash
#
#   T=$(mktemp -d); bench_emu_start NAME [S3EMU-ARGS...]
#
# starts $EMU (the s3emu binary) on a free port with S3EMU-ARGS, its output in
# $T/out and $T/err; sets URL and EMU_PID, points s3c and the AWS variables at
# it (HOME=$T/home, no config files), and on exit stops it and removes $T.
# NAME goes in the message when it does not start (exit 1).
bench_emu_cleanup() {
    [ -n "${EMU_PID:-}" ] && kill "$EMU_PID" 2>/dev/null && wait "$EMU_PID" 2>/dev/null || true
    rm -rf "$T"
}

bench_emu_start() {
    local name=$1
    shift
    EMU_PID=
    trap bench_emu_cleanup EXIT
    "$EMU" --port 0 "$@" >"$T/out" 2>"$T/err" &
    EMU_PID=$!
    for _ in $(seq 1 100); do grep -q ready "$T/out" 2>/dev/null && break; sleep 0.05; done
    URL=$(sed -n 's/^ready //p' "$T/out")
    [ -n "$URL" ] || { echo "$name: s3emu did not start" >&2; exit 1; }
    export AWS_ACCESS_KEY_ID=s3emu-access AWS_SECRET_ACCESS_KEY=s3emu-secret AWS_REGION=us-east-1
    export AWS_ENDPOINT_URL=$URL HOME=$T/home AWS_CONFIG_FILE=$T/none AWS_SHARED_CREDENTIALS_FILE=$T/none
    mkdir -p "$HOME"
}
