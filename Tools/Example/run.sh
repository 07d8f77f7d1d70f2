#!/usr/bin/env bash
# The example end to end: models declared, saved, fetched, edited (by
# Tools/Example), then the store shown by store-tool, without the app's code.
#
#     Tools/Example/run.sh [STORE-PATH]
set -euo pipefail
cd "$(dirname "$0")/../.."

store="${1:-$(mktemp -d)/trips.store}"
swift build --product modelstore-example
swift build --product store-tool
bin="$(swift build --show-bin-path)"

"$bin/modelstore-example" "$store"
echo
echo "== store-tool info $store"
"$bin/store-tool" info "$store" --format table
echo
echo "== store-tool list $store Trip --fields name,startDate,status,stops"
"$bin/store-tool" list "$store" Trip --fields name,startDate,status,stops --format table
echo
echo "== store-tool show $store Trip:1 --depth 1"
"$bin/store-tool" show "$store" Trip:1 --depth 1 --format table
echo
echo "== store-tool check $store"
"$bin/store-tool" check "$store"
