#!/usr/bin/env bash
# Prints the gzip size of the npm package's wasm (each target built by engine/npm/build.sh)
# and fails when one is over the budget: 800 KB (800 × 1024 bytes) gzipped.
#
#   engine/npm/size.sh OUT_DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: engine/npm/size.sh OUT_DIR" >&2; exit 2; }
BUDGET=$((800 * 1024))
status=0
for target in web bundler nodejs; do
  wasm="$1/$target/crdlab_bg.wasm"
  if [ ! -f "$wasm" ]; then
    echo "$wasm: missing (run engine/npm/build.sh $1)" >&2
    status=1
    continue
  fi
  raw=$(wc -c <"$wasm")
  gz=$(gzip -9 -c "$wasm" | wc -c)
  verdict=ok
  if [ "$gz" -gt "$BUDGET" ]; then verdict="OVER BUDGET"; status=1; fi
  printf 'crdlab npm %-8s wasm: %8d bytes, gzip -9: %7d bytes (%d KB; budget %d KB): %s\n' \
    "$target" "$raw" "$gz" $(((gz + 1023) / 1024)) $((BUDGET / 1024)) "$verdict"
done
exit $status
