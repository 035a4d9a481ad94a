// The docs-page widget on a Hugo site, set up as the README's Hugo snippet says: Debian's
// `hugo` builds tests/widget/hugo/ (the module script in the base template, a `crdlab`
// shortcode whose Markdown fenced blocks Hugo renders with Chroma's highlighting) with the
// widget (web/widget/build.mjs, from the npm package's web build: CRDLAB_NPM_DIR, default
// target/npm) copied into static/crdlab/ as a site author would. Everything happens in a
// temporary folder.
//
// Run from the repo root: node --test tests/browser/widget-hugo.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launchBrowser, openPage, root, serveStatic, stopServer, WAIT } from '../support/harness.mjs';
import { buildWidget } from '../support/widgets.mjs';

const hugo = process.env.HUGO || '/usr/bin/hugo';

let tmp;
let server;
let baseUrl;
let browser;

before(async () => {
  if (!fs.existsSync(hugo)) throw new Error(`${hugo} is missing: run scripts/install-tools`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-widget-hugo-'));
  fs.cpSync(path.join(root, 'tests', 'widget', 'hugo'), path.join(tmp, 'src'), { recursive: true });
  buildWidget(path.join(tmp, 'src', 'static', 'crdlab'));
  execFileSync(hugo, ['--quiet', '--destination', path.join(tmp, 'site')], { cwd: path.join(tmp, 'src'), stdio: 'inherit' });
  ({ server, url: baseUrl } = await serveStatic([['/', path.join(tmp, 'site')]]));
  browser = await launchBrowser({ viewport: { width: 1100, height: 300 } });
});

after(async () => {
  await browser?.close();
  await stopServer(server);
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the Hugo page: the shortcode\'s fenced blocks become a live widget', { timeout: 180_000 }, async () => {
  const { page, pageErrors, requests } = await openPage(browser.context, baseUrl);
  const widget = page.locator('crdlab-example');
  await page.waitForFunction(() => document.querySelector('crdlab-example')?.getAttribute('state') === 'idle', null, { timeout: WAIT });
  assert.equal(await page.locator('div.crdlab-example').count(), 0, 'the div is upgraded');
  assert.equal(await widget.getAttribute('kubernetes-version'), '1.32');
  assert.ok(await widget.evaluate((w) => w.getBoundingClientRect().top > innerHeight), 'below the fold');
  await page.waitForTimeout(500);
  assert.deepEqual(requests.filter((u) => /crdlab-engine\/|crdlab-editor\.js/.test(u)), [], 'no engine request before the widget is in view');

  await widget.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('crdlab-example').getAttribute('state') === 'valid', null, { timeout: WAIT * 2 });
  const kubectl = () => widget.locator('[data-testid=kubectl]').innerText();
  assert.equal(await kubectl(), 'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\nwidget.example.com/docs-example created');

  // An edit changes the verdict.
  await widget.locator('[data-testid="crdlab-object"]').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Backspace'); // the trailing newline
  await page.keyboard.press('Backspace'); // "3"
  await page.keyboard.type('0');
  await page.waitForFunction(() => document.querySelector('crdlab-example').getAttribute('state') === 'invalid', null, { timeout: WAIT * 2 });
  assert.equal(await kubectl(), 'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\nThe Widget "docs-example" is invalid: spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1');

  assert.deepEqual(requests.filter((u) => !u.startsWith(baseUrl)), []);
  assert.deepEqual(pageErrors, []);
  await page.close();
});
