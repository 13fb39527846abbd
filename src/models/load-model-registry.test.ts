import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { listModels } from './list-models.ts';
import { loadModelRegistry } from './load-model-registry.ts';
import { bundledModelRegistry } from './registry.ts';
import { resolveModel } from './resolve-model.ts';

const catchError = (run: () => unknown): ChatfoldError => {
  try {
    run();
  } catch (error) {
    if (ChatfoldError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ChatfoldError');
};

describe('loadModelRegistry (MOD-1: updatable from a file)', () => {
  it('reads { models } or a bare array; tokenizer defaults to the family, prices are optional', () => {
    const file = JSON.stringify({
      models: [
        {
          id: 'llama-3.1-8b-local',
          provider: 'local',
          contextWindow: 32_768,
          maxOutputTokens: 2048,
          aliases: ['llama3.1:8b'],
        },
        {
          id: 'house-model',
          provider: 'acme',
          contextWindow: 100_000,
          tokenizer: 'chars/3',
          pricing: { input: 0.5 },
        },
      ],
    });
    const registry = loadModelRegistry(file);
    expect(resolveModel('llama3.1:8b', { registry })).toMatchObject({
      id: 'llama-3.1-8b-local',
      contextWindow: 32_768,
      maxOutputTokens: 2048,
      tokenizer: 'open:llama3_1',
      source: 'registry',
      matchedBy: 'alias',
    });
    expect(resolveModel('house-model', { registry }).pricing).toEqual({ input: 0.5 });
    const bare = loadModelRegistry(JSON.stringify([{ id: 'x', provider: 'p', contextWindow: 10 }]));
    expect(bare.entries).toHaveLength(1);
  });

  it('extends a base registry; the file overrides entries with the same provider and id', () => {
    const registry = loadModelRegistry(
      JSON.stringify([{ id: 'gpt-4o', provider: 'openai', contextWindow: 64_000, maxOutputTokens: 1000 }]),
      { base: bundledModelRegistry() },
    );
    expect(resolveModel('gpt-4o', { registry })).toMatchObject({
      contextWindow: 64_000,
      maxOutputTokens: 1000,
    });
    expect(resolveModel('claude-sonnet-4-5', { registry }).contextWindow).toBe(200_000);
    expect(listModels('gpt-4o', { registry }).filter((m) => m.id === 'gpt-4o')).toHaveLength(1);
  });

  it('names the path, the expectation and the received value of an invalid field', () => {
    const error = catchError(() =>
      loadModelRegistry(
        JSON.stringify({
          models: [
            { id: 'a', provider: 'p', contextWindow: 10 },
            { id: 'b', provider: 'p', contextWindow: -1 },
          ],
        }),
        { source: 'my-models.json' },
      ),
    );
    expect(error.code).toBe('E_INVALID_FORMAT');
    expect(error.message).toMatch(/^my-models\.json: models\[1\]\.contextWindow: .*>0/);
    expect(error.details).toMatchObject({ source: 'my-models.json', path: 'models[1].contextWindow' });

    const wrongType = catchError(() =>
      loadModelRegistry(JSON.stringify([{ id: 'a', provider: 'p', contextWindow: '128k' }])),
    );
    expect(wrongType.message).toMatch(
      /^model registry: \[0\]\.contextWindow: .*expected number, received string/,
    );

    const typo = catchError(() =>
      loadModelRegistry(JSON.stringify([{ id: 'a', provider: 'p', contextWindow: 1, contextWindw: 2 }])),
    );
    expect(typo.message).toMatch(/\[0\]: .*contextWindw.*known keys: id, provider, contextWindow/);

    expect(catchError(() => loadModelRegistry('{"models": 3}')).message).toMatch(/models: .*expected array/);
    expect(catchError(() => loadModelRegistry('"hello"')).message).toMatch(/\(root\).*expected \{ "models"/);
    expect(catchError(() => loadModelRegistry('{oops')).message).toMatch(/^model registry: not valid JSON/);
  });
});

describe('listModels (MOD-3)', () => {
  it('filters by every word of the query, sorted by provider and id', () => {
    const sonnets = listModels('claude sonnet');
    expect(sonnets.length).toBeGreaterThan(3);
    expect(sonnets.every((m) => m.provider === 'anthropic' && m.id.includes('sonnet'))).toBe(true);
    expect(listModels('claude-3.5-sonnet').map((m) => m.id)).toContain('claude-3-5-sonnet');
    expect(listModels('openai/gpt-4o').every((m) => m.provider === 'openai')).toBe(true);
    const all = listModels();
    expect(all.length).toBe(bundledModelRegistry().entries.length);
    const keys = all.map((m) => `${m.provider}/${m.id}`);
    expect([...keys].sort((a, b) => a.localeCompare(b))).toEqual(keys);
    expect(listModels('no-such-model-anywhere')).toEqual([]);
    // Dashes and Ollama size tags do not matter.
    expect(listModels('gemma3').map((m) => m.id)).toContain('gemma-3-12b-it');
    expect(listModels('qwen3:8b').map((m) => m.id)).toEqual(['qwen3-8b']);
  });
});
