// Serves the npm package's example page: static/npm-example.html at /, the rest of static/,
// the web build of the package (OUT_DIR/web) under /crdlab/ and the bundler build (which a
// browser can import as it is) under /crdlab-bundler/.
//
//   node tests/npm/serve.mjs [OUT_DIR] [PORT]     (defaults: target/npm, a free port)
//
// Also imported by browser.test.mjs. The server is the tests' one (tests/support/harness.mjs).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../support/harness.mjs';
import { root, outDir as defaultOutDir, assertBuilt } from './load.mjs';

/** Starts the server on 127.0.0.1; resolves to `{ server, url }`. */
export function serveExample({ outDir = defaultOutDir, port = 0 } = {}) {
  assertBuilt('web');
  return serveStatic(
    [
      ['/crdlab/', path.join(outDir, 'web')],
      ['/crdlab-bundler/', path.join(outDir, 'bundler')],
      ['/', path.join(root, 'static')],
    ],
    { port, home: '/npm-example.html' },
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, port] = process.argv.slice(2);
  const { url } = await serveExample({ outDir: dir ? path.resolve(dir) : defaultOutDir, port: Number(port || 0) });
  console.log(`crdlab npm example: ${url}  (Ctrl-C stops)`);
}
