// Launches Debian's Chromium through playwright-core and watches a page for what users would hit:
// console errors, uncaught exceptions, failed requests, and any request that leaves localhost.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BASE_URL = () => process.env.ATTNLAB_E2E_URL;

export async function launch() {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const close = async () => {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { context, close };
}

// A page whose problems are collected in `problems` (tests assert it stays empty).
export async function watchedPage(context) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!['data:', 'blob:'].includes(u.protocol) && !['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname))
      problems.push(`request off localhost: ${r.url()}`);
  });
  return { page, problems };
}
