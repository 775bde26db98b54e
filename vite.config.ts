// attnlab as a Slidev addon (`addons: ['attnlab']` in a deck's headmatter): Slidev merges this file
// into the deck's Vite config, in `slidev` (dev server), `slidev build` and `slidev export`, together
// with ./setup/main.ts (registers the widgets) and ./components/ (AttnStepper). It is not the app's
// config: that is web/app/vite.config.js (`npm start`, `npm run build`).
//
// No imports but Node's own on purpose: Slidev loads this file from wherever the package is installed (a
// copy in the deck's node_modules or, after `npm install /path/to/attnlab`, this checkout through a symlink).
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'

const addonRoot = import.meta.dirname

// The packages the widgets import (lit, KaTeX, the GPT-2 tokenizer of the model's worker), bundled by
// the dev server's dependency optimizer when it starts. This repository's decks (the addon at '@/../..')
// left them for it to find as the print view first imported them: it bundled them then and reloaded
// the page ("optimized dependencies changed. reloading"), and on a fresh clone `slidev export` could
// print a page that had just reloaded, a widget still blank (a CI run's convex slide). Only those the
// deck's folder resolves are named: a deck with attnlab linked from elsewhere keeps them in attnlab's
// own folder, where the optimizer's scan of the linked source finds them anyway.
const WIDGET_DEPS = ['lit', 'lit/directive.js', 'lit/directive-helpers.js', 'lit/directives/guard.js', 'katex',
  'gpt-tokenizer/encoding/r50k_base', 'gpt-tokenizer/bpeRanks/r50k_base']

/** True when `pkg` is installed in a node_modules folder of `from` or a folder above it. */
function installedFrom(from: string, pkg: string): boolean {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', pkg, 'package.json'))) return true
    if (dirname(dir) === dir) return false
  }
}

export default {
  optimizeDeps: { include: WIDGET_DEPS.filter(id => installedFrom(process.cwd(), id.split('/')[0])) },
  // The widgets' .wasm must be served from the package even when it is a symlink to a folder outside
  // the deck (Slidev allows an addon's root too; this keeps it explicit).
  server: { fs: { allow: [addonRoot] } },
  build: {
    // Keep the .wasm a separate, hashed file (streaming compilation); leave the deck's other assets alone.
    assetsInlineLimit: (file: string) => (file.endsWith('.wasm') ? false : undefined),
  },
  slidev: {
    vue: {
      template: {
        // <attn-…> tags are Lit custom elements, not Vue components. (A deck that sets its own
        // isCustomElement replaces this one: it must accept `attn-` tags too.)
        compilerOptions: { isCustomElement: (tag: string) => tag.startsWith('attn-') },
      },
    },
    // Presenter → audience sync of edits made inside a widget (setup/attn-sync.ts): the dev server
    // keeps the state next to Slidev's own; a static build syncs tabs over a BroadcastChannel.
    serverRef: { state: { attnlab: { widgets: {} } } },
  },
}
