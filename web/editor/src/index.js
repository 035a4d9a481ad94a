// CodeMirror 6 editors for the crdlab playground, exposed as `window.CrdlabEditor`.
//
// The Yew app (web/src) owns all state; an editor is a view that reports user edits through
// `onChange` (the text) or `onChanges` (what changed) and shows what the app pushes in
// (`setDoc`, `setDiagnostics`, `setTheme`). It never decides anything about the text itself,
// apart from picking a highlighter for "auto".
// esbuild bundles this file into one IIFE (build.mjs); the page loads it with a plain
// <script> before the wasm app starts. Nothing here touches the network.

import { Annotation, Compartment, EditorState, Prec, Text, Transaction } from '@codemirror/state';
import {
  EditorView,
  drawSelection,
  dropCursor,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab, isolateHistory } from '@codemirror/commands';
import {
  StreamLanguage,
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { yaml } from '@codemirror/lang-yaml';
import { json } from '@codemirror/lang-json';
import { lintGutter, lintKeymap, linter, setDiagnostics as lintSetDiagnostics } from '@codemirror/lint';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { oneDark } from '@codemirror/theme-one-dark';
import { celLanguage } from './cel.js';
import { clampPos, flattenInsert, sharedEnds, sniffLanguage, splitLines, toLintDiagnostic, toSingleLine } from './text.js';

// Marks transactions made by setDoc, so the update listener does not report them as user edits.
const programmatic = Annotation.define();

// One instance of each language extension, shared by all editors: "auto" compares the
// compartment's current content with these by identity to know whether to switch.
const LANGUAGES = {
  yaml: yaml(),
  json: json(),
  cel: celLanguage,
  text: [],
};

// The light look is CodeMirror's default theme plus its default highlight style; the highlight
// style is a fallback, so one-dark's own style wins while the dark theme is active.
const lightTheme = EditorView.theme({}, { dark: false });
const themeFor = (dark) => (dark ? oneDark : lightTheme);

// Sizing and fonts: the editor fills its parent (the app's CSS gives the parent a height) and
// uses the system monospace font, never a web font.
const baseTheme = EditorView.baseTheme({
  '&': { height: '100%', fontSize: '13px' },
  '.cm-scroller': {
    overflow: 'auto',
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  },
  '&.crdlab-single-line': { height: 'auto' },
  '&.crdlab-single-line .cm-scroller': { overflowY: 'hidden' },
  '&.crdlab-single-line .cm-content': { padding: '2px 0' },
});

function resolveLanguage(language, doc) {
  if (language === 'auto') return sniffLanguage(doc);
  return Object.prototype.hasOwnProperty.call(LANGUAGES, language) ? language : 'text';
}

// Single-line editors: rewrite any transaction whose insertions contain line breaks (typing,
// paste, drop, setDoc, undo) so that the document always stays one line.
const singleLineFilter = EditorState.transactionFilter.of((tr) => {
  if (!tr.docChanged || tr.newDoc.lines === 1) return tr;
  const changes = [];
  const doc = tr.startState.doc;
  tr.changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    const before = doc.sliceString(Math.max(fromA - 1, 0), fromA);
    const after = doc.sliceString(toA, Math.min(toA + 1, doc.length));
    changes.push({ from: fromA, to: toA, insert: flattenInsert(inserted.toString(), before, after) });
  });
  const changeSet = tr.startState.changes(changes);
  return {
    changes: changeSet,
    // Cursors end after the inserted text, as they would have without the rewrite.
    selection: tr.startState.selection.map(changeSet, 1),
    effects: tr.effects,
    scrollIntoView: tr.scrollIntoView,
    annotations: carriedAnnotations(tr),
  };
});

// The annotations of a rewritten transaction that matter downstream: setDoc's mark (so the
// edit is still not reported), the user event and the history flag.
function carriedAnnotations(tr) {
  const out = [];
  if (tr.annotation(programmatic)) out.push(programmatic.of(true));
  const userEvent = tr.annotation(Transaction.userEvent);
  if (userEvent != null) out.push(Transaction.userEvent.of(userEvent));
  const addToHistory = tr.annotation(Transaction.addToHistory);
  if (addToHistory != null) out.push(Transaction.addToHistory.of(addToHistory));
  const isolate = tr.annotation(isolateHistory);
  if (isolate != null) out.push(isolateHistory.of(isolate));
  return out;
}

