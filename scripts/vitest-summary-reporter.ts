// After Vitest's own report: one line per project (unit, integration, e2e) and every skipped
// test grouped by why it was skipped, so a run without a PostgreSQL server or a browser says so
// instead of passing quietly. Loaded by vitest.config.ts (`reporters`).
import type { Reporter, TestCase, TestModule } from 'vitest/node';

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  files: number;
  first: number;
  last: number;
}

const POSTGRES =
  'needs a PostgreSQL server: set DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test (.ci/run sets it); the PGlite tests of the PostgreSQL store ran';
const CHROMIUM =
  'needs Chromium at /usr/bin/chromium (Debian: apt-get install chromium; .ci/run installs it as root)';

/** Why a test was skipped: its `ctx.skip(note)`, else what its name or file says it needs. */
function reasonOf(test: TestCase, note: string | undefined): string {
  if (note !== undefined && note !== '') return note;
  const where = `${test.module.relativeModuleId} ${test.fullName}`;
  if (process.env.DATABASE_URL === undefined && /DATABASE_URL|postgres|pg-?boss/i.test(where))
    return POSTGRES;
  if (/browser\.test/.test(where)) return CHROMIUM;
  if (test.options.mode === 'todo') return 'marked todo';
  return 'skipped in the test file (it.skip, skipIf or a pending case)';
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const projects = new Map<string, Tally>();
    const skipped = new Map<string, Map<string, number>>();
    for (const module of testModules) {
      const name = module.project.name || 'default';
      const tally = projects.get(name) ?? {
        passed: 0,
        failed: 0,
        skipped: 0,
        files: 0,
        first: Number.POSITIVE_INFINITY,
        last: 0,
      };
      projects.set(name, tally);
      tally.files += 1;
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) tally.failed += 1;
      for (const test of module.children.allTests()) {
        const result = test.result();
        const { startTime, duration } = test.diagnostic() ?? { startTime: 0, duration: 0 };
        if (startTime > 0) {
          tally.first = Math.min(tally.first, startTime);
          tally.last = Math.max(tally.last, startTime + duration);
        }
        if (result.state === 'passed') tally.passed += 1;
        else if (result.state === 'failed') tally.failed += 1;
        else if (result.state === 'skipped') {
          tally.skipped += 1;
          const reason = reasonOf(test, result.note);
          const files = skipped.get(reason) ?? new Map<string, number>();
          files.set(module.relativeModuleId, (files.get(module.relativeModuleId) ?? 0) + 1);
          skipped.set(reason, files);
        }
      }
    }
    if (projects.size === 0) return;
    const lines = ['', 'Summary by project'];
    for (const [name, t] of [...projects].sort(([a], [b]) => a.localeCompare(b))) {
      const span = t.last > t.first ? `, ${seconds(t.last - t.first)} from first test to last` : '';
      lines.push(
        `  ${name.padEnd(12)} ${String(t.passed).padStart(5)} passed ${String(t.failed).padStart(3)} failed ${String(t.skipped).padStart(4)} skipped  (${t.files} ${t.files === 1 ? 'file' : 'files'}${span})`,
      );
    }
    if (skipped.size > 0) {
      lines.push('', 'Skipped, and why');
      for (const [reason, files] of skipped) {
        lines.push(`  ${reason}:`);
        for (const [file, count] of files)
          lines.push(`    ${file} (${count} ${count === 1 ? 'test' : 'tests'})`);
      }
    }
    process.stdout.write(`${lines.join('\n')}\n\n`);
  }
}
