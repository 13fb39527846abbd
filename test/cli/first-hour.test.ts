/**
 * A new user's first hour with the CLI (issue 9 §4, CLI-5), black-box on the built bin: exit
 * codes a CI gate can rely on, one error form everywhere, pipelines, `count --exact` on OpenAI,
 * plurals, and the one-line advice on a Node that is too old.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHATFOLD_BIN, type CliRun, fixture, runChatfold } from './run-chatfold.ts';

/** One error line in the CLI's form, nothing else: no stack trace, no help dump. */
const ONE_ERROR_LINE = /^chatfold: [^\n]+ \[E_[A-Z_]+\]\n$/;

const subagent = fixture('claude-code/subagent.jsonl');

describe('replay is a CI gate', () => {
  it('exits 2 when an invariant fails, with the report on stdout', async () => {
    const run = await runChatfold(['replay', subagent, '--window', '2000']);
    expect(run.stdout).toMatch(/invariants {8}fits NO/);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('');
    const json = await runChatfold(['replay', subagent, '--window', '2000', '--json']);
    expect(JSON.parse(json.stdout).invariants.allFit).toBe(false);
    expect(json.code).toBe(2);
  });

  it('exits 0 when every invariant holds', async () => {
    const run = await runChatfold(['replay', subagent, '--window', '32000']);
    expect(run.stdout).toMatch(/fits yes, valid yes, goal kept yes/);
    expect(run.code).toBe(0);
  });
});

describe('one error form everywhere: chatfold: <message> [<code>]', () => {
  it('a chart that cannot be written: the report still printed, one error line, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-cli-'));
    const notAFolder = join(dir, 'file');
    writeFileSync(notAFolder, '');
    const chart = join(notAFolder, 'chart.svg');
    const run = await runChatfold(['replay', subagent, '--window', '32000', '--chart', chart]);
    expect(run.stdout).toMatch(/^replay of subagent\.jsonl: 12 model calls/);
    expect(run.stdout).toMatch(/invariants {8}fits yes/);
    expect(run.stdout).not.toContain('chart  ');
    expect(run.stderr).toMatch(ONE_ERROR_LINE);
    expect(run.stderr).toContain(`cannot write the chart to ${chart}: ENOTDIR`);
    expect(run.stderr).toMatch(/\[E_FILE\]\n$/);
    expect(run.code).toBe(1);
    // With --json the report is still whole JSON on stdout.
    const json = await runChatfold(['replay', subagent, '--window', '32000', '--json', '--chart', chart]);
    expect(JSON.parse(json.stdout).turns).toBe(12);
    expect(json.stderr).toMatch(ONE_ERROR_LINE);
  });

  it('a failed invariant and an unwritable chart: exit 2 wins', async () => {
    const run = await runChatfold(['replay', subagent, '--window', '2000', '--chart', '/proc/none/x.svg']);
    expect(run.stderr).toMatch(ONE_ERROR_LINE);
    expect(run.code).toBe(2);
  });

  const cases: [string, string[], RegExp][] = [
    ['a missing file', ['count', '/does/not/exist.json'], /cannot read .*ENOENT \[E_FILE\]/],
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'.*\[E_INVALID_OPTIONS\]/],
    ['an unknown option', ['count', subagent, '--frob'], /unknown option '--frob'.*\[E_INVALID_OPTIONS\]/],
    [
      'an invalid option value',
      ['replay', subagent, '--window', 'lots'],
      /expected a positive integer, received "lots".*\[E_INVALID_OPTIONS\]/,
    ],
    ['a missing argument', ['replay'], /missing required argument 'file'.*\[E_INVALID_OPTIONS\]/],
    [
      'an unknown strategy',
      ['replay', subagent, '--strategy', 'nope'],
      /unknown strategy "nope".*\[E_UNKNOWN_STRATEGY\]/,
    ],
  ];
  for (const [name, args, message] of cases) {
    it(`${name}: one line, exit 1`, async () => {
      const run: CliRun = await runChatfold(args);
      expect(run.stderr).toMatch(ONE_ERROR_LINE);
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('');
      expect(run.code).toBe(1);
    });
  }
});

