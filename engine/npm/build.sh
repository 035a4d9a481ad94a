#!/usr/bin/env bash
# Builds the npm package `crdlab` (the engine as WebAssembly: engine/src/wasm.rs, feature
# `wasm`, linked by the crate here, crdlab-npm) for the three wasm-pack targets: OUT_DIR/web,
# OUT_DIR/bundler and OUT_DIR/nodejs, each a package.json named crdlab, crdlab.js,
# crdlab.d.ts, crdlab_bg.wasm and a README; the web build also the docs-page widget
# (widget.js, crdlab-editor.js: web/widget/build.mjs --npm).
#
#   engine/npm/build.sh OUT_DIR
#
# Installs and downloads nothing: wasm-pack 0.15.1 and wasm-bindgen-cli 0.2.130 (cargo
# install), the wasm32-unknown-unknown target and the npm package binaryen@132 (its wasm-opt,
# tools/node_modules/.bin) must be there (scripts/install-tools puts them there). wasm-pack
# runs with --mode no-install and without its own wasm-opt (engine/npm/Cargo.toml metadata);
# this script runs binaryen's wasm-opt. Env: WASM_OPT (the wasm-opt to use).
set -euo pipefail

usage() { echo "usage: engine/npm/build.sh OUT_DIR" >&2; exit 2; }
[ $# -eq 1 ] || usage
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
here="$root/engine/npm"

WASM_PACK_VERSION=0.15.1
WASM_BINDGEN_VERSION=0.2.130
BINARYEN_VERSION=132
wasm_opt=${WASM_OPT:-$root/tools/node_modules/.bin/wasm-opt}

missing=()
[ "$(wasm-pack --version 2>/dev/null || true)" = "wasm-pack $WASM_PACK_VERSION" ] ||
  missing+=("wasm-pack $WASM_PACK_VERSION (cargo install wasm-pack --version $WASM_PACK_VERSION --locked)")
[ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $WASM_BINDGEN_VERSION" ] ||
  missing+=("wasm-bindgen-cli $WASM_BINDGEN_VERSION (cargo install wasm-bindgen-cli --version $WASM_BINDGEN_VERSION)")
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
  missing+=("the wasm32-unknown-unknown target (rustup target add wasm32-unknown-unknown)")
[ "$("$wasm_opt" --version 2>/dev/null | cut -d' ' -f3)" = "$BINARYEN_VERSION" ] ||
  missing+=("wasm-opt $BINARYEN_VERSION from npm binaryen@$BINARYEN_VERSION at $wasm_opt (cd tools && npm ci)")
[ -d "$root/web/editor/node_modules" ] && [ -x "$root/tools/node_modules/.bin/esbuild" ] ||
  missing+=("the widget's build tools: esbuild (cd tools && npm ci) and CodeMirror (cd web/editor && npm ci)")
grep -q '"engine/npm"' "$root/Cargo.toml" ||
  missing+=("engine/npm in the workspace members of Cargo.toml (members = [\"engine\", \"engine/npm\", \"web\"])")
if [ ${#missing[@]} -gt 0 ]; then
  echo "engine/npm/build.sh: missing (scripts/install-tools installs the tools):" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  exit 1
fi

# Size over speed for the module (its own target dir, so the playground's and the tests'
# builds keep their profile): opt-level z keeps the wasm under the 800 KB gzip budget.
# The wasm stack size comes from .cargo/config.toml.
export CARGO_TARGET_DIR="$root/target/npm-cargo"
export CARGO_PROFILE_RELEASE_OPT_LEVEL=z
export CARGO_PROFILE_RELEASE_LTO=fat
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
export CARGO_PROFILE_RELEASE_PANIC=abort

# wasm-pack asks crates.io for its latest version (a metadata request, at most daily); a
# dead proxy makes that fail at once, and cargo runs --offline (crates come from
# `cargo fetch` in scripts/install-tools), so the build touches no network.
noproxy=(env ALL_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9
  all_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9)

targets=(web bundler nodejs)
for target in "${targets[@]}"; do
  echo "== crdlab npm: wasm-pack --target $target"
  rm -rf "${out:?}/$target"
  "${noproxy[@]}" wasm-pack --quiet build "$here" --mode no-install --release --no-opt --weak-refs \
    --no-gitignore --target "$target" --out-dir "$out/$target" --out-name crdlab -- --locked --offline
done

# binaryen's wasm-opt. wasm-bindgen usually writes the same module for the three targets:
# then it is optimized once and copied; otherwise the three run side by side.
# -O1, not -Oz: LLVM's opt-level z has already done the size work, and binaryen's -Oz
# (with --converge) made the module 3 % smaller but less compressible: measured on the same
# module, -Oz --converge 819,435 bytes of gzip, -O2 818,502, -Os 818,425, -O1 809,300, no
# wasm-opt 815,823. Compile and evaluate times in node were the same within noise (the
# arithmetic case: 23.6 µs and 552 ns against 24.5 µs and 550 ns), and -O1 takes seconds,
# not minutes.
echo "== crdlab npm: wasm-opt -O1 (binaryen $BINARYEN_VERSION)"
optimize() {
  "$wasm_opt" -O1 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue "$1" -o "$1.opt"
}
first="$out/${targets[0]}/crdlab_bg.wasm"
same=1
for target in "${targets[@]}"; do
  cmp -s "$first" "$out/$target/crdlab_bg.wasm" || same=0
done
if [ $same = 1 ]; then
  optimize "$first"
  for target in "${targets[@]:1}"; do cp "$first.opt" "$out/$target/crdlab_bg.wasm.opt"; done
else
  pids=()
  for target in "${targets[@]}"; do
    optimize "$out/$target/crdlab_bg.wasm" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
fi
for target in "${targets[@]}"; do
  wasm="$out/$target/crdlab_bg.wasm"
  echo "$target: $(wc -c <"$wasm") -> $(wc -c <"$wasm.opt") bytes"
  mv "$wasm.opt" "$wasm"
  node "$here/package.mjs" "$out/$target" "$target"
done
# The web build also ships the docs-page widget (crdlab/widget.js, web/widget/README.md) and
# the editor bundle it loads (crdlab-editor.js).
echo "== crdlab npm: the docs-page widget (web/widget/build.mjs --npm)"
node "$root/web/widget/build.mjs" --npm "$out/web"
echo "== crdlab npm: built $out/{web,bundler,nodejs}"