// A user's replacement of a large range (select all, then paste an edited copy of the same
// document) narrowed to the part that differs. The document, selection and undo step are the
// same; but CodeMirror keeps its syntax tree, diagnostics and layout outside that part,
// instead of re-parsing megabytes on the page's thread (for the playground's 2.9 MB CRD,
// over half a second of parsing that held back the engine's answer).
const NARROW_FROM = 4096;
const narrowReplace = EditorState.transactionFilter.of((tr) => {
  if (!tr.docChanged || tr.annotation(programmatic)) return tr;
  let only = null;
  let count = 0;
  tr.changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    count++;
    only = { fromA, toA, inserted };
  });
  if (count !== 1 || only.toA - only.fromA < NARROW_FROM || only.inserted.length < NARROW_FROM) return tr;
  const removed = tr.startState.doc.sliceString(only.fromA, only.toA);
  const inserted = only.inserted.toString();
  const { prefix, suffix } = sharedEnds(removed, inserted);
  if (prefix === 0 && suffix === 0) return tr;
  const changes = tr.startState.changes({
    from: only.fromA + prefix,
    to: only.toA - suffix,
    insert: inserted.slice(prefix, inserted.length - suffix),
  });
  return {
    changes,
    // The new document is the same text, so an explicit selection stays as it was given.
    selection: tr.selection ?? tr.startState.selection.map(changes, 1),
    effects: tr.effects,
    scrollIntoView: tr.scrollIntoView,
    annotations: carriedAnnotations(tr),
  };
});

/**
 * @typedef {Object} EditorOptions
 * @property {string} [doc] initial content
 * @property {"yaml"|"json"|"auto"|"cel"|"text"} [language] highlighter; "auto" picks JSON when
 *   the first non-whitespace character is `{` or `[`, YAML otherwise, re-decided on each change
 * @property {string} [testid] data-testid of the contenteditable `.cm-content` element
 * @property {string} [label] aria-label of the content element
 * @property {boolean} [dark] one-dark theme instead of the light one
 * @property {boolean} [readOnly] the user cannot change the text (it stays focusable/selectable)
 * @property {boolean} [singleLine] no newlines (Enter does nothing, pasted lines are joined
 *   with a space), no line numbers, no gutters
 * @property {(doc: string) => void} [onChange] called after every user edit (not for setDoc)
 * @property {(changes: Array<number|string>, length: number, doc: () => string) => void} [onChanges]
 *   called after every user edit (not for setDoc) with what changed instead of the whole text:
 *   `changes` holds `from, to, inserted` for each change, ascending, `from`/`to` in UTF-16
 *   units of the text before the edit; `length` is the new text's; `doc()` reads the whole
 *   new text (megabytes in a big document: what this callback lets its caller skip)
 */

/**
 * @typedef {Object} EditorDiagnostic
 * @property {number} startLine 1-based
 * @property {number} startColumn 1-based, UTF-16 code units
 * @property {number} endLine 1-based
 * @property {number} endColumn 1-based, UTF-16 code units, exclusive
 * @property {"error"|"warning"|"info"} severity
 * @property {string} message
 */

/**
 * @typedef {Object} EditorHandle
 * @property {() => string} getDoc the current content (lines joined with "\n")
 * @property {(text: string) => void} setDoc replaces the content without calling onChange
 * @property {(list: EditorDiagnostic[]) => void} setDiagnostics replaces all underlines
 * @property {(dark: boolean) => void} setTheme
 * @property {() => void} focus
 * @property {(line: number, column?: number) => void} revealLine scrolls to a 1-based line
 *   (and column), puts the cursor there and focuses the editor
 * @property {() => void} destroy removes the editor from the page
 */

/**
 * Creates an editor inside `parent`.
 * @param {HTMLElement} parent
 * @param {EditorOptions} opts
 * @returns {EditorHandle}
 */
