// The docs-page widget on a page built by a real static site generator: MkDocs (PyPI, in
// tools/mkdocs-venv, installed by scripts/install-tools) builds tests/widget/mkdocs/ — two
// `<div class="crdlab-example" markdown>` blocks of fenced code, one by position, one named by
// the fences' info strings (load=click) — with the widget (web/widget/build.mjs, from the npm
// package's web build: CRDLAB_NPM_DIR, default target/npm) copied into docs/assets/crdlab/ as a
// site author would. Everything happens in a temporary folder.
//
// Run from the repo root: node --test tests/browser/widget-mkdocs.test.mjs
// Env: CRDLAB_WIDGET_SCREENSHOT=FILE also writes a screenshot of the first widget (the README's).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launchBrowser, openPage, root, serveStatic, stopServer, WAIT } from '../support/harness.mjs';
import { buildWidget } from '../support/widgets.mjs';

const mkdocs = path.join(root, 'tools', 'mkdocs-venv', 'bin', 'mkdocs');

let tmp;
let server;
let baseUrl;
let browser;

before(async () => {
  if (!fs.existsSync(mkdocs)) throw new Error(`${mkdocs} is missing: run scripts/install-tools`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-widget-mkdocs-'));
  fs.cpSync(path.join(root, 'tests', 'widget', 'mkdocs'), path.join(tmp, 'src'), { recursive: true });
  buildWidget(path.join(tmp, 'src', 'docs', 'assets', 'crdlab'));
  execFileSync(mkdocs, ['build', '--quiet', '--strict', '--site-dir', path.join(tmp, 'site')], { cwd: path.join(tmp, 'src'), stdio: 'inherit' });
  ({ server, url: baseUrl } = await serveStatic([['/', path.join(tmp, 'site')]]));
  browser = await launchBrowser({ viewport: { width: 1100, height: 400 } });
});

after(async () => {
  await browser?.close();
  await stopServer(server);
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const widgets = (page) => page.locator('crdlab-example');
const waitState = (page, i, states) =>
  page.waitForFunction(([i, states]) => states.includes(document.querySelectorAll('crdlab-example')[i]?.getAttribute('state')), [i, states], { timeout: WAIT * 2 });

test('the MkDocs page: fenced blocks become live widgets', { timeout: 180_000 }, async () => {
  const { page, pageErrors, requests } = await openPage(browser.context, baseUrl);
  await page.waitForFunction(() => document.querySelectorAll('crdlab-example[state=idle]').length === 2, null, { timeout: WAIT }).catch(async (e) => {
    throw new Error(`${e.message}: ${JSON.stringify(await page.evaluate(() => [...document.querySelectorAll('crdlab-example, div.crdlab-example')].map((w) => [w.tagName, w.getAttribute('state'), w.getBoundingClientRect().top])))} ${pageErrors}`);
  });
  assert.equal(await page.locator('div.crdlab-example').count(), 0, 'both divs upgraded');
  assert.match(await widgets(page).first().locator('.panel:not([hidden]) pre').innerText(), /name: docs-example/);
  await page.waitForTimeout(500);
  assert.deepEqual(requests.filter((u) => /crdlab-engine\/|crdlab-editor\.js/.test(u)), [], 'no engine request before a widget is in view');

  // The upgraded block keeps its height once the engine and editor replace the static text.
  const height = () => widgets(page).first().evaluate((w) => w.getBoundingClientRect().height);
  const heightBefore = await height();
  await widgets(page).first().scrollIntoViewIfNeeded();
  await waitState(page, 0, ['valid']);
  const heightAfter = await height();
  console.log(`widget-mkdocs: height ${heightBefore.toFixed(1)} px before the engine loaded, ${heightAfter.toFixed(1)} px after`);
  assert.ok(Math.abs(heightAfter - heightBefore) < 1, `no layout shift: ${heightBefore}px before the engine loaded, ${heightAfter}px after`);
  const kubectl = (i) => widgets(page).nth(i).locator('[data-testid=kubectl]').innerText();
  assert.equal(await kubectl(0), 'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\nwidget.example.com/docs-example created');

  // An edit changes the verdict; the error is at its field.
  const content = widgets(page).first().locator('[data-testid="crdlab-object"]');
  await content.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Backspace'); // the trailing newline
  await page.keyboard.press('Backspace'); // "3"
  await page.keyboard.type('0');
  await waitState(page, 0, ['invalid']);
  assert.equal(await kubectl(0), 'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\nThe Widget "docs-example" is invalid: spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1');
  await widgets(page).first().locator('.cm-lintRange-error').first().waitFor();
  if (process.env.CRDLAB_WIDGET_SCREENSHOT) {
    // The README's picture: the widget with the paragraph above it, in the MkDocs theme.
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.keyboard.press('Escape');
    await widgets(page).first().evaluate((w) => w.scrollIntoView({ block: 'center' }));
    const box = await widgets(page).first().boundingBox();
    await page.screenshot({ path: process.env.CRDLAB_WIDGET_SCREENSHOT, clip: { x: box.x - 16, y: box.y - 70, width: box.width + 32, height: box.height + 86 } });
    await page.setViewportSize({ width: 1100, height: 400 });
  }
  assert.ok((await widgets(page).first().locator('.cm-lintRange-error').allInnerTexts()).includes('0'), 'the 0 is underlined');

  // The blocks named by their info strings (object, old-object, crd): an update, run on click.
  await widgets(page).nth(1).scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  assert.equal(await widgets(page).nth(1).getAttribute('state'), 'idle');
  await widgets(page).nth(1).locator('button:text("Run")').click();
  await waitState(page, 1, ['invalid']);
  assert.equal(await kubectl(1), 'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\nThe Widget "docs-example" is invalid: spec: Invalid value: "object": replicas may not decrease');

  assert.equal(requests.filter((u) => u.endsWith('/crdlab_bg.wasm')).length, 1);
  assert.deepEqual(requests.filter((u) => !u.startsWith(baseUrl)), []);
  assert.deepEqual(pageErrors, []);
  await page.close();
});
