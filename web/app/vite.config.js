// Vite for the app (web/app/): `vite build -c web/app/vite.config.js` writes the static site to dist/.
// It lives here, not at the repository root, because the root is attnlab's Slidev addon: Slidev merges
// an addon's root vite.config.* into every deck that uses it (that file is ../../vite.config.ts).
import { defineConfig } from 'vite';
import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import { compileLitTemplates } from '@lit-labs/compiler';

const repo = resolve(import.meta.dirname, '../..');
const builtDecks = resolve(repo, 'dist/slides');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.ico': 'image/x-icon',
};

// Dev server only: /slides/… is served from dist/slides/ (the decks as `npm run build` or `npm start`
// built them), so the app's "Slidev · reveal.js" links reach the decks instead of falling back to the
// app page. To edit a deck live, use its own dev server (README, "Lecture decks").
function serveBuiltDecks() {
  return {
    name: 'attnlab:serve-built-decks',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use('/slides', (req, res, next) => {
        const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
        let file = resolve(builtDecks, `.${path}`);
        if (file !== builtDecks && !file.startsWith(builtDecks + sep)) return next();
        if (existsSync(file) && statSync(file).isDirectory()) {
          if (!path.endsWith('/')) {  // relative URLs inside the deck need the trailing slash
            res.writeHead(301, { Location: `${req.originalUrl.split('?')[0]}/` });
            return res.end();
          }
          file = join(file, 'index.html');
        }
        if (!existsSync(file) || !statSync(file).isFile()) {
          if (path === '/' || /^\/(slidev|reveal)\/?$/.test(path)) {
            res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
            return res.end('The decks are not built: run `npm start` (it builds them) or `npm run build`.\n');
          }
          return next();
        }
        res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' });
        createReadStream(file).pipe(res);
      });
    },
  };
}

// Build only: the app page preloads the WebAssembly core (its hashed file), so the bytes arrive while the
// page's scripts load instead of being asked for after they ran (the first widget's getLab() is the
// loader's fetch, served from this preload: same URL, same CORS mode). At 4x CPU throttling the fetch
// started ~0.3 s after navigation's scripts had been fetched; the compile then waited for it.
function preloadWasm() {
  return {
    name: 'attnlab:preload-wasm',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        if (!ctx.bundle || !ctx.filename.endsWith(`${sep}index.html`)) return html;
        const wasm = Object.keys(ctx.bundle).find((f) => /attnlab-core-[\w-]+\.wasm$/.test(f));
        if (!wasm) return html;
        return [{ tag: 'link', attrs: { rel: 'preload', href: `./${wasm}`, as: 'fetch', type: 'application/wasm', crossorigin: '' }, injectTo: 'head' }];
      },
    },
  };
}

