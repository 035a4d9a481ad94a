// ---- crdlab's recovery layer (engine/npm/wrap/core.js, put here by engine/npm/package.mjs) ----
//
// In WebAssembly a Rust panic aborts: the call ends in a `WebAssembly.RuntimeError` trap and
// the instance is dead (borrows left open, its stack pointer not reset). Every function and
// method of the package goes through `run`: on a trap it reads the panic's text from the dead
// instance (`__crdlabLastPanic`), re-creates the module (`restartEngine`, given by the
// target's header), and throws an `InternalError`; the next call runs on the new instance.
// Compiled CRDs and expressions of the dead instance are refused with a clear error, and taken
// out of the old glue's FinalizationRegistry so that they are never freed into the new instance.
// An instance abandoned by a JavaScript stack overflow (see `isAbandoned`) is re-created the
// same way at the next call, which then runs normally.
// Needs from the header: `glue` (the wasm-bindgen glue, whose exports are the API) and
// `restartEngine()` (a fresh instance; returns the glue to use from then on).

const INTERNAL_PREFIX = 'crdlab internal error (the engine was restarted): ';
const DEAD_HANDLE = 'this compiled CRD belonged to an engine instance that crashed; compile it again';
const DEAD_EXPRESSION = 'this compiled expression belonged to an engine instance that crashed; compile it again';

/** A bug in crdlab (a panic, or any other WebAssembly trap): the engine was re-created. */
class InternalError extends Error {
  constructor(panic, options) {
    super(INTERNAL_PREFIX + panic, options);
    this.panic = panic;
  }
}
Object.defineProperty(InternalError.prototype, 'name', { value: 'CrdlabInternalError', writable: true, configurable: true });

let generation = 0; // bumped at every restart
let restartPending = false; // the instance crashed and no new one could be made yet
let restartFailure = null; // set when the module could not be re-created
let live = new Set(); // WeakRefs to the glue's handles (CompiledCrd, Expression) of this generation
let sweepAt = 1024; // the size of `live` at which the references to collected handles are dropped

/**
 * Keeps `ref` among the live handles. The references to handles the garbage collector took
 * are dropped in a sweep whenever the set has doubled (a FinalizationRegistry entry per
 * handle cost more than compiling a small expression).
 */
function track(ref) {
  live.add(ref);
  if (live.size < sweepAt) return;
  for (const r of live) if (r.deref() === undefined) live.delete(r);
  sweepAt = Math.max(1024, live.size * 2);
}

function crashed(trap) {
  let panic;
  try {
    panic = glue.__crdlabLastPanic();
  } catch {
    // The dead instance could not even answer that.
  }
  if (typeof panic !== 'string' || panic === '') panic = `WebAssembly trap: ${trap && trap.message}`;
  for (const ref of live) {
    const inner = ref.deref();
    if (inner) {
      try {
        inner.__destroy_into_raw();
      } catch {
        // Only bookkeeping of the dead instance.
      }
    }
  }
  live = new Set();
  generation++;
  restartPending = true;
  try {
    restart();
  } catch {
    // Out of JavaScript stack: the next call restarts.
  }
  return new InternalError(panic, { cause: trap });
}

/**
 * A new instance. A `RangeError` (the call came from deep recursion and the JavaScript stack
 * ran out) is thrown and the restart stays pending; any other failure is final.
 */
function restart() {
  try {
    glue = restartEngine();
    restartPending = false;
  } catch (e) {
    if (e instanceof RangeError) throw e;
    restartFailure = e;
  }
}

/**
 * The error the module throws when an earlier call never returned: V8 unwound it on a
 * JavaScript stack overflow (a `RangeError` to that caller), skipping the module's clean-up.
 */
const isAbandoned = (e) => e instanceof Error && e.input === 'module' && e.message.startsWith('crdlab: an earlier call ran out of the JavaScript engine');

