// Browser tests: real Chromium (Debian's /usr/bin/chromium) driven by playwright-core, against the
// static build in dist/ served on localhost by tests/e2e/server.mjs.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.e2e.test.js'],
    environment: 'node',
    globalSetup: ['tests/e2e/global-setup.js'],
    testTimeout: 120000,
    hookTimeout: 120000,
    fileParallelism: false,  // one browser at a time on a 2-core machine
  },
});
