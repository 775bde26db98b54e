// browser.js's watchedPage decides what the other browser tests count as a problem: a request the page
// being left still made while the next one loaded, aborted by the browser, is not; a failure of the
// page's own requests is.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BASE_URL, launch, watchedPage } from './browser.js';

let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

test('a reload: what the old document asks for until the new one commits is aborted and not counted; a failed request of the new one is', async () => {
  const { page, problems } = await watchedPage(browser.context);
  const url = BASE_URL();
  // Requests that take 2 s (still in flight when the reload commits), and the reload's document held
  // 600 ms, so the old document goes on asking for them after the reload's request has gone out.
  await page.route(/\/slow\?/, async (route) => { await new Promise((ok) => setTimeout(ok, 2000)); await route.fulfill({ body: 'x' }); });
  await page.goto(url);
  let hold = true;
  await page.route((u) => u.href === url && hold, async (route) => {
    await new Promise((ok) => setTimeout(ok, 600));
    hold = false;
    await route.continue();
  });
  const asked = page.evaluate(() => new Promise((ok) => {
    let n = 0;
    setInterval(() => { n += 1; fetch(`/slow?${Math.random()}`).catch(() => {}); if (n === 10) ok(n); }, 20);
  }));
  await asked;
  await page.reload();
  await page.waitForTimeout(300);
  expect(problems).toEqual([]);
  // The new document's own failed request is still a problem.
  await page.route('**/gone.js', (route) => route.abort('failed'));
  await page.evaluate(() => fetch('/gone.js').catch(() => 0));
  await expect.poll(() => problems.filter((p) => p.includes('/gone.js')).length).toBe(1);
  await page.close();
});