// The KaTeX stylesheet that widgets/shared/tex.js imports at document level is there for its @font-face
// rules (a font face declared inside a shadow root is not used); its other ~300 rules style formulas,
// which are all inside shadow roots and get them from tex.js's ?inline copy. In the page's stylesheets
// those rules matched nothing (23 -> 5 kB of CSS). The saving is small: the document's style time at
// 1x went 9 -> 8 ms (a larger 4x A/B difference was this machine's spread).
// Each face keeps only its woff2 source: the page's first frame made a font resource for every url of
// every face (60, in the first style recalculation: ~14 ms of CPU at 4x throttling), though a browser
// loads only the first format it supports, which for every browser that runs WASM SIMD is woff2.
function katexFontsOnly() {
  return {
    name: 'attnlab:katex-fonts-only',
    enforce: 'pre',
    transform(code, id) {
      if (!/[\\/]katex[\\/]dist[\\/]katex(\.min)?\.css$/.test(id)) return null;  // not the ?inline copy
      const faces = code.match(/@font-face\s*\{[^}]*\}/g);
      if (!faces?.length) this.error('KaTeX\'s stylesheet has no @font-face rules: check katexFontsOnly');
      const woff2 = faces.map((face) => face.replace(/src:\s*([^;}]*)/, (all, list) => {
        const src = list.split(/,\s*(?=url\()/).find((s) => /format\(["']?woff2["']?\)/.test(s));
        if (!src) this.error(`a KaTeX font face has no woff2 source: ${face}`);
        return `src: ${src.trim()}`;
      }));
      return { code: woff2.join('\n'), map: null };
    },
  };
}

// Build only: the chunks the page runs before its first numbers (the entry and its static imports) start
// with V8's compile hint `//# allFunctionsCalledOnLoad` (Chromium 136+; other engines ignore a comment):
// their functions are compiled with the file, on the streaming compiler's thread, instead of one by one
// on the main thread the first time each runs. The widgets loaded later are compiled lazily as before.
// Written into the files once they are on disk: Vite puts its preload map at the head of some chunks
// after every generateBundle hook has run, and the comment must come first.
const HINT = '//# allFunctionsCalledOnLoad\n';
function compileHints() {
  return {
    name: 'attnlab:compile-hints',
    apply: 'build',
    writeBundle(options, bundle) {
      const entry = Object.values(bundle).find((c) => c.type === 'chunk' && c.isEntry && c.name === 'main');
      if (!entry) return;
      // The entry and every chunk it imports statically, directly or through another.
      const files = new Set([entry.fileName]);
      for (const f of files) for (const g of bundle[f]?.imports ?? []) files.add(g);
      for (const f of files) {
        const file = join(options.dir, f), code = readFileSync(file, 'utf8');
        if (!code.startsWith(HINT)) writeFileSync(file, HINT + code);
      }
    },
  };
}

// Build only: Lit's `html` templates in attnlab's own modules are prepared at build time (Lit's template
// compiler, a TypeScript transform run on each module that has one): the page no longer parses each
// template's markup and walks it for its bindings the first time it draws it. At 4x CPU throttle
// <attn-steps>' own first update went 136 -> 89 and 213 -> 172 ms (two A/Bs, medians); every widget's
// first draw gains the same way. `svg` templates are left as they are (the compiler takes `html` only).
// Costs ~7 s of build time (a TypeScript program per module). The transform uses the TypeScript the
// compiler depends on (its syntax factory must be the one it built).
const ts = createRequire(createRequire(import.meta.url).resolve('@lit-labs/compiler'))('typescript');
function litTemplatesCompiled() {
  return {
    name: 'attnlab:lit-templates-compiled',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      if (id.includes(`${sep}node_modules${sep}`) || !id.startsWith(resolve(repo, 'web') + sep) || !id.endsWith('.js') || !code.includes('html`')) return null;
      // Named .ts so the compiler's type checker reads it; verbatimModuleSyntax keeps every import as written.
      const out = ts.transpileModule(code, {
        fileName: id.replace(/\.js$/, '.ts'),
        compilerOptions: { target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true, removeComments: false },
        transformers: { before: [compileLitTemplates()] },
      });
      return { code: out.outputText, map: null };
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: './',  // relative URLs: dist/ works from any static server's root (or a sub-folder)
  publicDir: false,
  plugins: [litTemplatesCompiled(), katexFontsOnly(), serveBuiltDecks(), preloadWasm(), compileHints()],
  server: { host: 'localhost', fs: { allow: [repo] } },
  build: {
    outDir: resolve(repo, 'dist'),
    emptyOutDir: false,  // dist/slides/ is written by the slide builds
    target: 'es2022',
    assetsInlineLimit: 0,  // keep the .wasm a separate file: streaming compilation, cacheable
    // fit.html: one widget in a slide-sized box (the browser tests check each widget's slide layout there).
    // train-harness.html: the trainer and its worker, for tests/e2e/trainer.e2e.test.js.
    rollupOptions: { input: { main: resolve(import.meta.dirname, 'index.html'), fit: resolve(import.meta.dirname, 'fit.html'),
      train: resolve(import.meta.dirname, 'train-harness.html') } },
  },
});
