// Vite for the reveal.js deck: `npx vite build -c slides/reveal/vite.config.js` writes
// dist/slides/reveal/ with relative URLs (works under any path of any static server).
import { defineConfig } from 'vite';
import { resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '../..');

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  publicDir: false,
  server: { host: 'localhost', fs: { allow: [repo] } },
  build: {
    outDir: resolve(repo, 'dist/slides/reveal'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,  // the .wasm stays a file: streaming compilation
    chunkSizeWarningLimit: 2000,
  },
});
