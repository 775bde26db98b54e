// Serves dist/ for the browser tests; the URL reaches the tests through ATTNLAB_E2E_URL.
import { existsSync } from 'node:fs';
import { serveDist } from './server.mjs';

export default async function setup() {
  if (!existsSync(new URL('../../dist/index.html', import.meta.url)))
    throw new Error('dist/ is missing: run `npm run build` first');
  const server = await serveDist();
  process.env.ATTNLAB_E2E_URL = `http://127.0.0.1:${server.address().port}/`;
  return () => new Promise((ok) => server.close(ok));
}
