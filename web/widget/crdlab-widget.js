// crdlab's docs-page widget: a live CRD example in any documentation page, one script tag.
// README.md here has the page author's side; scripts/build-widget OUT_DIR builds it.
//
// `<crdlab-example>` (a custom element with an open shadow root) shows its CRD, object and
// optional old object at once as statically highlighted code, and loads the engine (the npm
// package's web build, `crdlab-engine/` beside this file) and the editors (web/editor's
// CodeMirror bundle, `crdlab-editor.js`) only when it becomes visible (`load="visible"`), on
// click or at once. One engine instance serves every widget of the page. Markdown sites get
// the same from `<div class="crdlab-example">` holding fenced code blocks: upgraded in place.
//
// Nothing here evaluates code from text (no eval, no Function, no inline styles injected as
// <style> when constructable style sheets exist): it runs under a CSP without unsafe-eval
// (the wasm needs `wasm-unsafe-eval`); CodeMirror's lint underlines and markers (data: SVG
// images, which `img-src 'self'` blocks) are redrawn in CSS. It requests nothing but its own files, resolved
// against this module's URL.

const BASE = new URL('.', import.meta.url);
// Where the engine is, from this file: `crdlab-engine/` in scripts/build-widget's folder; the
// npm package's web build (`crdlab/widget.js`) has it beside (build.mjs --npm defines it).
// eslint-disable-next-line no-undef
const ENGINE_DIR = typeof __CRDLAB_ENGINE_DIR__ === 'string' ? __CRDLAB_ENGINE_DIR__ : 'crdlab-engine/';
const ENGINE_URL = new URL(`${ENGINE_DIR}crdlab.js`, BASE);
const WASM_URL = new URL(`${ENGINE_DIR}crdlab_bg.wasm`, BASE);
const EDITOR_URL = new URL('crdlab-editor.js', BASE);

// `suite`: an optional test suite (`crdlab test`'s format) run against the CRD at every edit.
const ROLES = ['crd', 'object', 'old-object', 'suite'];
const ROLE_LABEL = { crd: 'CRD', object: 'Object', 'old-object': 'Old object (stored)', suite: 'Tests' };

// ---- The engine and the editors: loaded once per page, on the first widget's demand ----

let enginePromise = null;
let editorPromise = null;

/** The npm package's web build, initialised (one instance for the page). */
function loadEngine() {
  if (!enginePromise) {
    enginePromise = import(ENGINE_URL.href).then(async (mod) => {
      await mod.default({ module_or_path: WASM_URL });
      return mod;
    });
    enginePromise.catch(() => {
      enginePromise = null; // a later widget (or a click) may try again
    });
  }
  return enginePromise;
}

/** web/editor's bundle: an IIFE that defines window.CrdlabEditor (imported as a module script). */
function loadEditor() {
  if (!editorPromise) {
    editorPromise = import(EDITOR_URL.href).then(() => {
      if (!window.CrdlabEditor) throw new Error('crdlab-editor.js did not define CrdlabEditor');
      return window.CrdlabEditor;
    });
    editorPromise.catch(() => {
      editorPromise = null;
    });
  }
  return editorPromise;
}

// Compiled CRDs, shared by the widgets of the page that show the same CRD for the same release.
const compiled = new Map(); // `${kubernetesVersion}\n${crdText}` -> CompiledCrd | Error
function compileCached(engine, crd, kubernetesVersion) {
  const key = `${kubernetesVersion}\n${crd}`;
  if (compiled.has(key)) {
    const v = compiled.get(key);
    if (v instanceof Error) throw v;
    return v;
  }
  let v;
  try {
    v = engine.compile(crd, kubernetesVersion ? { kubernetesVersion } : null);
  } catch (e) {
    if (isInternal(e)) throw e;
    v = e;
  }
  if (compiled.size > 32) {
    for (const old of compiled.values()) if (!(old instanceof Error)) old.free();
    compiled.clear();
  }
  compiled.set(key, v);
  if (v instanceof Error) throw v;
  return v;
}

