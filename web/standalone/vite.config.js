// Vite for the standalone build (scripts/build-standalone.sh runs it twice):
//   ATTNLAB_STANDALONE=module  standalone/attnlab.js: an ES module; the .wasm, the workers, the
//                              snapshots, KaTeX's CSS and fonts and lazy chunks as files under assets/
//   ATTNLAB_STANDALONE=inline  standalone/attnlab.inline.js: a classic script (global `attnlab`) with
//                              every file inlined (base64), the workers from Blob URLs: works from file://
import { defineConfig } from 'vite';
import { resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '../..');
const entry = resolve(import.meta.dirname, 'attnlab.js');
// The inline build also writes its workers' bundles as files (Vite's worker cache): build-standalone.sh
// points it at a scratch folder and keeps attnlab.inline.js alone.
const outDir = process.env.ATTNLAB_STANDALONE_OUT ?? resolve(repo, 'standalone');
const inline = process.env.ATTNLAB_STANDALONE === 'inline';

// KaTeX's stylesheet lists each font as woff2, woff and ttf; every browser with WebAssembly SIMD reads
// woff2, so the other two are dropped (inlined, they tripled the fonts' size). Inside shadow roots
// (the `?inline` copy) @font-face is ignored by browsers: dropped there, so fonts are not inlined twice.
function katexFonts() {
  return {
    name: 'attnlab:katex-fonts',
    enforce: 'pre',
    transform(code, id) {
      if (!/katex\.min\.css(\?|$)/.test(id)) return null;
      if (/[?&]inline\b/.test(id) && !/[?&]document\b/.test(id)) return code.replace(/@font-face\{[^}]*\}/g, '');
      return code.replace(/,url\([^)]*\.woff\) format\("woff"\),url\([^)]*\.ttf\) format\("truetype"\)/g, '');
    },
  };
}

// tex.js imports KaTeX's stylesheet for the document; here the entry links it itself (a page has no
// bundler to put it in <head>), so that import is empty.
function noDocumentKatexImport() {
  const empty = '\0attnlab-empty-css';
  return {
    name: 'attnlab:no-document-katex-import',
    enforce: 'pre',
    resolveId(source) { return source === 'katex/dist/katex.min.css' ? empty : null; },
    load(id) { return id === empty ? '' : null; },
  };
}

// The inline build: katex-document.inline.js instead of katex-document.js (a <style> with the fonts
// inlined), and the Emscripten glue's own default URL of the .wasm left out (the facade always passes
// locateFile or wasmBinary; inlined, that default would be a second base64 copy of the .wasm).
function inlineSwaps() {
  return {
    name: 'attnlab:inline-swaps',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === './katex-document.js' && importer?.endsWith('/web/standalone/attnlab.js'))
        return resolve(import.meta.dirname, 'katex-document.inline.js');
      return null;
    },
    transform(code, id) {
      if (!id.endsWith('/web/api/wasm/attnlab-core.mjs')) return null;
      const from = 'new URL("attnlab-core.wasm",import.meta.url).toString()';
      if (!code.includes(from)) this.error(`attnlab-core.mjs no longer names its .wasm as ${from}`);
      return code.replace(from, '"attnlab-core.wasm"');
    },
  };
}

// The inline build's large files, once: inlined at each `new URL(…)`, the .wasm would be in the page and
// again in each worker's bundle (four copies, 2 MB of base64), the names task's data three times. Here the
// file that locates one takes it from a single `?url` module in the page; a worker's copy reads
// `self.<global>`, which the page puts at the top of the worker's Blob (workerPrefix).
const SHARED = [
  { importer: '/web/api/index.js', from: "new URL('./wasm/attnlab-core.wasm', import.meta.url)",
    file: resolve(repo, 'web/api/wasm/attnlab-core.wasm'), global: '__attnlabWasmUrl' },
  { importer: '/web/train/tasks.js', from: "new URL('./data/names.txt', import.meta.url)",
    file: resolve(repo, 'web/train/data/names.txt'), global: '__attnlabNamesUrl' },
];
function sharedFiles({ inWorker }) {
  return {
    name: 'attnlab:shared-files',
    enforce: 'pre',
    transform(code, id) {
      const f = SHARED.find((x) => id.endsWith(x.importer));
      if (!f) return null;
      if (!code.includes(f.from)) this.error(`${f.importer} no longer locates its file as ${f.from}`);
      if (inWorker) return code.replace(f.from, `new URL(self.${f.global})`);
      return `import ${f.global} from '${f.file}?url';\n${code.replace(f.from, `new URL(${f.global})`)}`;
    },
  };
}

// GPT-2's vocabulary (gpt-tokenizer's bpeRanks/r50k_base, ~470 KB of JS) is needed by the page (the
// API's createGpt2Tokenizer) and by <attn-model>'s worker: inlined, it was in the page's bundle and again
// in the worker's. Here the page's bundle holds it once, as one JSON text in a string (parsed on the first
// createGpt2Tokenizer call); the model worker's Blob starts with `self.__attnlabGpt2Ranks = <that JSON>;`
// (workerPrefix: a JSON array is a JS expression) and its copy of the module reads that.
const RANKS_MODULE = /\/gpt-tokenizer\/esm\/bpeRanks\/r50k_base\.js$/;
const RANKS_TEXT = '\0attnlab-gpt2-ranks-text';
async function ranksJsonLiteral() {
  const { default: bpe } = await import('gpt-tokenizer/bpeRanks/r50k_base');
  const json = JSON.stringify(bpe);
  return `'${json.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')}'`;
}
function sharedGpt2Ranks({ inWorker }) {
  return {
    name: 'attnlab:shared-gpt2-ranks',
    enforce: 'pre',
    resolveId(source) { return source === RANKS_TEXT ? RANKS_TEXT : null; },
    async load(id) {
      if (id === RANKS_TEXT) return `export default ${await ranksJsonLiteral()};`;
      if (!RANKS_MODULE.test(id)) return null;
      if (inWorker) {
        return 'if (!Array.isArray(self.__attnlabGpt2Ranks)) throw new Error("attnlab: this worker was started without GPT-2\'s vocabulary (self.__attnlabGpt2Ranks)");\n'
          + 'export default self.__attnlabGpt2Ranks;';
      }
      return `import text from '${RANKS_TEXT}';\nexport default JSON.parse(text);`;
    },
  };
}