function create(parent, opts = {}) {
  if (!parent || typeof parent.appendChild !== 'function') {
    throw new TypeError('CrdlabEditor.create: parent must be a DOM element');
  }
  const language = opts.language || 'text';
  const singleLine = !!opts.singleLine;
  const onChange = typeof opts.onChange === 'function' ? opts.onChange : null;
  const onChanges = typeof opts.onChanges === 'function' ? opts.onChanges : null;
  const raw = opts.doc == null ? '' : String(opts.doc);
  const initial = singleLine ? toSingleLine(raw) : raw;

  const languageConf = new Compartment();
  const themeConf = new Compartment();

  // "auto": after any change, switch the highlighter if the first character now says otherwise.
  const autoLanguage = EditorState.transactionExtender.of((tr) => {
    if (!tr.docChanged) return null;
    const want = LANGUAGES[sniffLanguage(tr.newDoc)];
    return languageConf.get(tr.startState) === want ? null : { effects: languageConf.reconfigure(want) };
  });

  const reportEdits = EditorView.updateListener.of((update) => {
    if (!(onChange || onChanges) || !update.docChanged) return;
    if (update.transactions.every((tr) => !tr.docChanged || tr.annotation(programmatic))) return;
    const doc = update.state.doc;
    if (onChanges) {
      const changes = [];
      update.changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => changes.push(fromA, toA, inserted.toString()));
      try {
        onChanges(changes, doc.length, () => doc.toString());
      } catch (e) {
        console.error('CrdlabEditor onChanges failed:', e);
      }
    }
    if (onChange) {
      try {
        onChange(doc.toString());
      } catch (e) {
        console.error('CrdlabEditor onChange failed:', e);
      }
    }
  });

  const contentAttrs = {};
  if (opts.testid != null) contentAttrs['data-testid'] = String(opts.testid);
  if (opts.label != null) contentAttrs['aria-label'] = String(opts.label);
  if (singleLine) contentAttrs['aria-multiline'] = 'false';

  const extensions = [
    highlightSpecialChars(),
    history(),
    drawSelection(),
    dropCursor(),
    indentOnInput(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    bracketMatching(),
    highlightSelectionMatches(),
    search(),
    // Diagnostics come only from setDiagnostics; this just installs the lint state up front.
    linter(null),
    // Tab indents; Escape then Tab (CodeMirror's built-in tab-focus mode) or Ctrl-M leaves.
    // A single-line field has nothing to indent: there Tab moves focus, as in an <input>.
    keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, ...lintKeymap, ...(singleLine ? [] : [indentWithTab])]),
    languageConf.of(LANGUAGES[resolveLanguage(language, Text.of(splitLines(initial)))]),
    themeConf.of(themeFor(!!opts.dark)),
    baseTheme,
    EditorView.contentAttributes.of(contentAttrs),
    reportEdits,
  ];
  if (language === 'auto') extensions.push(autoLanguage);
  if (opts.readOnly) extensions.push(EditorState.readOnly.of(true));
  if (singleLine) {
    extensions.push(
      singleLineFilter,
      // Enter would insert a newline that the filter turns into nothing; swallow it instead.
      Prec.highest(keymap.of([{ key: 'Enter', run: () => true, shift: () => true }])),
      EditorView.editorAttributes.of({ class: 'crdlab-single-line' }),
    );
  } else {
    extensions.push(lineNumbers(), highlightActiveLineGutter(), highlightActiveLine(), lintGutter(), narrowReplace);
  }

  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: initial,
      extensions,
    }),
  });
  let destroyed = false;

  return {
    getDoc() {
      return view.state.doc.toString();
    },

    setDoc(text) {
      if (destroyed) return;
      const raw = text == null ? '' : String(text);
      // Normalised as CodeMirror stores it (line breaks as "\n", flattened in single-line
      // editors), so that pushing the same text again is recognised as no change.
      const next = singleLine ? toSingleLine(raw) : splitLines(raw).join('\n');
      const doc = view.state.doc;
      const current = doc.toString();
      if (current === next) return;
      // Replace only the part that differs, so the selection, the scroll position and the
      // diagnostics outside it stay where they are.
      const { prefix, suffix } = sharedEnds(current, next);
      view.dispatch({
        changes: { from: prefix, to: current.length - suffix, insert: next.slice(prefix, next.length - suffix) },
        annotations: [programmatic.of(true), isolateHistory.of('full')],
      });
    },

    setDiagnostics(list) {
      if (destroyed) return;
      const doc = view.state.doc;
      const diagnostics = Array.isArray(list)
        ? list.filter((d) => d && typeof d === 'object').map((d) => toLintDiagnostic(doc, d))
        : [];
      view.dispatch(lintSetDiagnostics(view.state, diagnostics));
    },

    setTheme(dark) {
      if (destroyed) return;
      view.dispatch({ effects: themeConf.reconfigure(themeFor(!!dark)) });
    },

    focus() {
      if (!destroyed) view.focus();
    },

    revealLine(line, column) {
      if (destroyed) return;
      const pos = clampPos(view.state.doc, line, column == null ? 1 : column);
      view.dispatch({
        selection: { anchor: pos },
        effects: EditorView.scrollIntoView(pos, { y: 'center' }),
      });
      view.focus();
    },

    destroy() {
      if (destroyed) return;
      destroyed = true;
      view.destroy();
    },
  };
}

/** The global API: `window.CrdlabEditor.create(parent, opts)`. */
const CrdlabEditor = Object.freeze({ create });
if (typeof window !== 'undefined') window.CrdlabEditor = CrdlabEditor;
export { create };
