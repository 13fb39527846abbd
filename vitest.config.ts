import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { sourceEntryPoints } from './scripts/subpaths.ts';

const root = new URL('./', import.meta.url);

// examples/ and the README import the package by name, as a user would; tests run them against
// the source. The map comes from package.json `exports` (scripts/subpaths.ts), so a new entry
// point needs no edit here.
const alias = Object.entries(sourceEntryPoints(root)).map(([specifier, file]) => ({
  find: new RegExp(`^${specifier.replace(/[/\\-]/g, '\\$&')}$`),
  replacement: new URL(file, root).pathname,
}));

// Three projects, one place that says which file is which (npm run test:unit / test:integration /
// test:e2e; `npm test` runs all three):
// - unit: pure code — no network, no child process, no database; fixtures are read from disk.
// - integration: stores, HTTP against the fake provider on 127.0.0.1, the CLI as a child process.
// - e2e: a real browser, a real terminal (tmux), a real `npm install` of the packed package.
/** Tests under src/ that do I/O (servers, databases, processes): integration, not unit. */
const SOURCE_INTEGRATION = [
  'src/stores/**/*.test.ts',
  'src/fake-provider/**/*.test.ts',
  'src/background/**/*.test.ts',
  'src/integrations/overflow.test.ts',
  'src/test/test-entry.test.ts',
];
/** Tests under test/ that are pure (conversions, counting and replays of fixture files): unit. */
const TEST_UNIT = [
  'test/claude-code-import.test.ts',
  'test/count-tokens/openai-published-cases.test.ts',
  'test/malformed-input.property.test.ts',
  'test/open-models.test.ts',
  'test/replay.test.ts',
  'test/supersede-real-data.test.ts',
];
const E2E = [
  'test/web/browser.test.ts',
  'test/web/browser-app.test.ts',
  'test/chat/**/*.test.ts',
  'test/install/**/*.test.ts',
];

export default defineConfig({
  resolve: { alias },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One test file per core. Vitest's default (cores − 1) leaves a 2-core machine one worker,
    // a serial run, although most integration and e2e files spend their time waiting on a child
    // process, a server or a browser. Nothing may depend on the machine being idle: timeouts in
    // tests are behaviour against servers that do not answer, never races against the clock.
    maxWorkers: Math.max(2, availableParallelism()),
    // Per-project totals and every skipped test with the reason, after Vitest's own report.
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', ...TEST_UNIT],
          exclude: [...configDefaults.exclude, ...SOURCE_INTEGRATION],
          // Type tests of the public API (`*.test-d.ts`, expectTypeOf). Errors in other source
          // files are `npm run typecheck`'s to report, once.
          typecheck: {
            enabled: true,
            include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'],
            tsconfig: './tsconfig.typecheck.json',
            ignoreSourceErrors: true,
          },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', ...SOURCE_INTEGRATION],
          exclude: [...configDefaults.exclude, ...TEST_UNIT, ...E2E],
        },
      },
      {
        extends: true,
        test: { name: 'e2e', include: E2E, exclude: [...configDefaults.exclude] },
      },
    ],
  },
});