// The page side of sharedFiles: each inline worker's code (Vite's `?worker&inline` module) starts with
// `self.__attnlabWasmUrl = <the page's data: URL>; self.__attnlabNamesUrl = …;`.
function workerPrefix() {
  return {
    name: 'attnlab:worker-prefix',
    transform(code, id) {
      if (!/[?&]worker&inline\b/.test(id)) return null;
      const from = 'const jsContent = ';
      if (!code.includes(from)) this.error(`Vite's inline worker module no longer declares ${from}`);
      let imports = SHARED.map((f) => `import ${f.global} from '${f.file}?url';\n`).join('');
      let prefix = SHARED.map((f) => `'self.${f.global} = ' + JSON.stringify(${f.global}) + ';\\n' + `).join('');
      if (/\/model\.worker\.js\?/.test(id)) {  // the one worker that tokenizes (sharedGpt2Ranks)
        imports += `import __attnlabGpt2Ranks from '${RANKS_TEXT}';\n`;
        prefix += `'self.__attnlabGpt2Ranks = ' + __attnlabGpt2Ranks + ';\\n' + `;
      }
      return `${imports}${code.replace(from, `${from}${prefix}`)}`;
    },
  };
}

// The inline build's workers (training: web/train/trainer.js; <attn-model>: web/widgets/model/backend.js):
// each `new Worker(new URL('./x.worker.js', import.meta.url), { type: 'module' })` becomes Vite's inline
// worker (the worker's bundle as a string, started from a Blob URL, as a classic worker: see `worker`
// below), since a file:// page may not start a worker from a file.
const WORKER_RE = /new Worker\(new URL\('(\.\/[\w-]+\.worker\.js)', import\.meta\.url\), \{ type: 'module' \}\)/g;
function inlineWorkers() {
  const expected = ['/web/train/trainer.js', '/web/widgets/model/backend.js'];
  const seen = new Set();
  return {
    name: 'attnlab:inline-workers',
    enforce: 'pre',
    transform(code, id) {
      if (!/\/web\/.*\.js$/.test(id) || !code.includes('new Worker(')) return null;
      const imports = [];
      const out = code.replace(WORKER_RE, (_, file) => {
        const name = `AttnLabInlineWorker${imports.length}`;
        imports.push(`import ${name} from '${file}?worker&inline';`);
        return `new ${name}()`;
      });
      if (!imports.length) this.error(`${id} starts a worker in a form the inline build does not know`);
      seen.add(expected.find((e) => id.endsWith(e)) ?? id);
      return `${imports.join('\n')}\n${out}`;
    },
    buildEnd() {
      for (const e of expected) if (!seen.has(e)) this.error(`the inline build inlined no worker from ${e}`);
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  publicDir: false,
  logLevel: 'warn',
  plugins: [katexFonts(), noDocumentKatexImport(), ...(inline ? [inlineSwaps(), inlineWorkers(), sharedFiles({ inWorker: false }), sharedGpt2Ranks({ inWorker: false }), workerPrefix()] : [])],
  // Workers are bundled by a build of their own: the plugins that apply inside them again.
  // Inline, they are classic scripts: Chromium starts no module worker from the Blob URL of a file://
  // page (its origin is opaque), a classic one it does.
  worker: { format: inline ? 'iife' : 'es', plugins: () => [katexFonts(), ...(inline ? [inlineSwaps(), sharedFiles({ inWorker: true }), sharedGpt2Ranks({ inWorker: true })] : [])] },
  build: {
    outDir,
    emptyOutDir: false,
    target: 'es2022',
    chunkSizeWarningLimit: 5000,
    ...(inline ? {
      // Library mode inlines every asset (the .wasm, snapshots, fonts) as a data: URL.
      lib: { entry, formats: ['iife'], name: 'attnlab', fileName: () => 'attnlab.inline.js' },
      // A classic script has no import.meta: its URL is document.currentScript's, read as it starts.
      rollupOptions: {
        transform: { define: { 'import.meta.url': '__attnlabScriptUrl' } },
        output: { intro: "const __attnlabScriptUrl = (typeof document < 'u' && document.currentScript?.src) || globalThis.location?.href;" },
      },
    } : {
      assetsInlineLimit: 0,  // the .wasm stays a file: streaming compilation, cached apart from the JS
      rollupOptions: {
        input: { attnlab: entry },
        preserveEntrySignatures: 'exports-only',
        output: {
          entryFileNames: '[name].js',
          chunkFileNames: 'assets/[name]-[hash].js',
          assetFileNames: 'assets/[name]-[hash][extname]',
        },
      },
    }),
  },
});
