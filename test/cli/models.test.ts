import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runChatfold } from './run-chatfold.ts';

describe('chatfold models (MOD-3)', () => {
  it('--json lists every matching model with every key present', async () => {
    const run = await runChatfold(['models', 'gpt-4o', '--json']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const models = JSON.parse(run.stdout) as { id: string }[];
    expect(models.find((m) => m.id === 'gpt-4o')).toEqual({
      id: 'gpt-4o',
      provider: 'openai',
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      tokenizer: 'openai:o200k_base',
      pricing: { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: null },
      aliases: expect.arrayContaining(['gpt-4o-2024-08-06']),
    });
  });

  it('prints a table of window, max output, tokenizer and prices for every word of the query', async () => {
    const run = await runChatfold(['models', 'claude', 'sonnet']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^model\s+window\s+max output\s+tokenizer\s+in \$\/M\s+out \$\/M\s+cache read\s+cache write$/,
    );
    const rows = lines.slice(1, lines.indexOf(''));
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) expect(row).toMatch(/^anthropic\/claude-\S*sonnet\S*\s+[\d,]+\s+/);
    expect(rows.find((row) => row.startsWith('anthropic/claude-sonnet-4-5 '))).toMatch(
      /200,000\s+64,000\s+anthropic:claude\s+\$3\s+\$15\s+\$0\.3\s+\$3\.75$/,
    );
    expect(lines.at(-1)).toMatch(
      /^\d+ models; prices in US dollars per million tokens; bundled data of \d{4}-\d{2}-\d{2} from @pydantic\/genai-prices/,
    );
  });

  it('--registry adds models from a file; an invalid file fails with the path of the bad field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-models-'));
    const good = join(dir, 'models.json');
    writeFileSync(
      good,
      JSON.stringify({ models: [{ id: 'house-llama', provider: 'acme', contextWindow: 32_768 }] }),
    );
    const run = await runChatfold(['models', 'house', '--registry', good, '--json']);
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({
        id: 'house-llama',
        provider: 'acme',
        maxOutputTokens: null,
        tokenizer: 'chars/4',
      }),
    ]);
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({ models: [{ id: 'x', provider: 'acme', contextWindow: 1, pricing: { input: -1 } }] }),
    );
    const failed = await runChatfold(['models', '--registry', bad]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(
      /^chatfold: .*bad\.json: models\[0\]\.pricing\.input: .*\[E_INVALID_FORMAT\]\n$/,
    );
  });

  it('says so on stderr and exits 1 when nothing matches (--json prints [])', async () => {
    const none = await runChatfold(['models', 'zzz']);
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toMatch(/^chatfold: no model matches "zzz"; `chatfold models` lists all \d+\n$/);
    expect(await runChatfold(['models', 'zzz', '--json'])).toMatchObject({
      code: 1,
      stdout: '[]\n',
      stderr: '',
    });
  });
});
