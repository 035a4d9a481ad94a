// The JSON Schemas of `crdlab schema` in an editor's own checker: the npm yaml-language-server
// (the server behind VS Code's YAML extension, Neovim's, Helix's, JetBrains'), driven over
// stdio as an editor drives it. A file that names its schema with the
// `# yaml-language-server: $schema=` modeline gets a diagnostic at the line of its invalid
// field, and none once the field is fixed.
//
// Needs target/release/crdlab (cargo build --release) or CRDLAB_BIN.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { root } from '../support/harness.mjs';
import { widgetsCrd } from '../support/widgets.mjs';

const require = createRequire(import.meta.url);
const bin = process.env.CRDLAB_BIN || path.join(root, 'target/release/crdlab');
const server = path.join(path.dirname(require.resolve('yaml-language-server/package.json')), 'bin/yaml-language-server');

// The shared widgets CRD with a size enum and a patterned slug.
const CRD = widgetsCrd('self.replicas < 100', 'fewer than 100',
  "              size: {type: string, enum: [S, M, L]}\n              slug: {type: string, pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$'}\n");

// A minimal LSP client over stdio: Content-Length framed JSON-RPC.
function lsp(child) {
  let buffer = Buffer.alloc(0);
  let nextId = 1;
  const pending = new Map();
  const listeners = [];
  child.stdout.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const head = buffer.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, head).toString())[1]);
      if (buffer.length < head + 4 + length) return;
      const msg = JSON.parse(buffer.subarray(head + 4, head + 4 + length).toString());
      buffer = buffer.subarray(head + 4 + length);
      if (msg.id !== undefined && pending.has(msg.id) && !msg.method) {
        pending.get(msg.id)(msg);
        pending.delete(msg.id);
      } else if (msg.method && msg.id !== undefined) {
        // A request from the server (workspace/configuration, client/registerCapability).
        const result = msg.method === 'workspace/configuration' ? msg.params.items.map((i) => (i.section === 'yaml' ? settings.yaml : null)) : null;
        send({ jsonrpc: '2.0', id: msg.id, result });
      } else {
        for (const l of listeners) l(msg);
      }
    }
  });
  const send = (msg) => {
    const body = Buffer.from(JSON.stringify(msg));
    child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    child.stdin.write(body);
  };
  return {
    request: (method, params) =>
      new Promise((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        send({ jsonrpc: '2.0', id, method, params });
      }),
    notify: (method, params) => send({ jsonrpc: '2.0', method, params }),
    diagnostics: (uri, version) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no diagnostics for ${uri} v${version} in 30 s`)), 30_000);
        const l = (msg) => {
          if (msg.method === 'textDocument/publishDiagnostics' && msg.params.uri === uri && (msg.params.version ?? version) === version) {
            clearTimeout(timer);
            listeners.splice(listeners.indexOf(l), 1);
            resolve(msg.params.diagnostics);
          }
        };
        listeners.push(l);
      }),
  };
}

const settings = { yaml: { validate: true, hover: true, completion: true, schemaStore: { enable: false }, format: { enable: false } } };

test('the YAML language server puts a diagnostic on the line of the invalid field', { skip: !fs.existsSync(bin) && `no ${bin}: cargo build --release first` }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-yls-'));
  fs.writeFileSync(path.join(dir, 'crd.yaml'), CRD);
  execFileSync(bin, ['schema', '--crds', path.join(dir, 'crd.yaml'), '-o', path.join(dir, 'schemas')]);
  const schemaUrl = pathToFileURL(path.join(dir, 'schemas', 'widget_v1.json')).href;
  const child = spawn(process.execPath, [server, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const c = lsp(child);
    await c.request('initialize', { processId: process.pid, rootUri: pathToFileURL(dir).href, capabilities: { workspace: { configuration: true } } });
    c.notify('initialized', {});
    c.notify('workspace/didChangeConfiguration', { settings });
    const uri = pathToFileURL(path.join(dir, 'widget.yaml')).href;
    // Line 6 (0-based 5): a size the enum does not allow; line 8: a slug the pattern refuses.
    const bad = [
      `# yaml-language-server: $schema=${schemaUrl}`,
      'apiVersion: example.com/v1',
      'kind: Widget',
      'metadata: {name: w1}',
      'spec:',
      '  size: XL',
      '  replicas: 3',
      '  slug: Not_A_Name',
      '',
    ].join('\n');
    let diagnostics = c.diagnostics(uri, 1);
    c.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text: bad } });
    let found = await diagnostics;
    const lines = found.map((d) => d.range.start.line).sort();
    assert.deepEqual(lines, [5, 7], JSON.stringify(found, null, 1));
    assert.match(found.find((d) => d.range.start.line === 5).message, /Valid values: "S", "M", "L"/, JSON.stringify(found));
    // Fixed: no diagnostic left.
    diagnostics = c.diagnostics(uri, 2);
    c.notify('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: bad.replace('XL', 'M').replace('Not_A_Name', 'web-1') }] });
    found = await diagnostics;
    assert.deepEqual(found, []);
    await c.request('shutdown', null);
    c.notify('exit', null);
  } finally {
    child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