/** `f(a, b)` (arguments, not a closure: a method's call makes no function). */
function run(f, a, b) {
  if (restartPending) restart();
  if (restartFailure) {
    throw new Error(`crdlab: the engine crashed and could not be restarted: ${restartFailure && restartFailure.message}`, { cause: restartFailure });
  }
  try {
    return f(a, b);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) throw crashed(e);
    if (!isAbandoned(e)) throw e;
    // The instance cannot be trusted any more, but this call did nothing wrong: a new
    // instance, and the call again (a compiled CRD of the old one throws DEAD_HANDLE).
    crashed(e);
    return run(f, a, b);
  }
}

/**
 * The package's class `name` for one class of the glue (a handle to engine memory:
 * CompiledCrd, Expression; the name is given, since a bundler may rename the glue's): made only by the package (`TOKEN`), every method and getter of the glue's class
 * through `run`, refused with `dead` once the instance it belongs to crashed, and with a
 * clear error once freed; `free()` again, or on a dead instance's handle, does nothing.
 */
function handleClass(name, glueClass, made, dead, overrides = {}) {
  let state; // a handle's state, or undefined for an object that is not one of this class
  const cls = class {
    // { inner, generation, ref }: the glue's object, the instance it belongs to, and its
    // entry in `live`. A private field, not a WeakMap: an entry in a WeakMap cost more than
    // compiling a small expression.
    #h;

    constructor(token, inner) {
      if (token !== TOKEN) throw new TypeError(`${name} objects are made by ${made}()`);
      const ref = typeof WeakRef === 'function' ? new WeakRef(inner) : { deref: () => inner };
      this.#h = { inner, generation, ref };
      track(ref);
    }

    static {
      state = (self) => (self !== null && typeof self === 'object' && #h in self ? self.#h : undefined);
    }

    /** Releases the engine's memory now (otherwise the garbage collector does). */
    free() {
      const h = state(this);
      if (!h || h.freed || h.generation !== generation) return; // freed, or a dead instance's
      h.freed = true;
      live.delete(h.ref);
      h.inner.free();
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  if (typeof Symbol.dispose === 'symbol') cls.prototype[Symbol.dispose] = cls.prototype.free;

  const alive = (h) => {
    if (h.generation !== generation) throw new Error(dead);
    if (h.freed) throw new Error(`this ${name} was freed (free())`);
  };
  const use = (self, f) => {
    const h = state(self);
    if (!h) throw new TypeError(`not a ${name}`);
    alive(h);
    return run(() => {
      alive(h);
      return f(h.inner);
    });
  };

  // The glue's methods and getters, each through `use` (`overrides` replaces a method of
  // one argument by a function of the glue's object and that argument, called without a
  // closure per call: `Expression.evaluate` of a small expression costs less than one);
  // the package's internals (`__…`) stay inside.
  for (const key of Reflect.ownKeys(glueClass.prototype)) {
    if (key === 'constructor' || key === 'free' || key === '__destroy_into_raw' || key === Symbol.dispose) continue;
    if (typeof key === 'string' && key.startsWith('__')) continue;
    const d = Object.getOwnPropertyDescriptor(glueClass.prototype, key);
    if (typeof d.value === 'function' && Object.hasOwn(overrides, key)) {
      const f = overrides[key];
      const call = (h, arg) => {
        alive(h);
        return f(h.inner, arg);
      };
      Object.defineProperty(cls.prototype, key, {
        value: {
          [key](arg) {
            const h = state(this);
            if (!h) throw new TypeError(`not a ${name}`);
            alive(h);
            return run(call, h, arg);
          },
        }[key],
        writable: true,
        configurable: true,
      });
    } else if (d.get) {
      Object.defineProperty(cls.prototype, key, {
        get() {
          return use(this, (inner) => inner[key]);
        },
        configurable: true,
      });
    } else if (typeof d.value === 'function') {
      Object.defineProperty(cls.prototype, key, {
        value: {
          [key](...args) {
            return use(this, (inner) => inner[key](...args));
          },
        }[key],
        writable: true,
        configurable: true,
      });
    }
  }
  return cls;
}

const TOKEN = Symbol('crdlab.handle');

/**
 * A CRD compiled once (its create checks, schemas and CEL rules), to validate many objects
 * against. Made by `compile`.
 */
const CompiledCrd = handleClass('CompiledCrd', glue.CompiledCrd, 'compile', DEAD_HANDLE);

// Expression.evaluate without JSON. The JSON route (JSON.stringify of the variables, read
// back in the module, and the answer as JSON text) costs several microseconds a call, more
// than evaluating a small expression. Variables whose declared types are plain (int, uint,
// double, bool, string, lists and string-keyed maps of them) are packed into numbers and
// UTF-8 bytes, both written straight into the module's memory (engine/src/wire/packed.rs
// gives the layout), and a plain result comes back as numbers and bytes read from there.
// Only what packs without any difference from the JSON route takes this way: safe integers,
// finite doubles (-0 as JSON writes it, 0), well-formed strings, plain arrays and objects
// without `undefined`, far below the request size limit. Everything else, and every error,
// takes the JSON route, so answers and errors are the JSON route's. Each declared type's
// packer is made once per expression (`packerOf`).

const packSpecs = new WeakMap(); // the glue's Expression -> its spec (null: JSON route only)
const TYPED = ['', 'null_type', 'bool', 'int', 'uint', 'double', 'string'];
// The numbers of the answer before the variables' (engine/src/wasm.rs, PACKED_HEAD):
// [number, actualCost, text's address, text's length in bytes].
const HEAD = 4;
// The JSON route refuses a text over 3 MiB; a packed call stays far below it: a number
// writes at most 26 characters of JSON, a UTF-16 code unit at most 6.
const PACKED_JSON_BOUND = 2_000_000;
const TOO_BIG = Symbol('crdlab.tooBigToPack');
const isPlainObject = (v) => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof v.toJSON !== 'function';
};
const wellFormed = typeof String.prototype.isWellFormed === 'function'
  ? (s) => s.isWellFormed()
  : (s) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// The numbers and bytes are written straight into the module's memory, in buffers the
// module keeps (`__scratch`, `__scratchBytes`), through a Float64Array and a Uint8Array:
// wasm-bindgen would copy an array or a string argument in, and an answer back, on every
// call. A view of the memory is detached when the memory grows (its length then reads 0)
// and is made again; what was written stays in the memory.
let scratch = null; // { generation, memory, ptr, cap, view } of the current instance's numbers
let scratchBytes = null; // the same for the bytes
let buf = new Float64Array(0); // the numbers' view being written
let at = 0; // where the next number goes
let bytes = new Uint8Array(0); // the bytes' view being written
let bat = 0; // where the next byte goes
let units = 0; // the UTF-16 code units packed (the JSON text's bound)
let packing = false; // a getter of the variables that evaluates again takes the JSON route

/** A view of the buffer `s` (made by `grow(cap)`), holding at least `min` elements. */
function scratchOf(s, min, grow, View) {
  if (s === null || s.generation !== generation || s.cap < min) {
    const cap = Math.max(min, s !== null && s.generation === generation ? s.cap * 2 : 256);
    const ptr = grow(cap);
    s = { generation, memory: glue.__memory(), ptr, cap, view: null };
  } else if (s.view.length !== 0) {
    return s;
  }
  s.view = new View(s.memory.buffer, s.ptr, s.cap);
  return s;
}

/** The numbers' view, holding at least `min` numbers (those written kept). */
function scratchView(min) {
  scratch = scratchOf(scratch, min, glue.__scratch, Float64Array);
  return scratch.view;
}

/** The bytes' view, holding at least `min` bytes (those written kept). */
function bytesView(min) {
  scratchBytes = scratchOf(scratchBytes, min, glue.__scratchBytes, Uint8Array);
  return scratchBytes.view;
}

/** Writes the next number. */
function put(x) {
  if (at >= buf.length) {
    if (at * 26 > PACKED_JSON_BOUND) throw TOO_BIG;
    buf = scratchView(at + 1);
  }
  buf[at++] = x;
}

/** Writes a string: its length in UTF-8 bytes, and the bytes; false when it is not well-formed. */
function putString(s) {
  const n = s.length;
  units += n;
  if (units * 6 > PACKED_JSON_BOUND) throw TOO_BIG;
  // A code unit takes at most 3 bytes.
  if (bat + n * 3 > bytes.length) bytes = bytesView(bat + n * 3);
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) break;
    bytes[bat + i] = c;
  }
  if (i < n) {
    // TextEncoder would write a lone surrogate as U+FFFD; the JSON route refuses it.
    if (!wellFormed(s)) return false;
    i += encoder.encodeInto(i === 0 ? s : s.slice(i), bytes.subarray(bat + i)).written;
  }
  bat += i;
  put(i);
  return true;
}

