import { defineConfig } from 'vitest/config';

// The example's Vitest suite, from the TypeScript source. `capstan/testing` is
// the package's own build: loaded by Node as it is, not through Vite's transform.
export default defineConfig({
  test: {
    include: ['test/*.vitest.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    server: { deps: { external: [/\/dist\/src\//] } },
  },
});
