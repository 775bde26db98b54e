// Vitest in Node against the real WebAssembly build (web/api/wasm/, made by scripts/build-wasm.sh).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.js', 'web/**/*.test.js'],
    environment: 'node',
    testTimeout: 60000,
  },
});
