// Vite: the app lives in web/app/; `vite build` writes the static site to dist/.
import { defineConfig } from 'vite';
import { resolve } from 'node:path';

export default defineConfig({
  root: resolve(import.meta.dirname, 'web/app'),
  base: './',  // relative URLs: dist/ works from any static server's root (or a sub-folder)
  publicDir: false,
  server: { host: 'localhost', fs: { allow: [resolve(import.meta.dirname)] } },
  build: {
    outDir: resolve(import.meta.dirname, 'dist'),
    emptyOutDir: false,  // dist/slides/ is written by the slide builds
    target: 'es2022',
    assetsInlineLimit: 0,  // keep the .wasm a separate file: streaming compilation, cacheable
  },
});