const packInt = (v) => {
  if (!Number.isSafeInteger(v)) return false;
  put(v);
  return true;
};
const packUint = (v) => {
  if (!Number.isSafeInteger(v) || v < 0) return false;
  put(v);
  return true;
};
const packDouble = (v) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  put(v === 0 ? 0 : v);
  return true;
};
const packBool = (v) => {
  if (typeof v !== 'boolean') return false;
  put(v ? 1 : 0);
  return true;
};
const packString = (v) => typeof v === 'string' && putString(v);

/** The function that packs a value of the type `spec` (by `put`); null for a type that does not pack. */
function packerOf(spec) {
  switch (spec) {
    case 'int':
      return packInt;
    case 'uint':
      return packUint;
    case 'double':
      return packDouble;
    case 'bool':
      return packBool;
    case 'string':
      return packString;
  }
  if (spec === null || !Array.isArray(spec)) return null;
  const inner = packerOf(spec[1]);
  if (inner === null) return null;
  if (spec[0] === 'list') {
    return (v) => {
      if (!Array.isArray(v)) return false;
      const n = v.length;
      put(n);
      for (let i = 0; i < n; i++) if (!inner(v[i])) return false;
      return true;
    };
  }
  if (spec[0] === 'map') {
    return (v) => {
      if (!isPlainObject(v)) return false;
      const keys = Object.keys(v);
      put(keys.length);
      for (const k of keys) if (!putString(k) || !inner(v[k])) return false;
      return true;
    };
  }
  return null;
}

