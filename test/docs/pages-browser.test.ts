// The documentation pages in a real browser: headless Chromium (Debian's `chromium`, or
// CHROMIUM_PATH) opens /docs and /docs/events, and every operation of the OpenAPI document and
// every operation (event) of the AsyncAPI document is rendered, with no script error and no
// Content-Security-Policy violation. Screenshots are kept under .tmp/screenshots (a CI artifact).
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient } from '../helpers/api.js';

const booted = useTestServer();
const SCREENSHOTS = path.resolve('.tmp/screenshots');
const RENDER_TIMEOUT_MS = 60_000;

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** In CI the browser must be there (.ci/run installs it); elsewhere the browser tests skip without one. */
const browserMissing = process.env.CI !== 'true' && !fs.existsSync(executablePath);

let browser: Browser;
beforeAll(async () => {
  if (browserMissing) return;
  if (!fs.existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath} (install Debian's chromium or set CHROMIUM_PATH)`);
  const asRoot = process.getuid?.() === 0;
  browser = await chromium.launch({ executablePath, args: asRoot ? ['--no-sandbox'] : [] });
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** A page that records script errors, failed requests and console errors (CSP reports come as those). */
async function openPage(url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()} for ${res.url()}`);
  });
  const res = await page.goto(url);
  expect(res?.status()).toBe(200);
  return { page, problems };
}

describe.skipIf(browserMissing)('GET /docs in headless Chromium', () => {
  it('renders every operation of the OpenAPI document', { timeout: 120_000 }, async () => {
    const doc = (await new ApiClient(booted.url).get('/api/v1/openapi.json')).body;
    const expected = Object.entries<any>(doc.paths)
      .flatMap(([p, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${p}`))
      .sort();

    const { page, problems } = await openPage(`${booted.url}/docs`);
    await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, expected.length, { timeout: RENDER_TIMEOUT_MS });
    const rendered = await page.$$eval('.opblock', (blocks) =>
      blocks.map(
        (b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
      ),
    );
    await page.screenshot({ path: path.join(SCREENSHOTS, 'docs.png'), fullPage: true });
    expect(rendered.sort()).toEqual(expected);
    // The page's own title and tag descriptions come from the document.
    expect(await page.textContent('.info .title')).toContain(doc.info.title);
    expect(await page.textContent('body')).toContain(doc.tags.find((t: any) => t.name === 'auth').description);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe.skipIf(browserMissing)('GET /docs/events in headless Chromium', () => {
  it('renders every operation (event, both directions) of the AsyncAPI document', { timeout: 120_000 }, async () => {
    const doc = (await new ApiClient(booted.url).get('/api/v1/asyncapi.json')).body;
    const expected = Object.keys(doc.operations).sort();
    expect(expected.length).toBeGreaterThan(0);

    const { page, problems } = await openPage(`${booted.url}/docs/events`);
    // The renderer gives each operation an element id `operation-<send|receive|reply>-<operationId>`.
    const pattern = '^operation-(send|receive|reply)-([A-Za-z0-9_.-]+)$';
    await page.waitForFunction(
      ([re, n]) => [...document.querySelectorAll('[id^="operation-"]')].filter((e) => new RegExp(re as string).test(e.id)).length >= n,
      [pattern, expected.length] as const,
      { timeout: RENDER_TIMEOUT_MS },
    );
    const rendered = await page.$$eval(
      '[id^="operation-"]',
      (els, re) =>
        els
          .map((e) => new RegExp(re).exec(e.id))
          .filter((m): m is RegExpExecArray => m !== null)
          .map((m) => [m[1], m[2]] as [string, string]),
      pattern,
    );
    await page.screenshot({ path: path.join(SCREENSHOTS, 'docs-events.png'), fullPage: true });
    expect([...new Set(rendered.map(([, id]) => id))].sort()).toEqual(expected);
    // Server events as `send`; client events (with their ack) as `receive`, shown as a reply.
    for (const [kind, id] of rendered) {
      expect(kind === 'send' ? 'send' : 'receive', id).toBe(doc.operations[id].action);
    }
    // Each event name appears on the page.
    const text = (await page.textContent('body')) ?? '';
    for (const op of Object.values<any>(doc.operations)) expect(text, op.title).toContain(op.title);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('documentation assets', () => {
  it('serves only allow-listed files, with types, validators and gzip', async () => {
    const api = new ApiClient(booted.url);
    const bundle = await fetch(`${booted.url}/docs/assets/swagger-ui-bundle.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(bundle.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const etag = bundle.headers.get('etag')!;
    expect(etag).toBeTruthy();
    await bundle.arrayBuffer();
    const again = await fetch(`${booted.url}/docs/assets/swagger-ui-bundle.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);

    for (const name of ['package.json', 'index.html', '..%2Fpackage.json', 'swagger-ui-bundle.js.map']) {
      const res = await api.get(`/docs/assets/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.body.success).toBe(false);
    }
    const page = await fetch(`${booted.url}/docs`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'(;|$)/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//); // no CDN
    expect(html).not.toMatch(/<script>/); // no inline script
  });
});
