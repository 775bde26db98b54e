// Vite options for the Slidev deck (Slidev merges this file into its own config).
import { defineConfig } from 'vite'
import { resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '../..')

export default defineConfig({
  // The widgets and the WASM core live outside the deck folder.
  server: { fs: { allow: [repo] } },
  build: { assetsInlineLimit: 0, chunkSizeWarningLimit: 4000 },
  slidev: {
    vue: {
      template: {
        // <attn-…> tags are Lit custom elements, not Vue components.
        compilerOptions: { isCustomElement: (tag: string) => tag.startsWith('attn-') },
      },
    },
    // The synced widget state (setup/attn-sync.ts), served by the dev server next to Slidev's nav
    // state; a static build syncs the presenter and audience tabs over a BroadcastChannel instead.
    serverRef: { state: { attnlab: { widgets: {} } } },
  },
} as any)
