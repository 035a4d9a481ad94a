// Shared by the playground's browser tests and benchmarks: serves dist/ (built by
// `trunk build --release`) and launches headless Chromium, both through the tests' one
// harness (tests/support/harness.mjs). Env: CHROMIUM (default /usr/bin/chromium), DIST
// (default dist).

import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser, openPage, root, serveStatic, stopServer, WAIT } from '../support/harness.mjs';

export { root, WAIT };
export const dist = path.resolve(root, process.env.DIST || 'dist');

// The headers that make the page cross-origin isolated, as Trunk.toml's `[serve.headers]`
// sends them: the engine worker then also answers through shared memory (web/src/worker.rs).
export const ISOLATION = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
};

// `isolated: false` serves dist/ as a host that sends no such headers does.
export async function launch({ isolated = true } = {}) {
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    throw new Error(`${dist}/index.html is missing: run \`trunk build --release\` first`);
  }
  const { server, url: baseUrl } = await serveStatic([['/', dist]], { headers: () => (isolated ? ISOLATION : {}) });
  let browser;
  try {
    browser = await launchBrowser({ viewport: { width: 1280, height: 800 } });
  } catch (e) {
    await stopServer(server);
    throw e;
  }
  const close = async () => {
    await browser.close();
    await stopServer(server);
  };
  return { context: browser.context, baseUrl, close };
}

// A new page on the playground (optionally with a #fragment). Records page errors and every
// request, so tests can assert that nothing leaves 127.0.0.1 and nothing is fetched after load.
export async function openPlayground(context, baseUrl, fragment = '') {
  const opened = await openPage(context, baseUrl + fragment);
  await opened.page.getByTestId('results').waitFor({ state: 'visible' });
  await opened.page.locator('.cm-content').first().waitFor({ state: 'visible' });
  // What the page fetches at start ends before the tests count requests: the engine worker's
  // script and the page icon can come after `load` (CI once counted the worker's script as a
  // request made by an edit, on a loaded machine).
  await opened.page.waitForLoadState('networkidle', { timeout: WAIT });
  return opened;
}

// Replaces an editor's whole text as a person would: click, select all, then type it in
// (short texts) or paste it (long ones: a clipboard paste event, as Ctrl+V delivers; typing
// megabytes through the DOM would take minutes).
export async function setEditor(page, testid, text) {
  const ed = page.getByTestId(testid);
  await ed.click();
  await page.keyboard.press('Control+A');
  if (text === '') await page.keyboard.press('Delete');
  else if (text.length < 20_000) await page.keyboard.insertText(text);
  else {
    await ed.evaluate((el, t) => {
      const data = new DataTransfer();
      data.setData('text/plain', t);
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, text);
  }
}

export async function editorText(page, testid) {
  return page.getByTestId(testid).evaluate((el) => el.cmView?.view?.state?.doc?.toString() ?? el.innerText);
}
