// Vite options for the Slidev deck (Slidev merges this file into its own config).
import { defineConfig } from 'vite'
import { resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '../..')

export default defineConfig({
  // The widgets and the WASM core live outside the deck folder.
  server: { fs: { allow: [repo] } },
  build: { assetsInlineLimit: 0, chunkSizeWarningLimit: 4000 },
  vue: {
    template: {
      // <attn-…> tags are Lit custom elements, not Vue components.
      compilerOptions: { isCustomElement: (tag: string) => tag.startsWith('attn-') },
    },
  },
  slidev: {
    // The synced widget state (setup/attn-sync.ts) lives next to Slidev's own nav state on the dev
    // server; in a static build the presenter and audience tabs sync over a BroadcastChannel.
    serverRef: { state: { attnlab: { widgets: {} } } },
  },
} as any)
