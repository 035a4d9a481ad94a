// The text logic of the editors, free of CodeMirror imports so that node can unit-test it
// (tests/browser/editor.test.mjs): which language "auto" means, how a single-line editor
// flattens inserted line breaks, and how engine diagnostics map onto document offsets.
// `doc` parameters are CodeMirror `Text` values (lines, line(n), lineAt(pos), sliceString, iter).

/** "auto": JSON when the first non-whitespace character is `{` or `[`, YAML otherwise. */
export function sniffLanguage(doc) {
  for (const iter = doc.iter(); !iter.next().done; ) {
    if (iter.lineBreak) continue;
    const m = /\S/.exec(iter.value);
    if (m) return m[0] === '{' || m[0] === '[' ? 'json' : 'yaml';
  }
  return 'yaml';
}

/**
 * Flattens text inserted into a single-line editor: each line break, with the spaces and tabs
 * around it and any empty lines after it, becomes one space. A break at the start (end) of the
 * insertion is dropped instead when the document already has whitespace, or nothing, before
 * (after) it, so a pasted trailing newline adds nothing at the end of the field, while "\nb"
 * typed after "a" still gives "a b" (an insertion may arrive in pieces).
 * @param {string} text the insertion, lines separated by "\n"
 * @param {string} before the document character just before it ("" at the start)
 * @param {string} after the document character just after it ("" at the end)
 */
export function flattenInsert(text, before, after) {
  if (!text.includes('\n')) return text;
  let s = text.replace(/[ \t]*(?:\n[ \t]*)+/g, ' ');
  if (/^[ \t]*\n/.test(text) && (before === '' || /\s/.test(before)) && s.startsWith(' ')) s = s.slice(1);
  if (/\n[ \t]*$/.test(text) && (after === '' || /\s/.test(after)) && s.endsWith(' ')) s = s.slice(0, -1);
  return s;
}

// CodeMirror's own line splitting (\r\n, \r or \n).
export const splitLines = (text) => text.split(/\r\n?|\n/);

/** The document joined into one line (for the initial document of a single-line editor). */
export function toSingleLine(text) {
  return flattenInsert(splitLines(text).join('\n'), '', '');
}

/**
 * Converts a 1-based line/column (UTF-16 code units) into a document offset, clamping
 * anything out of range onto the nearest valid position.
 */
export function clampPos(doc, line, column) {
  const ln = Number.isFinite(line) ? Math.min(Math.max(Math.trunc(line), 1), doc.lines) : 1;
  const l = doc.line(ln);
  const col = Number.isFinite(column) ? Math.trunc(column) : 1;
  return l.from + Math.min(Math.max(col - 1, 0), l.length);
}

const isHighSurrogate = (code) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code) => code >= 0xdc00 && code <= 0xdfff;

const SEVERITIES = { error: 'error', warning: 'warning', info: 'info', hint: 'hint' };

/** One engine diagnostic → a CodeMirror lint Diagnostic (see README: setDiagnostics). */
export function toLintDiagnostic(doc, d) {
  let from = clampPos(doc, d.startLine, d.startColumn);
  let to = clampPos(doc, d.endLine ?? d.startLine, d.endColumn ?? d.startColumn);
  if (to < from) to = from;
  if (to === from) {
    // An empty range would be drawn as a small point marker that is easy to miss: widen it to
    // the character after it, or before it at a line end. Only an empty line stays a point.
    const line = doc.lineAt(from);
    if (from < line.to) {
      to = from + 1;
      if (to < line.to && isHighSurrogate(doc.sliceString(from, from + 1).charCodeAt(0))) to++;
    } else if (from > line.from) {
      from -= 1;
      if (from > line.from && isLowSurrogate(doc.sliceString(from, from + 1).charCodeAt(0))) from--;
    }
  }
  return {
    from,
    to,
    severity: SEVERITIES[d.severity] || 'info',
    message: d.message == null ? '' : String(d.message),
  };
}


/**
 * How much two texts share at their ends: the length of their common prefix, and of their
 * common suffix in what is left after it (so the two never overlap in either text). Neither
 * end cuts a surrogate pair in two. Compares in blocks first, for megabyte documents.
 * @param {string} a
 * @param {string} b
 * @returns {{prefix: number, suffix: number}}
 */
export function sharedEnds(a, b) {
  const max = Math.min(a.length, b.length);
  // Whole blocks compared as strings (V8 compares those natively): a character loop over
  // 3 MB takes ~35 ms, this ~1.5 ms.
  const BLOCK = 4096;
  let prefix = 0;
  while (prefix + BLOCK <= max && a.substring(prefix, prefix + BLOCK) === b.substring(prefix, prefix + BLOCK)) prefix += BLOCK;
  while (prefix < max && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  // A prefix ending on the high half of a pair (in either text): leave that half out.
  if (prefix > 0 && isHighSurrogate(a.charCodeAt(prefix - 1)) && (isLowSurrogate(a.charCodeAt(prefix)) || isLowSurrogate(b.charCodeAt(prefix)))) prefix--;
  const room = max - prefix;
  let suffix = 0;
  while (suffix + BLOCK <= room && a.substring(a.length - suffix - BLOCK, a.length - suffix) === b.substring(b.length - suffix - BLOCK, b.length - suffix)) {
    suffix += BLOCK;
  }
  while (suffix < room && a.charCodeAt(a.length - 1 - suffix) === b.charCodeAt(b.length - 1 - suffix)) suffix++;
  // A suffix starting on the low half of a pair whose high half differs: leave that half out.
  if (suffix > 0 && isLowSurrogate(a.charCodeAt(a.length - suffix))) suffix--;
  return { prefix, suffix };
}
