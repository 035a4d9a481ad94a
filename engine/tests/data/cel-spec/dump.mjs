// Flattens the CEL conformance suite of `@bufbuild/cel-spec` (the cel-spec repository's
// `tests/simple/testdata/*.textproto`, as protobuf JSON) into one JSON array that
// engine/tests/cel_conformance.rs reads. Usage: node engine/tests/data/cel-spec/dump.mjs <out.json>
//
// Each element:
//   file, section, name, expr, description?, disableCheck, checkOnly, container,
//   typeEnv:   [{name, type}] variables and [{name, overloads: [{id, member, params, result}]}]
//              functions, types written as strings (see typeString below),
//   bindings:  {name: typedValue},
//   expect:    {value: typedValue} | {evalError: message} | {} (check only),
//   deducedType?: the type cel-go's checker must deduce (typedResult), in cel-go's
//                 checked-AST notation (`list(int)`, `null`, `timestamp`, ...),
//   checkedType?: the output type cel-go's checker gave when the test data was made
//                 (same notation; absent when cel-go did not check it),
//   celGoError?: the parse or check error cel-go gave then (a plain cel-go environment:
//                no extension libraries), as cel-go prints it,
//   unsupported?: why a value or type of the test cannot be written without protobuf.
// A typedValue is the engine's `{"type", "value"}` form (crdlab batch expression mode):
// int/uint as JSON numbers (exact: written as strings when beyond 2^53), doubles as numbers
// or "NaN"/"Infinity"/"-Infinity", bytes in standard base64, durations in Go's
// `time.Duration` notation, timestamps in RFC 3339 with the fraction trimmed (UTC),
// lists as arrays of typedValues, maps as arrays of [key, value] typedValue pairs.

import { writeFileSync } from "node:fs";
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";

const out = process.argv[2];
if (!out) {
  console.error("usage: node dump.mjs <out.json>");
  process.exit(2);
}

class Unsupported extends Error {}

// --- types -------------------------------------------------------------------------
// A type as a string: cel-go's names for the engine's types (`int`, `list(int)`,
// `map(string, dyn)`, `google.protobuf.Timestamp`, `null_type`, `type(int)`), `?T` for an
// overload type parameter, `name(params)` for an abstract type, and `message(Name)`,
// `wrapper(int)`, `google.protobuf.Any` for what needs protobuf.
const PRIMITIVES = {
  BOOL: "bool",
  INT64: "int",
  UINT64: "uint",
  DOUBLE: "double",
  STRING: "string",
  BYTES: "bytes",
};
const WELL_KNOWN = {
  ANY: "google.protobuf.Any",
  TIMESTAMP: "google.protobuf.Timestamp",
  DURATION: "google.protobuf.Duration",
};

function typeString(t) {
  if (t === undefined || t === null) return "dyn";
  if ("primitive" in t) return PRIMITIVES[t.primitive] ?? `unknown_primitive(${t.primitive})`;
  if ("dyn" in t) return "dyn";
  if ("null" in t) return "null_type";
  if ("wellKnown" in t) return WELL_KNOWN[t.wellKnown] ?? `unknown_well_known(${t.wellKnown})`;
  if ("listType" in t) return `list(${typeString(t.listType.elemType)})`;
  if ("mapType" in t) return `map(${typeString(t.mapType.keyType)}, ${typeString(t.mapType.valueType)})`;
  if ("messageType" in t) {
    if (t.messageType === "google.protobuf.Duration" || t.messageType === "google.protobuf.Timestamp") {
      return t.messageType;
    }
    return `message(${t.messageType})`;
  }
  if ("wrapper" in t) return `wrapper(${PRIMITIVES[t.wrapper] ?? t.wrapper})`;
  if ("typeParam" in t) return `?${t.typeParam}`;
  if ("type" in t) return `type(${typeString(t.type)})`;
  if ("abstractType" in t) {
    const ps = (t.abstractType.parameterTypes ?? []).map(typeString);
    return ps.length ? `${t.abstractType.name}(${ps.join(", ")})` : t.abstractType.name;
  }
  if ("error" in t) return "*error*";
  return `unknown(${JSON.stringify(t)})`;
}

