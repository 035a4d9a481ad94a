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
const forget = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((ref) => live.delete(ref)) : null;

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

function run(f) {
  if (restartPending) restart();
  if (restartFailure) {
    throw new Error(`crdlab: the engine crashed and could not be restarted: ${restartFailure && restartFailure.message}`, { cause: restartFailure });
  }
  try {
    return f();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) throw crashed(e);
    if (!isAbandoned(e)) throw e;
    // The instance cannot be trusted any more, but this call did nothing wrong: a new
    // instance, and the call again (a compiled CRD of the old one throws DEAD_HANDLE).
    crashed(e);
    return run(f);
  }
}

const handles = new WeakMap(); // a handle -> { inner, generation, ref }

/**
 * The package's class `name` for one class of the glue (a handle to engine memory:
 * CompiledCrd, Expression; the name is given, since a bundler may rename the glue's): made only by the package (`TOKEN`), every method and getter of the glue's class
 * through `run`, refused with `dead` once the instance it belongs to crashed, and with a
 * clear error once freed; `free()` again, or on a dead instance's handle, does nothing.
 */
function handleClass(name, glueClass, made, dead) {
  const cls = class {
    constructor(token, inner) {
      if (token !== TOKEN) throw new TypeError(`${name} objects are made by ${made}()`);
      const ref = typeof WeakRef === 'function' ? new WeakRef(inner) : { deref: () => inner };
      handles.set(this, { inner, generation, ref });
      live.add(ref);
      forget?.register(this, ref, this);
    }

    /** Releases the engine's memory now (otherwise the garbage collector does). */
    free() {
      const h = handles.get(this);
      if (!h || h.freed || h.generation !== generation) return; // freed, or a dead instance's
      h.freed = true;
      live.delete(h.ref);
      forget?.unregister(this);
      h.inner.free();
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  if (typeof Symbol.dispose === 'symbol') cls.prototype[Symbol.dispose] = cls.prototype.free;

  const use = (self, f) => {
    const h = handles.get(self);
    if (!h || !(self instanceof cls)) throw new TypeError(`not a ${name}`);
    const alive = () => {
      if (h.generation !== generation) throw new Error(dead);
      if (h.freed) throw new Error(`this ${name} was freed (free())`);
    };
    alive();
    return run(() => {
      alive();
      return f(h.inner);
    });
  };

  // The glue's methods and getters, each through `use`.
  for (const key of Reflect.ownKeys(glueClass.prototype)) {
    if (key === 'constructor' || key === 'free' || key === '__destroy_into_raw' || key === Symbol.dispose) continue;
    const d = Object.getOwnPropertyDescriptor(glueClass.prototype, key);
    if (d.get) {
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

/** A CEL expression compiled once, to evaluate many times. Made by `compileExpression`. */
const Expression = handleClass('Expression', glue.Expression, 'compileExpression', DEAD_EXPRESSION);

/** A function of the glue, through `run`; compiled CRDs and expressions come back wrapped. */
function wrapFunction(name) {
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
