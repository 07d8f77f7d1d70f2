#!/usr/bin/env bash
# Times `store-tool import` of a JSONL file into the example's store, with
# the example's entities: N trips (a unique name, so every record's name is
# checked against the file and the store) and 4 stops per trip, each stop
# linked to its trip (so the write passes link every stop). Prints the wall
# time and peak memory (/usr/bin/time) of the import and of a dry run.
#
#     Tools/store-tool/timing/import-timing.sh [OBJECTS]     (default 200000)
#
# A release build; the input is made in a fresh temporary folder, removed at
# the end. The figures go in Tools/store-tool/MANUAL.md ("Import speed").
set -euo pipefail
cd "$(dirname "$0")/../../.."

objects="${1:-200000}"
trips=$((objects / 5))
stops=$((trips * 4))
folder="$(mktemp -d)"
trap 'rm -rf "$folder"' EXIT

swift build -c release --product store-tool >/dev/null
swift build -c release --product modelstore-example >/dev/null
bin="$(swift build -c release --show-bin-path)"

# The example's store (Trip, Stop; Trip.name is unique), then the records.
"$bin/modelstore-example" "$folder/trips.store" >/dev/null
awk -v trips="$trips" 'BEGIN {
    for (t = 1; t <= trips; t++) {
        printf "{\"key\":\"Trip:%d\",\"attributes\":{\"name\":\"trip %d\",\"destination\":\"D%d\",\"startDate\":%d,\"tags\":[\"a\",\"b\"],\"status\":\"planned\"}}\n", t, t, t % 97, 1700000000 + t
        for (s = 1; s <= 4; s++) {
            id = (t - 1) * 4 + s
            printf "{\"key\":\"Stop:%d\",\"attributes\":{\"title\":\"stop %d\"},\"relationships\":{\"trip\":\"Trip:%d\"}}\n", id, id, t
        }
    }
}' >"$folder/records.jsonl"
echo "input: $trips trips + $stops stops = $((trips + stops)) objects, $(du -h "$folder/records.jsonl" | cut -f1) of JSONL"

measure() {
    local label="$1"
    shift
    /usr/bin/time -f "%e %M" -o "$folder/time" "$@" >"$folder/out" 2>"$folder/err" || {
        cat "$folder/err" >&2
        exit 1
    }
    read -r seconds kilobytes <"$folder/time"
    printf '%-28s %6.1f s  %5d MB peak   (%s)\n' "$label" "$seconds" $((kilobytes / 1024)) "$(tail -n 1 "$folder/out")"
}

measure "import --dry-run" "$bin/store-tool" import "$folder/trips.store" "$folder/records.jsonl" --dry-run
measure "import" "$bin/store-tool" import "$folder/trips.store" "$folder/records.jsonl"
measure "check" "$bin/store-tool" check "$folder/trips.store"
