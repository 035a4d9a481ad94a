#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets, fuzz/corpus/<target>/, from the vectors and
CRDs of the shared directory (CRDLAB_SHARED, default ../../shared from this file): each
vector request becomes an input of every target it fits, in the byte layouts the targets
read (fuzz/src/lib.rs and the header comment of each fuzz_targets/*.rs). The corpus is
generated, never committed; the small minimised one in fuzz/corpus-min/ is.

    python3 fuzz/seed.py [--max N]   # N inputs per target at most (default 3000)
"""

import base64
import hashlib
import json
import os
import random
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("CRDLAB_SHARED", HERE / ".." / ".." / "shared")).resolve()
MAX_INPUT = 64 * 1024
RELEASES = [f"1.{m}" for m in range(25, 38)]
DEFAULT_RELEASE = "1.36"
# Targets whose inputs are whole CRDs run a few inputs a second: fewer seeds, so that loading
# them does not take the first minutes of a campaign.
LIMITS = {"crd_compile": 800, "diff": 800, "text_edit": 800, "batch_line": 800}
TARGETS = ["read_text", "crd_compile", "validate_object", "cel", "diff", "text_edit",
           "share_decode", "batch_line"]


def release_byte(v):
    return bytes([RELEASES.index(v if v in RELEASES else DEFAULT_RELEASE)])


def crd_files():
    """Relative paths under crds/, sorted bytewise: the numbering of fuzz/src/lib.rs."""
    root = SHARED / "crds"
    out = [str(p.relative_to(root)) for p in root.rglob("*")
           if p.is_file() and p.suffix in (".yaml", ".yml", ".json")]
    return sorted(out, key=lambda s: s.encode())


def text_of(v):
    """A request field as text: strings as they are, values as JSON."""
    if v is None:
        return b""
    if isinstance(v, str):
        return v.encode()
    return json.dumps(v, indent=1).encode()


class Corpus:
    def __init__(self):
        self.inputs = {t: {} for t in TARGETS}

    def add(self, target, data):
        if 0 < len(data) <= MAX_INPUT:
            self.inputs[target][hashlib.sha1(data).hexdigest()] = data

    def write(self, limit):
        rng = random.Random(16)
        for t, inputs in self.inputs.items():
            d = HERE / "corpus" / t
            d.mkdir(parents=True, exist_ok=True)
            keys = sorted(inputs)
            n = min(limit, LIMITS.get(t, limit))
            if len(keys) > n:
                keys = sorted(rng.sample(keys, n))
            for k in keys:
                (d / k).write_bytes(inputs[k])
            print(f"{t}: {len(keys)} inputs (of {len(inputs)})")


VERSION_INDEX = {}


def version_index(crd_text, name):
    key = (crd_text, name)
    if key not in VERSION_INDEX:
        VERSION_INDEX[key] = version_index_uncached(crd_text, name)
    return VERSION_INDEX[key]


def version_index_uncached(crd_text, name):
    """The index of version `name` in the CRD's spec.versions (255: the storage version)."""
    if not name:
        return 255
    try:
        import yaml  # PyYAML when present; the storage version otherwise
        for doc in yaml.load_all(crd_text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                for i, v in enumerate(doc.get("spec", {}).get("versions") or []):
                    if isinstance(v, dict) and v.get("name") == name:
                        return min(i, 254)
    except Exception:
        pass
    return 255


def share_fragment(state):
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(json.dumps(state).encode()) + packer.flush()
    return ("s=1." + base64.urlsafe_b64encode(packed).decode().rstrip("=")).encode()


def main():
    limit = 3000
    if "--max" in sys.argv:
        limit = int(sys.argv[sys.argv.index("--max") + 1])
    corpus = Corpus()
    files = crd_files()
    index = {f: i for i, f in enumerate(files)}
    texts = {}

    def crd_text(rel):
        if rel not in texts:
            p = SHARED / "crds" / rel
            texts[rel] = p.read_bytes() if p.stat().st_size <= MAX_INPUT else None
        return texts[rel]

    pointers = ["/metadata/name", "/spec/versions/0/name", "/spec/versions/0/served",
                "/spec/versions/0/schema/openAPIV3Schema/properties/spec",
                "/spec/versions/0/schema/openAPIV3Schema/x-kubernetes-validations",
                "/spec/names/shortNames", "/spec/versions/-", "/spec/scope"]
    values = [b'"x"', b"true", b'{"rule": "self.a == 1", "message": "m"}', b"[1, 2]", b"null"]

    # Every small CRD file: read, compiled, edited, diffed against its neighbour.
    small = [f for f in files if crd_text(f) is not None]
    for n, rel in enumerate(small):
        t = crd_text(rel)
        corpus.add("read_text", t)
        corpus.add("crd_compile", release_byte(DEFAULT_RELEASE) + t)
        corpus.add("text_edit", bytes([n % 3]) + pointers[n % len(pointers)].encode() + b"\0"
                   + values[n % len(values)] + b"\0" + t)
        if n + 1 < len(small):
            u = crd_text(small[n + 1])
            if len(t) + len(u) < MAX_INPUT - 16:
                corpus.add("diff", bytes([n % 14]) + t + b"\0" + u + b"\0")
        corpus.add("share_decode", b"\0" + share_fragment(
            {"crd": t.decode(errors="replace"), "object": "", "tab": "rules",
             "settings": {"kubernetesVersion": RELEASES[n % len(RELEASES)]}}))

    for vf in sorted((SHARED / "vectors").glob("*/*.jsonl")):
        for line in vf.open():
            vec = json.loads(line)
            req = vec["request"]
            release = req.get("kubernetesVersion", DEFAULT_RELEASE)
            if req.get("mode") == "eval":
                corpus.add("cel", release_byte(release) + req["expr"].encode() + b"\0"
                           + (json.dumps(req["vars"]).encode() if "vars" in req else b"") + b"\0"
                           + (json.dumps(req["varTypes"]).encode() if "varTypes" in req else b""))
                corpus.add("batch_line", json.dumps(req).encode())
                continue
            rel = req.get("crdFile")
            if rel is None or rel not in index:
                continue
            obj, old = req.get("object"), req.get("oldObject")
            for part in (obj, old):
                if part is not None:
                    corpus.add("read_text", text_of(part))
            t = crd_text(rel)
            if t is not None:
                corpus.add("crd_compile", release_byte(release) + t)
                inline = {k: v for k, v in req.items() if k != "crdFile"}
                inline["crd"] = t.decode(errors="replace")
                corpus.add("batch_line", json.dumps(inline).encode())
                if obj is not None:
                    corpus.add("share_decode", b"\0" + share_fragment(
                        {"crd": inline["crd"], "object": text_of(obj).decode(),
                         "oldObject": text_of(old).decode(),
                         "settings": {"kubernetesVersion": release,
                                      "status": req.get("subresource") == "status"}}))
            if obj is None:
                continue
            i = index[rel]
            ver = version_index(t.decode(errors="replace"), req.get("version")) if t else 255
            op = 0 if old is None else (2 if req.get("subresource") == "status" else 1)
            if req.get("ratcheting") is False:
                op |= 0x10
            if req.get("emulateRequest") is False:
                op |= 0x20
            corpus.add("validate_object", bytes([i & 0xFF, i >> 8, ver, op]) + text_of(obj)
                       + (b"\0" + text_of(old) if old is not None else b""))
    corpus.write(limit)


if __name__ == "__main__":
    main()
