# Shared by scripts/*: repo root, PATH, section headers. Source it; do not run it.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# cargo-installed tools (trunk, wasm-bindgen) and the build tools of tools/ (npm: wasm-opt from
# binaryen@132, esbuild) come first: trunk picks wasm-opt from PATH and must not find another
# version (or download one).
export PATH="$ROOT/tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

SECTION_START=$SECONDS
section() {
  printf '\n==================== %s ====================\n' "$*"
  SECTION_START=$SECONDS
}
section_done() {
  printf -- '-------------------- done in %ss --------------------\n' "$((SECONDS - SECTION_START))"
}
