// The npm package's web build in a page: a CRD and an object in two plain textareas, the
// diagnostics underlined in place. The positions come from the package: every diagnostic
// has `range.startOffset`/`endOffset` (UTF-16, the textarea's own indices) and
// `startLine`/`startColumn` (shown in the list).
import init, { compile, version, InternalError } from './crdlab/crdlab.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [replicas]
            x-kubernetes-validations:
            - rule: self.replicas <= self.maxReplicas
              message: replicas must not exceed maxReplicas
            properties:
              replicas: {type: integer, minimum: 1}
              maxReplicas: {type: integer}
              size:
                type: string
                enum: [small, medium, large]
`;

const OBJECT = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: my-widget
spec:
  replicas: 0
  maxReplicas: 3
  size: huge
  colour: blue
`;

const editors = {};
let compiled = null; // the CompiledCrd of the current CRD text
// crdlab hit a bug (InternalError): the engine was restarted, and `compiled`, if any, belonged
// to the crashed instance; the next edit of either text compiles again.
let stale = false;
let crdDiagnostics = [];
let objectDiagnostics = [];
let crdWarnings = [];

function editor(id, text) {
  const ta = document.getElementById(id);
  const backdrop = document.getElementById(`${id}-backdrop`);
  ta.value = text;
  ta.addEventListener('scroll', () => {
    backdrop.scrollTop = ta.scrollTop;
    backdrop.scrollLeft = ta.scrollLeft;
  });
  return { id, ta, backdrop };
}

const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** The backdrop of an editor: its text, with a <mark> over each diagnostic's range. */
function underline(ed, diagnostics) {
  const text = ed.ta.value;
  const marks = diagnostics
    .filter((d) => d.range)
    .map((d) => ({ d, start: d.range.startOffset, end: Math.max(d.range.endOffset, d.range.startOffset + 1) }))
    .sort((a, b) => a.start - b.start || b.end - a.end);
  let html = '';
  let at = 0;
  for (const { d, start, end } of marks) {
    const s = Math.max(start, at);
    const e = Math.min(Math.max(end, s), text.length);
    if (e <= s) continue; // inside an earlier mark
    html += escapeHtml(text.slice(at, s));
    html += `<mark class="${d.severity}" data-line="${d.range.startLine}" data-column="${d.range.startColumn}" title="${escapeHtml(d.message)}">${escapeHtml(text.slice(s, e))}</mark>`;
    at = e;
  }
  // A final newline keeps the last line's height when the text ends with one.
  ed.backdrop.innerHTML = html + escapeHtml(text.slice(at)) + '\n';
  ed.backdrop.scrollTop = ed.ta.scrollTop;
  ed.backdrop.scrollLeft = ed.ta.scrollLeft;
}

const diagnostic = (input, severity) => (d) => ({ ...d, input, severity });

/** A thrown error of the package: its message, and its place in the text when it has one. */
const thrown = (input, e) => ({ input, severity: 'error', message: e.message, range: e.range });

function recompile() {
  compiled?.free();
  compiled = null;
  stale = false;
  crdWarnings = [];
  try {
    compiled = compile(editors.crd.ta.value);
    crdDiagnostics = compiled.crdErrors.map(diagnostic('crd', 'error'));
    crdWarnings = compiled.crdWarnings;
  } catch (e) {
    crdDiagnostics = [thrown('crd', e)];
    if (e instanceof InternalError) stale = true;
  }
  revalidate();
}

function revalidate() {
  objectDiagnostics = [];
  if (compiled) {
    try {
      const a = compiled.validate(editors.object.ta.value);
      objectDiagnostics = [
        ...a.errors.map(diagnostic('object', 'error')),
        ...a.warnings.map(diagnostic('object', 'warning')),
        ...a.unknownFields.map((field, i) => ({
          input: 'object',
          severity: 'info',
          field,
          message: `${field}: unknown field, pruned`,
          range: a.unknownFieldRanges?.[i] ?? undefined,
        })),
      ];
    } catch (e) {
      objectDiagnostics = [thrown('object', e)];
      if (e instanceof InternalError) stale = true;
    }
  }
  render();
}

function render() {
  underline(editors.crd, crdDiagnostics);
  underline(editors.object, objectDiagnostics);
  const all = [...crdDiagnostics, ...objectDiagnostics];
  const list = document.getElementById('diagnostics');
  list.replaceChildren(
    ...all.map((d) => {
      const li = document.createElement('li');
      li.className = d.severity;
      li.dataset.input = d.input;
      if (d.field) li.dataset.field = d.field;
      const at = document.createElement('span');
      at.className = 'at';
      at.textContent = d.range ? `${d.input} ${d.range.startLine}:${d.range.startColumn}  ` : `${d.input}  `;
      li.append(at, d.message);
      if (d.range) {
        li.dataset.line = d.range.startLine;
        li.addEventListener('click', () => {
          const ta = editors[d.input].ta;
          ta.focus();
          ta.setSelectionRange(d.range.startOffset, d.range.endOffset);
        });
      }
      return li;
    }),
    ...crdWarnings.map((w) => {
      const li = document.createElement('li');
      li.className = 'warning';
      li.dataset.input = 'crd';
      li.textContent = `crd  ${w}`;
      return li;
    }),
  );
  const errors = all.filter((d) => d.severity === 'error').length;
  const status = document.getElementById('status');
  status.textContent = errors ? `${errors} error${errors === 1 ? '' : 's'}` : compiled ? 'valid' : 'no CRD';
  status.dataset.ready = 'true';
}

await init();
document.getElementById('version').textContent = `(crdlab ${version().crdlab})`;
editors.crd = editor('crd', CRD);
editors.object = editor('object', OBJECT);
editors.crd.ta.addEventListener('input', recompile);
editors.object.ta.addEventListener('input', () => (stale ? recompile() : revalidate()));
recompile();
