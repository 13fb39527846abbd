import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replayConversation } from '../src/evaluation/replay.ts';
import { fromOpenAI, importClaudeCode, type OpenAIMessage } from '../src/index.ts';
import { resolveModel } from '../src/models/resolve-model.ts';
import { counterFor } from '../src/tokens/count-tokens.ts';

const root = new URL('./fixtures/', import.meta.url).pathname;
const sessions = [
  ...readdirSync(`${root}claude-code`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.jsonl'))
    .map((file) => `claude-code/${file}`),
  'swe-agent/marshmallow-1867.function-calling.openai.json',
].sort();

function load(file: string) {
  const text = readFileSync(`${root}${file}`, 'utf8');
  return file.endsWith('.json')
    ? fromOpenAI(JSON.parse(text) as OpenAIMessage[])
    : importClaudeCode(text).messages;
}

describe('replay on every recorded session (EV-2, CLI-3)', () => {
  for (const file of sessions) {
    for (const window of [32_000, 128_000]) {
      it(`${file} at ${window}: every prompt fits, validates and keeps the goal`, async () => {
        const model = resolveModel(file.endsWith('.json') ? 'gpt-4o' : 'claude-sonnet-4.5');
        const result = await replayConversation(load(file), {
          counter: counterFor(model.tokenizer),
          window,
          maxOutputTokens: model.maxOutputTokens,
          pricing: model.pricing,
          provider: file.endsWith('.json') ? 'openai' : 'anthropic',
        });
        expect(result.invariants).toEqual({ allFit: true, allValid: true, goalKept: true });
        for (const turn of result.perTurn) expect(turn.sentTokens).toBeLessThanOrEqual(result.budget);
        if (result.totals.compactions > 0) {
          expect(result.totals.managedInputTokens).toBeLessThan(result.totals.unmanagedInputTokens);
          expect(result.identifierSurvival.paths ?? 1).toBeGreaterThanOrEqual(0.9);
        }
      });
    }
  }

  it('saves at least half the input tokens on a long agent session (SPEC §5)', async () => {
    const model = resolveModel('claude-sonnet-4.5');
    const result = await replayConversation(load('claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl'), {
      counter: counterFor(model.tokenizer),
      window: 128_000,
      maxOutputTokens: model.maxOutputTokens,
      pricing: model.pricing,
      provider: 'anthropic',
    });
    expect(result.totals.savedRatio).toBeGreaterThanOrEqual(0.5);
    expect(result.totals.costManagedCachedUSD).toBeLessThan(result.totals.costUnmanagedCachedUSD as number);
  });
});