const isInternal = (e) => !!e && e.name === 'CrdlabInternalError';

/** Every compiled CRD is dead after a crash (the engine was re-created). */
function forgetCompiled() {
  compiled.clear();
}

// ---- What kubectl prints (crdlab::view::kubectl, re-expressed for the widget) ----

/** kubectl's MultilineError: one cause on the prefix's line, several as `* ` lines. */
function invalidLines(kind, name, messages) {
  const unique = [...new Set(messages)];
  const prefix = `The ${kind} "${name}" is invalid: `;
  if (unique.length === 0) return [prefix.trimEnd()];
  if (unique.length === 1) return [prefix + unique[0]];
  return [prefix, ...unique.map((m) => `* ${m}`)];
}

/** `group/version` → group (the core group is empty). */
const groupOf = (apiVersion) => (typeof apiVersion === 'string' && apiVersion.includes('/') ? apiVersion.split('/')[0] : '');

/**
 * The answer: `{verdict, lines, errors, crdErrors, warnings, rules, unknownFields, loadError}`.
 * verdict: accepted | rejected | crdRejected | inputError (crdlab::view::kubectl::Verdict).
 */
function analyse(engine, { crd, object, oldObject, kubernetesVersion, version }) {
  const lines = [];
  const out = { verdict: 'accepted', lines, errors: [], crdErrors: [], warnings: [], rules: [], unknownFields: [] };
  let handle;
  try {
    handle = compileCached(engine, crd, kubernetesVersion);
  } catch (e) {
    if (isInternal(e)) throw e;
    out.verdict = 'inputError';
    out.loadError = located('crd', e);
    lines.push(`error: ${e.message}`);
    return out;
  }
  for (const w of handle.crdWarnings) lines.push(`Warning: ${w}`);
  out.crdErrors = handle.crdErrors;
  const name0 = handle.name;
  if (out.crdErrors.length === 0) {
    lines.push(`customresourcedefinition.apiextensions.k8s.io/${name0} created`);
  } else {
    lines.push(...invalidLines('CustomResourceDefinition', name0, out.crdErrors.map((e) => e.message)));
    out.verdict = 'crdRejected';
  }
  const shownVersion = version || handle.storageVersion;
  out.rules = handle.rules.filter((r) => r.version === shownVersion);
  let answer;
  try {
    answer = handle.validate(object, oldObject ?? null, version ? { version } : null);
  } catch (e) {
    if (isInternal(e)) throw e;
    const which = oldObject != null && /old/i.test(String(e.input || '')) ? 'old-object' : 'object';
    out.loadError = located(which, e);
    lines.push(`error: ${e.message}`);
    out.verdict = 'inputError';
    return out;
  }
  out.errors = answer.errors || [];
  out.warnings = answer.warnings || [];
  if (oldObject != null) {
    // Ratcheted errors: what the same update without ratcheting rejects that this one lets
    // through (invalid values left unchanged since the stored object), beside the engine's
    // own ratcheting warnings.
    try {
      const strict = handle.validate(object, oldObject, { ...(version ? { version } : {}), ratcheting: false });
      const kept = new Set([...out.errors, ...out.warnings].map((e) => e.message));
      out.warnings = [...out.warnings, ...(strict.errors || []).filter((e) => !kept.has(e.message))];
    } catch (e) {
      if (isInternal(e)) throw e;
    }
  }
  out.unknownFields = answer.unknownFields || [];
  for (const f of out.unknownFields) lines.push(`Warning: unknown field "${f}"`);
  const obj = answer.defaulted && typeof answer.defaulted === 'object' ? answer.defaulted : {};
  const kind = String(obj.kind ?? '');
  const name = String(obj.metadata?.name ?? '');
  if (out.errors.length === 0) {
    const group = groupOf(obj.apiVersion);
    const kindGroup = group ? `${kind.toLowerCase()}.${group}` : kind.toLowerCase();
    lines.push(`${kindGroup}/${name} ${oldObject != null ? 'configured' : 'created'}`);
  } else {
    lines.push(...invalidLines(kind, name, out.errors.map((e) => e.message)));
    if (out.verdict !== 'crdRejected') out.verdict = 'rejected';
  }
  return out;
}

