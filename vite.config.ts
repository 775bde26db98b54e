// attnlab as a Slidev addon (`addons: ['attnlab']` in a deck's headmatter): Slidev merges this file
// into the deck's Vite config, in `slidev` (dev server), `slidev build` and `slidev export`, together
// with ./setup/main.ts (registers the widgets) and ./components/ (AttnStepper). It is not the app's
// config: that is web/app/vite.config.js (`npm start`, `npm run build`).
//
// No imports on purpose: Slidev loads this file from wherever the package is installed (a copy in the
// deck's node_modules or, after `npm install /path/to/attnlab`, this checkout through a symlink).
const addonRoot = import.meta.dirname

export default {
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