describe('options do what their help says', () => {
  it('--strategy takes a comma-separated pipeline, run in order', async () => {
    const help = await runChatfold(['replay', '--help']);
    expect(help.stdout).toMatch(/comma-separated pipeline/);
    const run = await runChatfold([
      'replay',
      subagent,
      '--window',
      '32000',
      '--strategy',
      'supersede,mask,truncate',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/strategy supersede\+mask\+truncate,/);
    const json = await runChatfold(['replay', subagent, '--strategy', 'supersede, truncate', '--json']);
    expect(JSON.parse(json.stdout).strategy).toBe('supersede+truncate');
    const unknown = await runChatfold(['replay', subagent, '--strategy', 'supersede,nope']);
    expect(unknown.stderr).toMatch(/unknown strategy "nope".*\[E_UNKNOWN_STRATEGY\]\n$/);
    const empty = await runChatfold(['replay', subagent, '--strategy', 'supersede,,mask']);
    expect(empty.stderr).toMatch(ONE_ERROR_LINE);
    expect(empty.code).toBe(1);
  });

  it('count --exact with an OpenAI model says the count is already exact', async () => {
    const file = fixture('swe-agent/marshmallow-1867.function-calling.openai.json');
    const run = await runChatfold(['count', file, '--exact', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ model: 'gpt-4o', exact: true });
    expect(run.stderr).toBe(
      'chatfold: note: --exact: openai has no count-tokens endpoint; the local openai:o200k_base count is already exact\n',
    );
  });

  it('counts one of a thing in the singular', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-cli-'));
    const file = join(dir, 'one.json');
    writeFileSync(file, JSON.stringify([{ role: 'user', content: 'hi' }]));
    const count = await runChatfold(['count', file]);
    expect(count.stdout).toMatch(/\n1 message, \d+ tokens \(/);
    const replay = await runChatfold(['replay', fixture('claude-code/short.jsonl')]);
    expect(replay.stdout).toMatch(/: 1 model call, strategy/);
    expect(replay.stdout).toMatch(/overflow on 0 of 1 call\)/);
  });
});

/** The machine's own Node, older than the project needs (Debian's /usr/bin/node is 20). */
const OLD_NODE = '/usr/bin/node';
const oldNodeVersion = existsSync(OLD_NODE)
  ? await new Promise<string>((resolve) =>
      execFile(OLD_NODE, ['--version'], (_, stdout) => resolve(String(stdout).trim())),
    )
  : '';
const isOld = /^v(1\d|2[01])\./.test(oldNodeVersion);

function runWith(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { env, cwd: new URL('../..', import.meta.url).pathname, timeout: 120_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          stdout,
          stderr,
        });
      },
    );
  });
}

const ADVICE = new RegExp(
  `^chatfold: Node\\.js >= 22 is required, this is ${oldNodeVersion.replaceAll('.', '\\.')} \\(${OLD_NODE}\\); get Node 24 with \`npm install --prefix ~/\\.node24 node@24\`[^\\n]*\\n$`,
);

describe.runIf(isOld)(`on ${oldNodeVersion || 'an old Node'} (${OLD_NODE})`, () => {
  it('the CLI prints one line of advice and exits 1, whatever the command', async () => {
    for (const args of [['--version'], ['count', subagent], ['replay']]) {
      const run = await runWith(OLD_NODE, [CHATFOLD_BIN, ...args]);
      expect(run.stderr).toMatch(ADVICE);
      expect(run.stdout).toBe('');
      expect(run.code).toBe(1);
    }
  });

  it('npm test stops at the preflight with the same line, before any build or test runs', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.scripts.test).toMatch(/^node scripts\/check-node\.mjs && /);
    expect(pkg.scripts.demo).toMatch(/^node scripts\/check-node\.mjs && /);
    const preflight = await runWith(OLD_NODE, ['scripts/check-node.mjs']);
    expect(preflight.stderr).toMatch(/^chatfold: Node\.js >= 22 is required[^\n]*\n$/);
    expect(preflight.code).toBe(1);
    // The real `npm test` with the old Node first on PATH: our line, then npm's own summary.
    const npm = await runWith('npm', ['test'], {
      ...process.env,
      PATH: `/usr/bin:${process.env.PATH ?? ''}`,
    });
    expect(npm.code).not.toBe(0);
    expect(npm.stderr).toMatch(/^chatfold: Node\.js >= 22 is required, this is v2[01]\./m);
    // npm echoes the script's command line; nothing after the preflight ran (no build, no Vitest).
    expect(`${npm.stdout}${npm.stderr}`).not.toMatch(/groupBy|RUN\s+v\d|error TS|> chatfold@[\d.]+ build/);
  });
});
