# Add up the --stat --json lines of the shards of one job (any other lines,
# such as --json result lines, are ignored):
#   cat shard-*.out | jq -s -f examples/shard-stat.jq
# or, as one line:
#   jq -s '[.[] | select(has("stat"))] | {shards: length, skipped: (map(.skipped) | add),
#          stat: ([.[].stat[]] | group_by(.operation) | map({operation: .[0].operation,
#          total: (map(.total) | add), success: (map(.success) | add),
#          error: (map(.error) | add), bytes: (map(.bytes) | add)}))}' shard-*.out
[.[] | select(type == "object" and has("stat"))]
| {
    shards: length,
    expected: (map(.shards // 1) | max),
    missing: ((map(.shards // 1) | max) as $n | [range(0; $n)] - map(.shard // 0)),
    skipped: (map(.skipped) | add),
    stat: ([.[].stat[]] | group_by(.operation) | map({
        operation: .[0].operation,
        total: (map(.total) | add),
        success: (map(.success) | add),
        error: (map(.error) | add),
        bytes: (map(.bytes) | add)
    }))
  }