/** A thrown read error, with where it points (`line`/`column`/`range` when the engine gave them). */
function located(role, e) {
  const range = e.range || (e.line ? { startLine: e.line, startColumn: e.column || 1, endLine: e.line, endColumn: (e.column || 1) + 1 } : null);
  return { role, message: String(e.message), range };
}

// ---- The share link of the playground (crdlab::view::share: JSON, raw deflate, base64url, `#s=1.`) ----

async function shareFragment(state) {
  const json = new TextEncoder().encode(JSON.stringify(state));
  const stream = new Blob([json]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const packed = new Uint8Array(await new Response(stream).arrayBuffer());
  let bin = '';
  for (let i = 0; i < packed.length; i += 0x8000) bin += String.fromCharCode(...packed.subarray(i, i + 0x8000));
  return 's=1.' + btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// ---- Static highlighting (before anything loads): a small YAML/JSON colouring ----

const TOKEN = /(#.*$)|("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')|(\b(?:true|false|null|True|False|Null|~)\b)|(-?\b\d+(?:\.\d+)?\b)/g;

/** Appends `text` to `parent` as highlighted lines (DOM nodes only: no HTML parsing of page text). */
function highlight(parent, text) {
  for (const line of text.split('\n')) {
    const key = /^(\s*(?:-\s+)?)([^\s#:'"{}[\],][^:#]*?|"[^"]*"|'[^']*')(:)(?=\s|$)/.exec(line);
    let rest = line;
    if (key) {
      parent.append(key[1]);
      span(parent, 'k', key[2]);
      parent.append(key[3]);
      rest = line.slice(key[0].length);
    }
    let last = 0;
    TOKEN.lastIndex = 0;
    for (let m; (m = TOKEN.exec(rest)); ) {
      if (m[0] === '') {
        TOKEN.lastIndex++;
        continue;
      }
      parent.append(rest.slice(last, m.index));
      span(parent, m[1] ? 'c' : m[2] ? 's' : m[3] ? 'b' : 'n', m[0]);
      last = m.index + m[0].length;
    }
    parent.append(rest.slice(last) + '\n');
  }
}
function span(parent, cls, text) {
  const s = document.createElement('span');
  s.className = cls;
  s.textContent = text;
  parent.append(s);
}

/** Leading and trailing blank lines off, and the indentation common to all lines. */
function dedent(text) {
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  while (lines.length && lines[0].trim() === '') lines.shift();
  while (lines.length && lines.at(-1).trim() === '') lines.pop();
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)[0].length));
  return lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n') + '\n';
}

// ---- Styles (isolated in the shadow root; themable through custom properties) ----

const CSS = `
:host{display:block;margin:1em 0;font:14px/1.45 var(--crdlab-font,system-ui,sans-serif);color:var(--crdlab-fg,#1f2328);
--_bg:var(--crdlab-bg,#fff);--_code-bg:var(--crdlab-code-bg,#f6f8fa);--_border:var(--crdlab-border,#d0d7de);
--_accent:var(--crdlab-accent,#0969da);--_ok:var(--crdlab-ok,#1a7f37);--_err:var(--crdlab-error,#cf222e);--_muted:var(--crdlab-muted,#59636e);
--_k:#0550ae;--_s:#0a3069;--_n:#953800;--_c:#6e7781;--_b:#8250df}
:host([data-dark]){color:var(--crdlab-fg,#e6edf3);--_bg:var(--crdlab-bg,#0d1117);--_code-bg:var(--crdlab-code-bg,#282c34);--_border:var(--crdlab-border,#3d444d);
--_accent:var(--crdlab-accent,#4493f8);--_ok:var(--crdlab-ok,#3fb950);--_err:var(--crdlab-error,#f85149);--_muted:var(--crdlab-muted,#9198a1);
--_k:#e06c75;--_s:#98c379;--_n:#d19a66;--_c:#7d8799;--_b:#c678dd}
.w{background:var(--_bg);border:1px solid var(--_border);border-radius:var(--crdlab-radius,6px);overflow:hidden;min-width:0}
.tabs{display:flex;flex-wrap:wrap;gap:2px;border-bottom:1px solid var(--_border);padding:4px 6px 0}
.tabs button{font:inherit;font-size:13px;background:none;border:0;border-bottom:2px solid transparent;color:var(--_muted);padding:4px 8px;cursor:pointer}
.tabs button[aria-selected=true]{color:inherit;border-bottom-color:var(--_accent)}
.panel{height:var(--crdlab-code-height,16em);overflow:auto;background:var(--_code-bg)}
.panel[hidden]{display:none}
pre{margin:0;padding:4px 8px 4px 12px;font:13px/1.4 var(--crdlab-mono,ui-monospace,SFMono-Regular,Menlo,Consolas,monospace);white-space:pre;tab-size:2}
.k{color:var(--_k)}.s{color:var(--_s)}.n{color:var(--_n)}.c{color:var(--_c);font-style:italic}.b{color:var(--_b)}
.cm-editor{height:100%;background:var(--_code-bg)}.cm-scroller{font-family:var(--crdlab-mono,ui-monospace,SFMono-Regular,Menlo,Consolas,monospace)!important}
.res{border-top:1px solid var(--_border);padding:6px 10px;height:var(--crdlab-result-height,10em);overflow:auto;box-sizing:border-box}
.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;font-size:13px;color:var(--_muted)}
.bar .st{font-weight:600}
:host([state=valid]) .st{color:var(--_ok)}:host([state=invalid]) .st,:host([state=error]) .st{color:var(--_err)}
.bar a,.bar button{color:var(--_accent);font:inherit;background:none;border:1px solid var(--_border);border-radius:4px;padding:1px 8px;cursor:pointer;text-decoration:none}
.bar .sp{flex:1}
.out{margin:4px 0 0;font:12.5px/1.4 var(--crdlab-mono,ui-monospace,Menlo,Consolas,monospace);white-space:pre-wrap;word-break:break-word}
.out .err{color:var(--_err)}
details{margin-top:4px;font-size:13px}summary{cursor:pointer;color:var(--_muted)}
ul{margin:2px 0;padding-left:1.2em}li code{font-family:var(--crdlab-mono,ui-monospace,Menlo,Consolas,monospace);word-break:break-all}
.loc{color:var(--_muted)}
.cm-editor .cm-lintRange{background-image:none!important;text-decoration:underline wavy;text-decoration-skip-ink:none;text-underline-offset:2px}
.cm-editor .cm-lintRange-error{text-decoration-color:var(--_err)}.cm-editor .cm-lintRange-warning{text-decoration-color:#d4a72c}.cm-editor .cm-lintRange-info{text-decoration-color:var(--_muted)}
.cm-editor .cm-lint-marker{content:none!important;width:.7em;height:.7em;border-radius:50%;display:inline-block;vertical-align:middle}
.cm-editor .cm-lint-marker-error{background:var(--_err)}.cm-editor .cm-lint-marker-warning{background:#d4a72c}.cm-editor .cm-lint-marker-info{background:var(--_muted)}
`;

let sheet = null;
function applyStyles(root) {
  try {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [sheet];
  } catch {
    const style = document.createElement('style');
    style.textContent = CSS;
    root.append(style);
  }
}

// ---- The element ----

const STATE = ['idle', 'loading', 'valid', 'invalid', 'error'];
const darkQuery = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
let widgetCount = 0;

class CrdlabExample extends HTMLElement {
  static get observedAttributes() {
    return ['theme'];
  }

  constructor() {
    super();
    this._docs = null; // role -> text
    this._editors = {}; // role -> CrdlabEditor handle
    this._started = false;
    this._answer = null;
    this._id = ++widgetCount;
  }

  /** The last answer (also the `crdlab-result` event's detail). */
  get result() {
    return this._answer;
  }

  connectedCallback() {
    if (this.shadowRoot) {
      this._arm(); // moved in the page: watch again if it has not started
      return;
    }
    this._docs = this._readSources();
    if (!('crd' in this._docs) && document.readyState === 'loading') {
      // Defined before the parser reached the children (an async or cached module): wait.
      document.addEventListener('DOMContentLoaded', () => this.isConnected && this.connectedCallback(), { once: true });
      return;
    }
    const root = this.attachShadow({ mode: 'open' });
    applyStyles(root);
    this._render(root);
    if (!this._broken) this._setState('idle');
    this._applyTheme();
    darkQuery?.addEventListener?.('change', () => this._applyTheme());
    this._arm();
  }

  /** Starts now, or when visible, or shows the Run button, per `load`. */
  _arm() {
    if (this._started || this._broken) return;
    const load = this.getAttribute('load') || 'visible';
    if (load === 'eager') this._start();
    else if (load === 'click') this._runButton.hidden = false;
    else if (typeof IntersectionObserver === 'function') {
      this._observer = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          this._observer.disconnect();
          this._start();
        }
      });
      this._observer.observe(this);
    } else this._start();
  }

  disconnectedCallback() {
    this._observer?.disconnect();
  }

  attributeChangedCallback() {
    if (this.shadowRoot) this._applyTheme();
  }

  _applyTheme() {
    const t = this.getAttribute('theme') || 'auto';
    const dark = t === 'dark' || (t === 'auto' && !!darkQuery?.matches);
    this.toggleAttribute('data-dark', dark);
    for (const ed of Object.values(this._editors)) ed.setTheme(dark);
  }

  /** The texts: `<script type="application/yaml" data-crdlab="ROLE">` children (or given by the Markdown upgrade). */
  _readSources() {
    if (this._given) return this._given;
    const docs = {};
    const scripts = [...this.querySelectorAll(':scope > script[data-crdlab]')];
    for (const s of scripts) {
      const role = s.getAttribute('data-crdlab');
      if (ROLES.includes(role) && !(role in docs)) docs[role] = dedent(s.textContent);
    }
    return docs;
  }

  _render(root) {
    const w = el('div', 'w');
    const tabs = el('div', 'tabs');
    tabs.setAttribute('role', 'tablist');
    this._panels = {};
    this._tabs = {};
    const roles = ROLES.filter((r) => r in this._docs);
    const first = roles.includes('object') ? 'object' : roles[0];
    for (const role of roles) {
      const id = `crdlab-${this._id}-${role}`;
      const b = el('button');
      b.type = 'button';
      b.textContent = ROLE_LABEL[role];
      b.setAttribute('role', 'tab');
      b.setAttribute('aria-controls', id);
      b.addEventListener('click', () => this._show(role));
      tabs.append(b);
      const p = el('div', 'panel');
      p.id = id;
      p.setAttribute('role', 'tabpanel');
      p.dataset.role = role;
      const pre = el('pre');
      pre.setAttribute('aria-label', ROLE_LABEL[role]);
      highlight(pre, this._docs[role]);
      p.append(pre);
      this._panels[role] = p;
      this._tabs[role] = b;
    }
    w.append(tabs, ...Object.values(this._panels));
    const res = el('div', 'res');
    const bar = el('div', 'bar');
    this._status = el('span', 'st');
    this._runButton = el('button');
    this._runButton.type = 'button';
    this._runButton.textContent = 'Run';
    this._runButton.hidden = true;
    this._runButton.addEventListener('click', () => this._start());
    this._link = el('a');
    this._link.textContent = 'Open in playground';
    this._link.target = '_blank';
    this._link.rel = 'noopener';
    this._link.hidden = true;
    bar.append(this._status, this._runButton, el('span', 'sp'), this._link);
    this._out = el('div');
    this._out.setAttribute('role', 'status');
    this._out.setAttribute('aria-live', 'polite');
    this._out.setAttribute('part', 'result');
    this._out.className = 'result';
    res.append(bar, this._out);
    w.append(res);
    root.append(w);
    if (!roles.includes('crd') || !roles.includes('object')) {
      this._fatal('this example needs a CRD and an object (data-crdlab="crd" and "object")');
    }
    if (first) this._show(first);
  }

  _show(role) {
    for (const [r, p] of Object.entries(this._panels)) {
      p.hidden = r !== role;
      this._tabs[r].setAttribute('aria-selected', String(r === role));
    }
  }

  _setState(s) {
    if (!STATE.includes(s)) return;
    this.setAttribute('state', s);
    this._status.textContent = { idle: 'Not run yet', loading: 'Loading…', valid: 'Accepted', invalid: 'Rejected', error: 'Error' }[s];
  }

  _fatal(message) {
    this._broken = true;
    this._setState('error');
    this._out.replaceChildren(el('pre', 'out', message));
  }

  async _start() {
    if (this._started || this._broken) return;
    this._started = true;
    this._runButton.hidden = true;
    this._setState('loading');
    let engine, editor;
    try {
      [engine, editor] = await Promise.all([loadEngine(), loadEditor()]);
    } catch (e) {
      this._started = false;
      this._fatal(`crdlab could not load: ${e && e.message}`);
      this._broken = false;
      if ((this.getAttribute('load') || 'visible') !== 'eager') this._runButton.hidden = false;
      return;
    }
    this._engine = engine;
    this._mountEditors(editor);
    this._validate();
  }

  _mountEditors(Editor) {
    const editable = this.getAttribute('editable') || 'object';
    const dark = this.hasAttribute('data-dark');
    for (const [role, panel] of Object.entries(this._panels)) {
      const readOnly = editable === 'none' || (editable !== 'all' && role === 'crd');
      const host = el('div');
      host.style.height = '100%';
      const pre = panel.firstChild;
      panel.append(host);
      this._editors[role] = Editor.create(host, {
        doc: this._docs[role],
        language: 'auto',
        readOnly,
        dark,
        testid: `crdlab-${role}`,
        label: `${ROLE_LABEL[role]}${readOnly ? ' (read only)' : ''}`,
        onChange: (text) => {
          this._docs[role] = text;
          this._schedule();
        },
      });
      pre.remove();
    }
  }

  /** One validation per frame at most while typing (every keystroke is answered). */
  _schedule() {
    if (this._pending) return;
    this._pending = true;
    setTimeout(() => {
      this._pending = false;
      this._validate();
    }, 0);
  }

  _validate() {
    const kubernetesVersion = this.getAttribute('kubernetes-version') || undefined;
    const version = this.getAttribute('version') || undefined;
    const request = {
      crd: this._docs.crd,
      object: this._docs.object,
      oldObject: 'old-object' in this._docs ? this._docs['old-object'] : null,
      kubernetesVersion,
      version,
    };
    let answer;
    try {
      answer = analyse(this._engine, request);
    } catch (e) {
      if (isInternal(e)) forgetCompiled();
      this._answer = { verdict: 'error', lines: [`crdlab internal error: ${e && e.message}`], internal: isInternal(e) };
      this._setState('error');
      this._out.replaceChildren(
        el('pre', 'out', this._answer.lines[0]),
        el('div', 'loc', isInternal(e) ? 'The engine was restarted: the next edit validates again.' : ''),
      );
      for (const ed of Object.values(this._editors)) ed.setDiagnostics([]);
      this._emit();
      return;
    }
    this._answer = answer;
    this._setState(answer.verdict === 'accepted' ? 'valid' : 'invalid');
    this._showAnswer(answer);
    this._runSuite();
    this._updateLink(request);
    this._emit();
  }

  /** The suite block's run (`runSuite`), shown under the answer; its report is `result.suite`. */
  _runSuite() {
    if (!('suite' in this._docs)) return;
    const v = this.getAttribute('kubernetes-version');
    let r;
    try {
      r = this._engine.runSuite(this._docs.suite, this._docs.crd, v ? { kubernetesVersion: v } : null);
    } catch (e) {
      if (isInternal(e)) forgetCompiled();
      this._out.append(el('pre', 'out err', `Tests: ${e && e.message}`));
      return;
    }
    this._answer.suite = r;
    const s = r.summary;
    const ul = el('ul');
    ul.dataset.testid = 'suite';
    for (const c of r.suites[0]?.cases ?? []) {
      const f = c.results.find((x) => x.failure)?.failure;
      const li = el('li', f ? 'err' : '', `${f ? '✗' : '✓'} ${c.name} (line ${c.line})`);
      li.dataset.status = f ? 'fail' : 'pass';
      if (f) li.append(el('pre', 'out', f.text));
      ul.append(li);
    }
    const err = r.suites[0]?.error;
    if (err) ul.append(el('li', 'err', err));
    const title = `Tests: ${s.passed} of ${s.tests} passed${s.failed ? `, ${s.failed} failed` : ''}`;
    this._out.append(details(title, ul, s.failed > 0 || !!err, 'suite-summary'));
  }

  _emit() {
    this.dispatchEvent(new CustomEvent('crdlab-result', { detail: this._answer, bubbles: true, composed: true }));
  }

  _showAnswer(a) {
    const diags = { crd: [], object: [], 'old-object': [] };
    const mark = (role, d, severity) => d.range && diags[role]?.push({ ...d.range, severity, message: d.message });
    for (const d of a.crdErrors) mark('crd', d, 'error');
    for (const d of a.errors) mark('object', d, 'error');
    for (const d of a.warnings) mark('object', d, 'warning');
    if (a.loadError?.range) mark(a.loadError.role, a.loadError, 'error');
    for (const [role, ed] of Object.entries(this._editors)) ed.setDiagnostics(diags[role]);

    const out = el('pre', 'out');
    out.dataset.testid = 'kubectl';
    a.lines.forEach((l, i) => {
      const line = el('span', /^(The |error:)/.test(l) || l.startsWith('* ') ? 'err' : '', l);
      out.append(line, i < a.lines.length - 1 ? '\n' : '');
    });
    const parts = [out];
    if (a.loadError?.range) {
      parts.push(el('div', 'loc', `${ROLE_LABEL[a.loadError.role]}, line ${a.loadError.range.startLine}, column ${a.loadError.range.startColumn}`));
    }
    const located = [...a.crdErrors.map((d) => ['crd', d]), ...a.errors.map((d) => ['object', d])].filter(([, d]) => d.range);
    if (located.length) {
      const ul = el('ul');
      for (const [role, d] of located) {
        const li = el('li');
        li.append(el('span', 'loc', `${ROLE_LABEL[role]} ${d.range.startLine}:${d.range.startColumn} `), el('code', '', d.field));
        ul.append(li);
      }
      parts.push(details('Where', ul, false));
    }
    if (a.warnings.length) {
      const ul = el('ul');
      for (const w of a.warnings) ul.append(el('li', '', w.message));
      parts.push(details(`Ratcheted: ${a.warnings.length} invalid value(s) left unchanged, allowed on this update`, ul, true, 'ratcheted'));
    }
    if (a.rules.length) {
      const ul = el('ul');
      for (const r of a.rules) {
        const li = el('li');
        const cost = r.estimatedCost == null ? '' : ` — estimated cost ${r.estimatedCost}${r.maxCost != null ? ` (max ${r.maxCost})` : ''}`;
        li.append(el('code', '', r.rule), el('span', 'loc', ` at ${r.schemaPath}${cost}`));
        ul.append(li);
      }
      parts.push(details(`Rules: ${a.rules.length}`, ul, false, 'rules'));
    }
    this._out.replaceChildren(...parts);
  }

  async _updateLink(request) {
    const url = this.getAttribute('playground-url');
    if (!url) return;
    const seq = (this._linkSeq = (this._linkSeq || 0) + 1);
    const state = {
      crd: request.crd,
      object: request.object,
      oldObject: request.oldObject ?? '',
      oldCrd: '',
      settings: { version: request.version ?? null, kubernetesVersion: request.kubernetesVersion ?? null, ratcheting: null, status: false },
      tab: 'suite' in this._docs ? 'tests' : 'results',
    };
    // As the playground writes it: no `suite` key without one.
    if ('suite' in this._docs) state.suite = this._docs.suite;
    try {
      const frag = await shareFragment(state);
      if (seq !== this._linkSeq) return;
      this._link.href = `${url.split('#')[0]}#${frag}`;
      this._link.hidden = false;
    } catch {
      this._link.hidden = true; // no CompressionStream: no link
    }
  }
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

