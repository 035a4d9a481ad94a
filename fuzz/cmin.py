#!/usr/bin/env python3
"""Refreshes the committed minimised corpus of fuzz targets, fuzz/corpus-min/<target>/:
libFuzzer's merge (-merge=1, which records each input's coverage features in its control
file) runs over the committed inputs and the generated corpus fuzz/corpus/<target>/, then a
greedy cover keeps the inputs that add the most features, at most --files inputs and
--bytes bytes. Regression inputs (`regression-*`, a crash's input kept after its fix) always
stay.

    python3 fuzz/cmin.py BIN_DIR [--files 40] [--bytes 200000] TARGET...

BIN_DIR: where cargo fuzz build put the targets (TARGET_DIR/x86_64-unknown-linux-gnu/release).
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def features(control):
    """Input path -> its feature set, from a merge control file."""
    lines = control.read_text(errors="replace").splitlines()
    n = int(lines[0])
    files = lines[2:2 + n]
    out = {}
    for line in lines[2 + n:]:
        parts = line.split()
        if parts and parts[0] == "FT":
            out[files[int(parts[1])]] = set(parts[2:])
    return out


def main():
    args = sys.argv[1:]
    max_files, max_bytes = 40, 200_000
    if "--files" in args:
        i = args.index("--files"); max_files = int(args[i + 1]); del args[i:i + 2]
    if "--bytes" in args:
        i = args.index("--bytes"); max_bytes = int(args[i + 1]); del args[i:i + 2]
    bins, targets = Path(args[0]), args[1:]
    for t in targets:
        kept_dir = HERE / "corpus-min" / t
        kept_dir.mkdir(parents=True, exist_ok=True)
        sources = [d for d in (kept_dir, HERE / "corpus" / t) if d.is_dir()]
        with tempfile.TemporaryDirectory() as tmp:
            control = Path(tmp) / "control"
            out = Path(tmp) / "out"
            out.mkdir()
            subprocess.run([str(bins / t), "-merge=1", f"-merge_control_file={control}",
                            "-rss_limit_mb=2048", "-timeout=10", "-max_len=65536", str(out)]
                           + [str(s) for s in sources],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            ft = features(control)
        regression = {p: f for p, f in ft.items() if Path(p).name.startswith("regression-")}
        covered = set().union(*regression.values()) if regression else set()
        chosen = list(regression)
        size = sum(os.path.getsize(p) for p in chosen)
        rest = {p: f for p, f in ft.items() if p not in regression}
        while rest and len(chosen) < max_files:
            best = max(rest, key=lambda p: (len(rest[p] - covered), -os.path.getsize(p)))
            gain = len(rest[best] - covered)
            if gain == 0:
                break
            if size + os.path.getsize(best) <= max_bytes:
                chosen.append(best)
                covered |= rest[best]
                size += os.path.getsize(best)
            del rest[best]
        data = {}
        for p in chosen:
            name = Path(p).name
            if not name.startswith("regression-"):
                name = hashlib.sha1(Path(p).read_bytes()).hexdigest()
            data[name] = Path(p).read_bytes()
        shutil.rmtree(kept_dir)
        kept_dir.mkdir(parents=True)
        for name, b in data.items():
            (kept_dir / name).write_bytes(b)
        total = len(set().union(*ft.values())) if ft else 0
        print(f"{t}: kept {len(data)} inputs, {size} bytes, {len(covered)} of {total} features")


if __name__ == "__main__":
    main()
