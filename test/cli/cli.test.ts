import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const bin = new URL('../../dist/cli/main.js', import.meta.url).pathname;
const fixture = (name: string): string => new URL(`../fixtures/${name}`, import.meta.url).pathname;

async function chatfold(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  // Black-box: the built bin, exactly as users get it (`npm test` builds first).
  await run(process.execPath, [bin, '--version']);
});

describe('chatfold CLI (CLI-2, CLI-3, CLI-5, MOD-3)', () => {
  it('prints help and the version', async () => {
    const help = await chatfold('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/replay .*\n.*count/s);
    const version = await chatfold('--version');
    expect(version.stdout.trim()).toBe(
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version,
    );
  });

  it('count --json prints the documented shape, exact for OpenAI', async () => {
    const { code, stdout } = await chatfold(
      'count',
      fixture('swe-agent/marshmallow-1867.function-calling.openai.json'),
      '--json',
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ model: 'gpt-4o', tokenizer: 'openai:o200k_base', exact: true });
    expect(result.messages).toHaveLength(28);
    expect(result.messages[0]).toEqual({ index: 0, role: 'system', tokens: expect.any(Number) });
    expect(result.total).toBe(
      result.messages.reduce((sum: number, m: { tokens: number }) => sum + m.tokens, 0) + 3,
    );
  });

  it('count reads a Claude Code session and chatfold JSONL, and honours --format', async () => {
    const cc = await chatfold('count', fixture('claude-code/short.jsonl'));
    expect(cc.code).toBe(0);
    expect(cc.stdout).toMatch(/5 messages, [\d,]+ tokens \(calibrated, anthropic:claude/);
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-cli-'));
    const file = join(dir, 'conversation.jsonl');
    writeFileSync(
      file,
      [
        {
          id: 'a',
          role: 'user',
          parts: [{ type: 'text', text: 'hello there' }],
          createdAt: '2026-01-01T00:00:00Z',
        },
        {
          id: 'b',
          role: 'assistant',
          parts: [{ type: 'text', text: 'hi' }],
          createdAt: '2026-01-01T00:00:01Z',
        },
      ]
        .map((m) => JSON.stringify(m))
        .join('\n'),
    );
    const neutral = JSON.parse((await chatfold('count', file, '--json', '--model', 'gpt-4o')).stdout);
    expect(neutral.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    const forced = await chatfold('count', file, '--format', 'openai');
    expect(forced.code).not.toBe(0);
  });

  it('replay --json reports totals, invariants and per-turn data, and writes the chart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-cli-'));
    const chart = join(dir, 'chart.svg');
    const { code, stdout } = await chatfold(
      'replay',
      fixture('claude-code/subagent.jsonl'),
      '--window',
      '32000',
      '--json',
      '--chart',
      chart,
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(Object.keys(report.totals)).toEqual(
      expect.arrayContaining([
        'unmanagedInputTokens',
        'managedInputTokens',
        'savedRatio',
        'peakTokens',
        'compactions',
        'unmanagedOverflowTurns',
        'costUnmanagedUSD',
        'costManagedUSD',
        'costManagedCachedUSD',
      ]),
    );
    expect(report.invariants).toEqual({ allFit: true, allValid: true, goalKept: true });
    expect(report.perTurn[0]).toEqual(
      expect.objectContaining({
        turn: 1,
        unmanagedTokens: expect.any(Number),
        sentTokens: expect.any(Number),
        compacted: false,
      }),
    );
    expect(report).toMatchObject({
      turns: 12,
      strategy: 'hybrid',
      window: 32000,
      identifierSurvival: expect.any(Object),
    });
    expect(readFileSync(chart, 'utf8')).toMatch(/^<svg[^>]+role="img"/);
  });

  it('fails with a message on stderr and a non-zero exit for bad input (CLI-5)', async () => {
    const missing = await chatfold('count', '/does/not/exist.json');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^chatfold: cannot read \/does\/not\/exist\.json: ENOENT \[E_FILE\]/);
    const strategy = await chatfold('replay', fixture('claude-code/short.jsonl'), '--strategy', 'nope');
    expect(strategy.code).toBe(1);
    expect(strategy.stderr).toMatch(/unknown strategy "nope".*\[E_UNKNOWN_STRATEGY\]/);
    const window = await chatfold('replay', fixture('claude-code/short.jsonl'), '--window', 'lots');
    expect(window.code).not.toBe(0);
    expect(window.stderr).toMatch(/expected a positive integer/);
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-cli-'));
    const garbage = join(dir, 'x.json');
    writeFileSync(garbage, '{"not": "a conversation"}');
    const bad = await chatfold('count', garbage);
    expect(bad.stderr).toMatch(/E_INVALID_FORMAT/);
  });

  it('models lists the registry and filters by query', async () => {
    const { code, stdout } = await chatfold('models', 'gpt-4o', '--json');
    expect(code).toBe(0);
    const models = JSON.parse(stdout);
    expect(models.find((m: { id: string }) => m.id === 'gpt-4o')).toMatchObject({
      provider: 'openai',
      contextWindow: 128_000,
      tokenizer: 'openai:o200k_base',
    });
  });
});

describe('chatfold count on every provider format (CLI-2)', () => {
  for (const [file, format] of [
    ['converters/gemini-function-calling.json', 'gemini'],
    ['converters/anthropic-tool-use.json', 'anthropic'],
    ['converters/ai-sdk-tool-messages.json', 'ai-sdk'],
  ] as const) {
    it(`detects ${format}`, async () => {
      const { code, stdout } = await chatfold('count', fixture(file), '--json');
      expect(code).toBe(0);
      expect(JSON.parse(stdout).format).toBe(format);
    });
  }
});