function details(title, body, open, testid) {
  const d = el('details');
  if (open) d.open = true;
  if (testid) d.dataset.testid = testid;
  d.append(el('summary', '', title), body);
  return d;
}

// ---- Markdown: <div class="crdlab-example"> with the generator's code blocks ----

/** The role a code block names (fence info string → class, or data-crdlab on the block). */
function namedRole(block) {
  const named = block.getAttribute('data-crdlab') || block.closest('[data-crdlab]')?.getAttribute('data-crdlab');
  if (ROLES.includes(named)) return named;
  // The info string becomes a class: on the code (Python-Markdown, Hugo), or on a wrapper
  // around the pre (pymdownx.superfences in MkDocs Material: div.language-NAME).
  const wrapper = block.closest('[class*="language-"]');
  const classes = `${block.className} ${block.parentElement?.className || ''} ${wrapper?.className || ''}`;
  if (/\bold-?object\b/i.test(classes)) return 'old-object';
  if (/(^|[\s-])crd\b/i.test(classes)) return 'crd';
  if (/(^|[\s-])object\b/i.test(classes)) return 'object';
  if (/(^|[\s-])suite\b/i.test(classes)) return 'suite';
  return null;
}

function upgradeMarkdown(root = document) {
  for (const div of root.querySelectorAll('div.crdlab-example:not([data-crdlab-upgraded])')) {
    div.setAttribute('data-crdlab-upgraded', '');
    // Line-number columns (Pygments' and MkDocs Material's `linenums` tables) are not code.
    const blocks = [...div.querySelectorAll('pre')]
      .filter((pre) => !pre.closest('.linenos, .linenodiv, .lineno'))
      .map((pre) => pre.querySelector('code') || pre);
    const docs = {};
    const unnamed = [];
    for (const b of blocks) {
      const role = namedRole(b);
      if (role && !(role in docs)) docs[role] = dedent(b.textContent);
      else unnamed.push(b);
    }
    // Unnamed blocks are the CRD, the object and the old object, in order; a suite is named.
    for (const role of ROLES.slice(0, 3)) if (!(role in docs) && unnamed.length) docs[role] = dedent(unnamed.shift().textContent);
    const w = document.createElement('crdlab-example');
    for (const a of div.attributes) {
      const m = /^data-(kubernetes-version|version|load|editable|playground-url|theme)$/.exec(a.name);
      if (m) w.setAttribute(m[1], a.value);
    }
    w._given = docs;
    div.replaceWith(w);
  }
}

if (!customElements.get('crdlab-example')) customElements.define('crdlab-example', CrdlabExample);
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => upgradeMarkdown());
else upgradeMarkdown();
// Sites that swap the page's content without a reload (Docusaurus, MkDocs Material's instant
// navigation) add new blocks later: they are upgraded as they arrive.
if (typeof MutationObserver === 'function') {
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType === 1 && (n.matches('div.crdlab-example') || n.querySelector('div.crdlab-example'))) {
          upgradeMarkdown();
          return;
        }
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
}

export { CrdlabExample, upgradeMarkdown };