// cel-go's checked-AST notation (checker `FormatCheckedType`), for deducedType.
function checkedTypeString(t) {
  if (t === undefined || t === null) return "dyn";
  if ("primitive" in t) return PRIMITIVES[t.primitive] ?? t.primitive;
  if ("dyn" in t) return "dyn";
  if ("null" in t) return "null";
  if ("wellKnown" in t) return { ANY: "any", TIMESTAMP: "timestamp", DURATION: "duration" }[t.wellKnown];
  if ("listType" in t) return `list(${checkedTypeString(t.listType.elemType)})`;
  if ("mapType" in t) {
    return `map(${checkedTypeString(t.mapType.keyType)}, ${checkedTypeString(t.mapType.valueType)})`;
  }
  if ("messageType" in t) {
    if (t.messageType === "google.protobuf.Duration") return "duration";
    if (t.messageType === "google.protobuf.Timestamp") return "timestamp";
    return t.messageType;
  }
  if ("wrapper" in t) return `wrapper(${PRIMITIVES[t.wrapper] ?? t.wrapper})`;
  if ("typeParam" in t) return t.typeParam;
  if ("type" in t) return t.type && Object.keys(t.type).length ? `type(${checkedTypeString(t.type)})` : "type";
  if ("abstractType" in t) {
    const ps = (t.abstractType.parameterTypes ?? []).map(checkedTypeString);
    return ps.length ? `${t.abstractType.name}(${ps.join(", ")})` : t.abstractType.name;
  }
  return JSON.stringify(t);
}

// --- values ------------------------------------------------------------------------
function int64(s) {
  const b = BigInt(s);
  return b >= -(2n ** 53n) && b <= 2n ** 53n ? Number(b) : b.toString();
}

function doubleValue(d) {
  if (typeof d === "number") return d;
  if (d === "NaN" || d === "Infinity" || d === "-Infinity") return d;
  const n = Number(d);
  return Number.isNaN(n) ? d : n;
}

// "123.321456789s" (protobuf JSON) -> Go's time.Duration.String().
function goDuration(text) {
  const m = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) throw new Unsupported(`duration ${text}`);
  let ns = BigInt(m[2]) * 1000000000n + BigInt((m[3] ?? "").padEnd(9, "0") || "0");
  const neg = m[1] === "-" && ns !== 0n;
  if (ns === 0n) return "0s";
  const frac = (v, scale) => {
    const whole = v / scale;
    const rest = v % scale;
    if (rest === 0n) return whole.toString();
    const width = scale.toString().length - 1;
    return `${whole}.${rest.toString().padStart(width, "0").replace(/0+$/, "")}`;
  };
  let s;
  if (ns < 1000000000n) {
    const [unit, scale] = ns < 1000n ? ["ns", 1n] : ns < 1000000n ? ["µs", 1000n] : ["ms", 1000000n];
    s = frac(ns, scale) + unit;
  } else {
    const h = ns / 3600000000000n;
    ns -= h * 3600000000000n;
    const mi = ns / 60000000000n;
    ns -= mi * 60000000000n;
    s = "";
    if (h > 0n) s += `${h}h`;
    if (h > 0n || mi > 0n) s += `${mi}m`;
    s += `${frac(ns, 1000000000n)}s`;
  }
  return (neg ? "-" : "") + s;
}

// RFC 3339 (protobuf JSON, UTC) with the fraction trimmed as Go's RFC3339Nano does.
function goTimestamp(text) {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(text);
  if (!m) throw new Unsupported(`timestamp ${text}`);
  const f = (m[2] ?? "").replace(/0+$/, "");
  return f ? `${m[1]}.${f}Z` : `${m[1]}Z`;
}