/**
 * Packs the variables by the spec's declarations: their numbers in the scratch buffer
 * (`at - HEAD` of them, after the answer's), their bytes (`bat`); false for the JSON route.
 */
function packVars(spec, vars) {
  if (packing) return false;
  packing = true;
  try {
    buf = scratchView(HEAD);
    at = HEAD;
    bytes = bytesView(0);
    bat = 0;
    units = 0;
    if (!packInto(spec, vars) || (at - HEAD) * 26 + units * 6 > PACKED_JSON_BOUND) return false;
    // A getter that crashed the instance: its buffers are gone.
    return scratch.generation === generation && scratchBytes.generation === generation;
  } catch (e) {
    if (e === TOO_BIG) return false;
    throw e;
  } finally {
    packing = false;
  }
}

function packInto(spec, vars) {
  const decls = spec.decls;
  if (vars === undefined || vars === null) {
    for (let i = 0; i < decls.length; i++) put(0);
    return true;
  }
  if (!isPlainObject(vars)) return false;
  // JSON.stringify writes the own enumerable properties that are not `undefined`: each of
  // them must be a declared variable (else the JSON route's error), and each declared one
  // packed must be one of them (not inherited, not hidden).
  let given = 0;
  for (let i = 0; i < decls.length; i++) {
    const d = decls[i];
    const v = vars[d.name];
    if (v === undefined) {
      put(0);
      continue;
    }
    if (!Object.hasOwn(vars, d.name)) return false;
    given++;
    put(1);
    if (!d.pack(v)) return false;
  }
  let written = 0;
  for (const k in vars) {
    if (vars[k] === undefined) continue;
    // An inherited enumerable property (put on Object.prototype) is not written.
    if (!Object.hasOwn(vars, k)) return false;
    written++;
  }
  return written === given;
}

/** The answer's text: `len` bytes of UTF-8 at `ptr` in the module's memory. */
function answerText(ptr, len) {
  const mem = new Uint8Array(scratch.memory.buffer, ptr, len);
  if (len <= 32) {
    let s = '';
    for (let i = 0; i < len; i++) {
      const c = mem[i];
      if (c > 0x7f) return decoder.decode(mem);
      s += String.fromCharCode(c);
    }
    return s;
  }
  return decoder.decode(mem);
}

