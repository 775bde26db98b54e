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
  // ATTNLAB_E2E_CPU_THROTTLE=6 runs the page as a machine 6× slower would (Chromium's CPU throttling):
  // how the races a loaded CI machine meets are reproduced here.
  const slow = Number(process.env.ATTNLAB_E2E_CPU_THROTTLE ?? 0);
  if (slow > 1) await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: slow });
  // ATTNLAB_E2E_NET_DELAY_MS=400 holds every script, style and .wasm that long before it is served, as a
  // server on a loaded machine does: Slidev's lazily loaded slides then mount late (a race found this way).
  const delay = Number(process.env.ATTNLAB_E2E_NET_DELAY_MS ?? 0);
  if (delay > 0) {
    await page.route(/\.(js|mjs|css|wasm)(\?|$)/, async (route) => {
      await new Promise((ok) => setTimeout(ok, delay));
      await route.continue();
    });
  }
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  // A request the page still had in flight when it navigated (a reload, a new URL) is aborted by the
  // browser, not failed: the app loads widget code and snapshots in idle time, so a reload can catch
  // some. Each request carries the document it was made by (an epoch, moved on by every main-frame
  // navigation); an abort of an earlier document's request is not a problem, any other failure is.
  // The old document runs on from the navigation's request until the new one commits: what it asks
  // for then is its own (a CI run counted a widget's code, asked for by the page being reloaded).
  let epoch = 0, navigating = false;
  const madeIn = new WeakMap();
  page.on('requestfailed', (r) => {
    const text = r.failure()?.errorText ?? '';
    if (text === 'net::ERR_ABORTED' && (madeIn.get(r) ?? epoch) < epoch) return;
    problems.push(`request failed: ${r.url()} ${text}`);
  });
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigating = false; });
  page.on('request', (r) => {
    const navigation = r.isNavigationRequest() && r.frame() === page.mainFrame();
    if (navigation) { epoch++; navigating = true; }
    madeIn.set(r, navigating && !navigation ? epoch - 1 : epoch);
    const u = new URL(r.url());
    if (!['data:', 'blob:'].includes(u.protocol) && !['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname))
      problems.push(`request off localhost: ${r.url()}`);
  });
  return { page, problems };
}