function typedValue(v) {
  if (v === undefined || v === null) throw new Unsupported("missing value");
  if ("nullValue" in v) return { type: "null_type", value: null };
  if ("boolValue" in v) return { type: "bool", value: v.boolValue };
  if ("int64Value" in v) return { type: "int", value: int64(v.int64Value) };
  if ("uint64Value" in v) return { type: "uint", value: int64(v.uint64Value) };
  if ("doubleValue" in v) return { type: "double", value: doubleValue(v.doubleValue) };
  if ("stringValue" in v) return { type: "string", value: v.stringValue };
  if ("bytesValue" in v) return { type: "bytes", value: v.bytesValue };
  if ("typeValue" in v) return { type: "type", value: v.typeValue };
  if ("listValue" in v) return { type: "list", value: (v.listValue.values ?? []).map(typedValue) };
  if ("mapValue" in v) {
    return {
      type: "map",
      value: (v.mapValue.entries ?? []).map((e) => [typedValue(e.key), typedValue(e.value)]),
    };
  }
  if ("enumValue" in v) throw new Unsupported(`needs protobuf enum ${v.enumValue.type}`);
  if ("objectValue" in v) {
    const o = v.objectValue;
    const t = (o["@type"] ?? "").replace(/^type\.googleapis\.com\//, "");
    if (t === "google.protobuf.Duration") return { type: "google.protobuf.Duration", value: goDuration(o.value) };
    if (t === "google.protobuf.Timestamp") return { type: "google.protobuf.Timestamp", value: goTimestamp(o.value) };
    throw new Unsupported(`needs protobuf message ${t}`);
  }
  if (Object.keys(v).length === 0) return { type: "null_type", value: null };
  throw new Unsupported(`value ${JSON.stringify(v)}`);
}

// --- tests -------------------------------------------------------------------------
function convert(file, section, t) {
  const o = t.original;
  const rec = {
    file,
    section,
    name: o.name,
    expr: o.expr,
    disableCheck: !!o.disableCheck,
    checkOnly: !!o.checkOnly,
    container: o.container ?? "",
    typeEnv: [],
    bindings: {},
    expect: {},
  };
  if (o.description) rec.description = o.description;
  const unsupported = [];
  const guard = (f) => {
    try {
      return f();
    } catch (e) {
      if (e instanceof Unsupported) {
        unsupported.push(e.message);
        return undefined;
      }
      throw e;
    }
  };
  for (const d of o.typeEnv ?? []) {
    if (d.ident) {
      rec.typeEnv.push({ name: d.name, type: typeString(d.ident.type) });
    } else if (d.function) {
      rec.typeEnv.push({
        name: d.name,
        overloads: (d.function.overloads ?? []).map((ov) => ({
          id: ov.overloadId,
          member: !!ov.isInstanceFunction,
          params: (ov.params ?? []).map(typeString),
          result: typeString(ov.resultType),
        })),
      });
    }
  }
  for (const [name, b] of Object.entries(o.bindings ?? {})) {
    const v = guard(() => typedValue(b.value));
    if (v !== undefined) rec.bindings[name] = v;
  }
  if ("value" in o) {
    const v = guard(() => typedValue(o.value));
    if (v !== undefined) rec.expect = { value: v };
  } else if ("evalError" in o) {
    rec.expect = { evalError: (o.evalError.errors ?? []).map((e) => e.message).join("; ") };
  } else if ("typedResult" in o) {
    const tr = o.typedResult;
    if (tr.result !== undefined) {
      const v = guard(() => typedValue(tr.result));
      if (v !== undefined) rec.expect = { value: v };
    }
    if (tr.deducedType !== undefined) rec.deducedType = checkedTypeString(tr.deducedType);
  } else if ("unknown" in o || "anyEvalErrors" in o || "anyUnknowns" in o) {
    unsupported.push("expects unknowns or any-of errors");
  } else if (!o.checkOnly) {
    // A SimpleTest without a result expects `true`.
    rec.expect = { value: { type: "bool", value: true } };
  }
  if (o.checkOnly && !("deducedType" in rec)) rec.expect = {};
  if (t.type !== undefined) rec.checkedType = t.type;
  // cel-go's parse/check error for the expression in a plain cel-go environment (no
  // extension libraries), with the source named `<input>`.
  if (t.error !== undefined) rec.celGoError = t.error.replace(/^ERROR: [^:\n]*:/gm, "ERROR: <input>:");
  if (unsupported.length) rec.unsupported = unsupported.join("; ");
  return rec;
}

const flat = [];
const seen = new Map();
function walk(suite, path) {
  for (const t of suite.tests ?? []) {
    const rec = convert(path[0], path.slice(1).join("/"), t);
    // A few tests share a name within a section: later ones get `#2`, `#3`, ...
    const key = `${rec.file}/${rec.section}/${rec.name}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n > 1) rec.name = `${rec.name}#${n}`;
    flat.push(rec);
  }
  for (const s of suite.suites ?? []) walk(s, [...path, s.name]);
}
for (const file of tests.suites) walk(file, [file.name]);

writeFileSync(out, `${JSON.stringify(flat, null, 0).replace(/\},\{"file"/g, '},\n{"file"')}\n`);
console.error(`wrote ${flat.length} tests to ${out}`);
