// Serves the npm package's example page: static/npm-example.html at /, the rest of static/,
// and the web build of the package (OUT_DIR/web) under /crdlab/.
//
//   node tests/npm/serve.mjs [OUT_DIR] [PORT]     (defaults: target/npm, a free port)
//
// Also imported by browser.test.mjs.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, outDir as defaultOutDir, assertBuilt } from './load.mjs';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.yaml': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Starts the server on 127.0.0.1; resolves to `{ server, url }`. */
export function serveExample({ outDir = defaultOutDir, port = 0 } = {}) {
  assertBuilt('web');
  const mounts = [
    ['/crdlab/', path.join(outDir, 'web')],
    ['/', path.join(root, 'static')],
  ];
  return new Promise((resolve, reject) => {
    const server = http.createServer((req, res) => {
      let rel = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
      if (rel === '/') rel = '/npm-example.html';
      const [prefix, dir] = mounts.find(([p]) => rel.startsWith(p));
      const file = path.resolve(dir, '.' + rel.slice(prefix.length - 1));
      if (!file.startsWith(dir + path.sep)) {
        res.writeHead(403).end();
        return;
      }
      fs.readFile(file, (err, data) => {
        if (err) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
          return;
        }
        res.writeHead(200, {
          'content-type': MIME[path.extname(file)] || 'application/octet-stream',
          'cache-control': 'no-store',
        });
        res.end(data);
      });
    });
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` }));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, port] = process.argv.slice(2);
  const { url } = await serveExample({ outDir: dir ? path.resolve(dir) : defaultOutDir, port: Number(port || 0) });
  console.log(`crdlab npm example: ${url}  (Ctrl-C stops)`);
}
