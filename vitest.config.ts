import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // examples/ import the package by name, as a user would; tests run them against the source.
  resolve: {
    alias: [
      { find: /^chatfold$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
      {
        find: /^chatfold\/(ai-sdk|openai)$/,
        replacement: fileURLToPath(new URL('./src/integrations/$1/index.ts', import.meta.url)),
      },
      {
        find: /^chatfold\/(sqlite|postgres|jsonl)$/,
        replacement: fileURLToPath(new URL('./src/stores/$1/index.ts', import.meta.url)),
      },
      {
        find: /^chatfold\/pg-boss$/,
        replacement: fileURLToPath(new URL('./src/background/pg-boss-queue.ts', import.meta.url)),
      },
      {
        find: /^chatfold\/agent$/,
        replacement: fileURLToPath(new URL('./src/agent/index.ts', import.meta.url)),
      },
      {
        find: /^chatfold\/(strategies|summarize|models|evaluation|test)$/,
        replacement: fileURLToPath(new URL('./src/$1/index.ts', import.meta.url)),
      },
      {
        find: /^chatfold\/fake-provider$/,
        replacement: fileURLToPath(new URL('./src/fake-provider/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Type tests of the public API (`*.test-d.ts`, expectTypeOf) run in `npm test` too. Errors in
    // other source files are `npm run typecheck`'s to report, once.
    typecheck: {
      enabled: true,
      include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'],
      tsconfig: './tsconfig.typecheck.json',
      ignoreSourceErrors: true,
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