function evaluateExpression(inner, vars) {
  let spec = packSpecs.get(inner);
  if (spec === undefined) {
    const raw = inner.__packSpec();
    spec = null;
    if (raw !== null) {
      const decls = raw.vars.map(([name, t]) => ({ name, pack: packerOf(t) }));
      // A variable whose type does not pack sends every call the JSON route.
      if (decls.every((d) => d.pack !== null)) spec = { head: raw, decls };
    }
    packSpecs.set(inner, spec);
  }
  if (spec === null || !packVars(spec, vars)) return inner.evaluate(vars);
  const code = inner.__evaluatePacked(at - HEAD, bat);
  if (code === 8) return inner.evaluate(vars);
  const out = scratchView(HEAD);
  const text = code === 0 || code === 6 || code === 7 ? answerText(out[2], out[3]) : '';
  if (code === 0) return JSON.parse(text);
  // The answer's fields in the JSON route's order.
  const answer = { outputType: spec.head.outputType };
  const est = spec.head.estimatedCost;
  if (est !== null && est !== undefined) answer.estimatedCost = { min: est.min, max: est.max };
  if (code === 7) {
    answer.evalError = text;
  } else {
    const value = code === 1 ? null : code === 2 ? out[0] === 1 : code === 6 ? text : out[0];
    answer.value = value;
    answer.typedValue = { type: TYPED[code], value };
  }
  answer.actualCost = out[1];
  return answer;
}

/** A CEL expression compiled once, to evaluate many times. Made by `compileExpression`. */
const Expression = handleClass('Expression', glue.Expression, 'compileExpression', DEAD_EXPRESSION, {
  evaluate: evaluateExpression,
});

/**
 * The options of `compileExpression` as `__compileExpressionPacked` takes them (the module
 * reading them through `Reflect` costs more than compiling a small expression): the
 * variables' names and types joined by NUL characters, and the release; null when they do
 * not pack, and `fallback` is then what the module reads instead. Every property is read
 * once: the fallback holds the values read (a getter is not called twice), in their order.
 */
function packCompileOptions(options) {
  if (options === undefined || options === null) return { types: '', version: undefined };
  if (!isPlainObject(options)) return null;
  const varTypes = options.varTypes;
  const version = options.kubernetesVersion;
  const packs = (s) => typeof s === 'string' && !s.includes('\0') && wellFormed(s);
  let entries = null;
  let fits = version === undefined || version === null || (typeof version === 'string' && wellFormed(version));
  if (isPlainObject(varTypes)) {
    entries = Object.entries(varTypes);
    for (const [name, t] of entries) fits = fits && packs(name) && packs(t);
  } else {
    fits = fits && (varTypes === undefined || varTypes === null);
  }
  if (!fits) {
    return { fallback: { varTypes: entries === null ? varTypes : Object.fromEntries(entries), kubernetesVersion: version } };
  }
  const parts = [];
  if (entries !== null) for (const [name, t] of entries) parts.push(name, t);
  return { types: parts.join('\0'), version: version === null ? undefined : version };
}

/** `compileExpression`, its options packed where they pack (`packCompileOptions`). */
function compileExpressionPacked(expr, options) {
  return run(() => {
    const packed = typeof expr === 'string' ? packCompileOptions(options) : null;
    let out;
    if (packed === null) out = glue.compileExpression(expr, options);
    else if (packed.fallback !== undefined) out = glue.compileExpression(expr, packed.fallback);
    else out = glue.__compileExpressionPacked(expr, packed.types, packed.version);
    return new Expression(TOKEN, out);
  });
}

// The API's name (the entry point exports it under that name).
Object.defineProperty(compileExpressionPacked, 'name', { value: 'compileExpression' });

/** A function of the glue, through `run`; compiled CRDs and expressions come back wrapped. */
function wrapFunction(name) {
  if (name === 'compileExpression') return compileExpressionPacked;
  return {
    [name](...args) {
      return run(() => {
        const out = glue[name](...args);
        if (out instanceof glue.CompiledCrd) return new CompiledCrd(TOKEN, out);
        if (out instanceof glue.Expression) return new Expression(TOKEN, out);
        return out;
      });
    },
  }[name];
}
// ---- end of the recovery layer ----
