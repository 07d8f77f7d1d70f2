#!/usr/bin/env bash
# Times store-tool on large stores, with the wall time and peak memory
# (/usr/bin/time) of each command:
#
#   - import of a JSONL file of OBJECTS objects into the example's store
#     (a fifth trips with unique names, so that every record's name is
#     checked against the file and the store, and 4 stops per trip, each
#     linked to its trip), its dry run, and with --upsert of the same file
#     (every trip matches by name and is updated);
#   - check of the resulting store, and import of its json export (one
#     document) into a new store;
#   - list with a filter through a to-one on its stops (4/5 of OBJECTS);
#   - export of EXPORTED trips (a store of trips alone) to JSONL, beside
#     sqlite-utils writing the same table's rows as JSON lines (installed
#     with pip when missing; skipped, saying so, when it cannot be).
#
#     Tools/store-tool/timing/tool-timing.sh [OBJECTS [EXPORTED]]   (default 200000 100000)
#
# A release build; the inputs are made in a fresh temporary folder, removed
# at the end. The figures go in Tools/store-tool/MANUAL.md ("Speed").
set -euo pipefail
cd "$(dirname "$0")/../../.."

objects="${1:-200000}"
exported="${2:-100000}"
trips=$((objects / 5))
stops=$((trips * 4))
folder="$(mktemp -d)"
trap 'rm -rf "$folder"' EXIT

swift build -c release --product store-tool >/dev/null
swift build -c release --product modelstore-example >/dev/null
bin="$(swift build -c release --show-bin-path)"

# TRIPS trips named "trip N", each followed by STOPS_PER_TRIP stops linked to it.
records() {
    awk -v trips="$1" -v per="$2" 'BEGIN {
        for (t = 1; t <= trips; t++) {
            printf "{\"key\":\"Trip:%d\",\"attributes\":{\"name\":\"trip %d\",\"destination\":\"D%d\",\"startDate\":%d,\"tags\":[\"a\",\"b\"],\"status\":\"planned\"}}\n", t, t, t % 97, 1700000000 + t
            for (s = 1; s <= per; s++) {
                id = (t - 1) * per + s
                printf "{\"key\":\"Stop:%d\",\"attributes\":{\"title\":\"stop %d\"},\"relationships\":{\"trip\":\"Trip:%d\"}}\n", id, id, t
            }
        }
    }'
}

measure() {
    local label="$1"
    shift
    /usr/bin/time -f "%e %M" -o "$folder/time" "$@" >"$folder/out" 2>"$folder/err" || {
        cat "$folder/err" >&2
        exit 1
    }
    read -r seconds kilobytes <"$folder/time"
    printf '%-34s %6.1f s  %5d MB peak   (%s)\n' "$label" "$seconds" $((kilobytes / 1024)) "$(tail -n 1 "$folder/out" | cut -c1-60)"
}

# The example's store (Trip, Stop; Trip.name is unique), then the records.
"$bin/modelstore-example" "$folder/trips.store" >/dev/null
records "$trips" 4 >"$folder/records.jsonl"
echo "input: $trips trips + $stops stops = $((trips + stops)) objects, $(du -h "$folder/records.jsonl" | cut -f1) of JSONL"

measure "import --dry-run" "$bin/store-tool" import "$folder/trips.store" "$folder/records.jsonl" --dry-run
measure "import" "$bin/store-tool" import "$folder/trips.store" "$folder/records.jsonl"
grep '"key":"Trip:' "$folder/records.jsonl" >"$folder/trips.jsonl"
measure "import --upsert ($trips trips)" "$bin/store-tool" import "$folder/trips.store" "$folder/trips.jsonl" --upsert
measure "check" "$bin/store-tool" check "$folder/trips.store"
"$bin/store-tool" export "$folder/trips.store" --format json --output "$folder/all.json" >/dev/null
measure "import of its json export" "$bin/store-tool" import "$folder/from-json.store" "$folder/all.json"
measure "list Stop --where trip.destination" \
    "$bin/store-tool" list "$folder/trips.store" Stop --where 'trip.destination == "D7"' --format jsonl

# Export: a store of EXPORTED trips, as JSONL, then the same table by sqlite-utils.
"$bin/modelstore-example" "$folder/export.store" >/dev/null
records "$exported" 0 >"$folder/export.jsonl"
"$bin/store-tool" import "$folder/export.store" "$folder/export.jsonl" >/dev/null
measure "export Trip ($exported) --format jsonl" "$bin/store-tool" export "$folder/export.store" Trip --format jsonl --output "$folder/export-out.jsonl"
# sqlite-utils as a command, or as a Python module (a `pip install --user`
# puts the command in a folder that may not be on PATH).
sqlite_utils=(python3 -m sqlite_utils)
if command -v sqlite-utils >/dev/null; then sqlite_utils=(sqlite-utils); fi
if ! "${sqlite_utils[@]}" --version >/dev/null 2>&1; then
    pip install --quiet sqlite-utils >/dev/null 2>&1 || true
fi
if "${sqlite_utils[@]}" --version >/dev/null 2>&1; then
    measure "sqlite-utils rows Trip --nl" "${sqlite_utils[@]}" rows "$folder/export.store" Trip --nl
else
    echo "sqlite-utils: not installed and pip could not install it; that comparison is skipped"
fi
