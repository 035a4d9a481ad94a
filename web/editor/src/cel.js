// A small highlighter for CEL (the language of x-kubernetes-validations rules), following the
// lexical grammar of cel-spec (CEL.g4). It only colours tokens; it never judges an expression
// (the engine does that and reports through setDiagnostics).

import { StreamLanguage } from '@codemirror/language';

// Literals spelled like identifiers.
const LITERALS = { true: 'bool', false: 'bool', null: 'null' };
// Macros that cel-go expands at parse time: coloured apart from ordinary functions.
const MACROS = new Set(['has', 'all', 'exists', 'exists_one', 'map', 'filter']);
// Variables that Kubernetes binds in validation rules.
const K8S_VARIABLES = new Set(['self', 'oldSelf']);

// A string start: an optional r/b prefix (at most one of each, any case and order), then the
// quote. The prefix is only a prefix when the quote follows right away; `rb` alone is an
// identifier.
const STRING_START = /^(r|R|b|B|rb|rB|Rb|RB|br|bR|Br|BR)?('''|"""|'|")/;

/**
 * Continues a string that began with `quote` until its closing quote or the end of the line.
 * @returns {boolean} true when the string was closed
 */
function readString(stream, quote, raw) {
  while (!stream.eol()) {
    if (stream.match(quote)) return true;
    const ch = stream.next();
    // Outside raw strings a backslash escapes the next character (including a quote).
    if (ch === '\\' && !raw && !stream.eol()) stream.next();
  }
  return false;
}

function token(stream, state) {
  if (state.string) {
    // Inside a triple-quoted string that spans lines.
    if (readString(stream, state.string.quote, state.string.raw)) state.string = null;
    return 'string';
  }
  if (stream.eatSpace()) return null;

  const afterDot = state.afterDot;
  state.afterDot = false;

  if (stream.match('//')) {
    stream.skipToEnd();
    return 'lineComment';
  }

  const str = stream.match(STRING_START);
  if (str) {
    const raw = /r/i.test(str[1] || '');
    const quote = str[2];
    // Single-quoted strings end at the line end; triple-quoted ones may go on.
    if (!readString(stream, quote, raw) && quote.length === 3) state.string = { quote, raw };
    return 'string';
  }

  if (stream.match(/^0[xX][0-9a-fA-F]+[uU]?/)) return 'number';
  if (stream.match(/^(?:\d*\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)/)) return 'number';
  if (stream.match(/^\d+[uU]?/)) return 'number';

  const ident = stream.match(/^[_a-zA-Z][_a-zA-Z0-9]*/);
  if (ident) {
    const word = ident[0];
    const call = stream.match(/^\s*\(/, false);
    if (afterDot) return call ? 'propertyName.function' : 'propertyName';
    if (word === 'in') return 'operatorKeyword';
    if (Object.prototype.hasOwnProperty.call(LITERALS, word)) return LITERALS[word];
    if (call) return MACROS.has(word) ? 'macroName' : 'variableName.function';
    if (K8S_VARIABLES.has(word)) return 'variableName.special';
    return 'variableName';
  }
  // Backquoted field names (`a.b-c`), selectable only after a dot.
  if (stream.match(/^`[^`\n]*`/)) return 'propertyName';

  if (stream.match(/^(?:==|!=|<=|>=|&&|\|\|)/)) return 'operator';
  const ch = stream.next();
  if (ch === '.') {
    state.afterDot = true;
    return 'punctuation';
  }
  if (ch === '(' || ch === ')') return 'paren';
  if (ch === '[' || ch === ']') return 'squareBracket';
  if (ch === '{' || ch === '}') return 'brace';
  if (ch === ',') return 'separator';
  if ('<>!+-*/%?:'.includes(ch)) return 'operator';
  return 'invalid';
}

/** The CEL highlighter as a CodeMirror language extension. */
export const celLanguage = StreamLanguage.define({
  name: 'cel',
  startState: () => ({ string: null, afterDot: false }),
  copyState: (s) => ({ string: s.string && { ...s.string }, afterDot: s.afterDot }),
  token,
  languageData: { commentTokens: { line: '//' } },
});
