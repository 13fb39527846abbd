import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { FAMILY_DEFAULTS } from './find-listed-model.ts';
import { listModels } from './list-models.ts';
import { bundledModelRegistry, createModelRegistry } from './registry.ts';
import { DEFAULT_MODEL, resolveModel } from './resolve-model.ts';

describe('resolveModel (MOD-2)', () => {
  it('finds first-party models by exact id with window, output, tokenizer and prices incl. cache', () => {
    expect(resolveModel('gpt-4o')).toMatchObject({
      id: 'gpt-4o',
      provider: 'openai',
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      tokenizer: 'openai:o200k_base',
      pricing: { input: 2.5, output: 10, cacheRead: 1.25 },
      source: 'registry',
      matchedBy: 'exact',
      warnings: [],
    });
    expect(resolveModel('claude-sonnet-4-5')).toMatchObject({
      provider: 'anthropic',
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      tokenizer: 'anthropic:claude',
      pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    });
    expect(resolveModel('gemini-2.5-pro')).toMatchObject({
      provider: 'google',
      contextWindow: 1_048_576,
      maxOutputTokens: 65_536,
      tokenizer: 'google:gemini',
    });
    expect(resolveModel('gpt-3.5-turbo').tokenizer).toBe('openai:cl100k_base');
  });

  it('accepts provider prefixes, dated snapshots, -latest, dotted spellings and any case', () => {
    const sonnet = resolveModel('claude-3-5-sonnet').id;
    for (const spelling of [
      'anthropic/claude-3-5-sonnet-20241022',
      'claude-3-5-sonnet-latest',
      'claude-3.5-sonnet',
      'Claude-3-5-Sonnet-20241022',
    ]) {
      expect(resolveModel(spelling)).toMatchObject({ id: sonnet, provider: 'anthropic', source: 'registry' });
    }
    expect(resolveModel('openai/gpt-4o-2024-08-06')).toMatchObject({ id: 'gpt-4o', matchedBy: 'alias' });
    // A dated snapshot nobody listed falls back to its undated family.
    expect(resolveModel('gpt-4o-2030-01-01')).toMatchObject({ id: 'gpt-4o', matchedBy: 'undated' });
    // A dated snapshot with its own entry (different price) is not merged into the alias.
    expect(resolveModel('gpt-4o-2024-05-13')).toMatchObject({ id: 'gpt-4o-2024-05-13', matchedBy: 'exact' });
    expect(resolveModel('meta-llama/Llama-3.3-70B-Instruct')).toMatchObject({
      provider: 'meta',
      contextWindow: 128_000,
      tokenizer: 'open:llama3_1',
    });
  });

  it('reads fine-tune, Bedrock, Vertex and OpenRouter spellings of a model', () => {
    expect(resolveModel('ft:gpt-4o-mini-2024-07-18:acme::9xYz')).toMatchObject({
      id: 'gpt-4o-mini',
      warnings: [],
    });
    expect(resolveModel('us.anthropic.claude-3-5-sonnet-20241022-v2:0').id).toBe('claude-3-5-sonnet');
    expect(resolveModel('claude-3-5-sonnet-v2@20241022').id).toBe('claude-3-5-sonnet');
    expect(resolveModel('openrouter/anthropic/claude-3.5-sonnet:beta')).toMatchObject({
      id: 'claude-3-5-sonnet',
      matchedBy: 'exact',
    });
  });

  it('a provider prefix restricts the search to that provider', () => {
    const registry = createModelRegistry([
      {
        id: 'shared-model',
        provider: 'alpha',
        contextWindow: 1000,
        maxOutputTokens: 100,
        tokenizer: 'chars/4',
        pricing: {},
      },
      {
        id: 'shared-model',
        provider: 'beta',
        contextWindow: 2000,
        maxOutputTokens: 200,
        tokenizer: 'chars/4',
        pricing: {},
      },
    ]);
    expect(resolveModel('shared-model', { registry }).contextWindow).toBe(1000);
    expect(resolveModel('beta/shared-model', { registry }).contextWindow).toBe(2000);
    expect(resolveModel('gamma/shared-model', { registry }).contextWindow).toBe(1000);
  });

  it('matches the longest registry id a query starts with, and says so', () => {
    const resolved = resolveModel('gpt-4o-mini-custom-finetune');
    expect(resolved).toMatchObject({ id: 'gpt-4o-mini', matchedBy: 'prefix', source: 'registry' });
    expect(resolved.warnings.join('\n')).toMatch(
      /"gpt-4o-mini-custom-finetune" is not in the registry.*"gpt-4o-mini"/,
    );
  });

  it('explicit configuration wins over the registry, field by field', () => {
    const resolved = resolveModel('gpt-4o', {
      overrides: { contextWindow: 64_000, tokenizer: 'chars/3', pricing: { input: 1 } },
    });
    expect(resolved).toMatchObject({
      id: 'gpt-4o',
      contextWindow: 64_000,
      maxOutputTokens: 16_384,
      tokenizer: 'chars/3',
      pricing: { input: 1, output: 10, cacheRead: 1.25 },
      source: 'config',
      warnings: [],
    });
  });

  it('unknown models get the conservative default and a warning naming them', () => {
    const resolved = resolveModel('acme-brain-7');
    expect(resolved).toMatchObject({
      id: 'acme-brain-7',
      provider: 'unknown',
      contextWindow: DEFAULT_MODEL.contextWindow,
      maxOutputTokens: DEFAULT_MODEL.maxOutputTokens,
      tokenizer: 'chars/4',
      pricing: {},
      source: 'default',
    });
    expect(DEFAULT_MODEL).toEqual({ contextWindow: 8192, maxOutputTokens: 4096 });
    expect(resolved.warnings).toEqual([
      expect.stringMatching(/unknown model "acme-brain-7".*8,192-token window/),
    ]);
    // The family still picks the tokenizer; the provider prefix still names the provider.
    expect(resolveModel('ollama/llama3.2:90b-vision')).toMatchObject({
      tokenizer: 'open:llama3_1',
      provider: 'ollama',
      source: 'default',
    });
    // With an explicit window there is nothing to warn about.
    expect(resolveModel('acme-brain-7', { overrides: { contextWindow: 32_000 } })).toMatchObject({
      contextWindow: 32_000,
      source: 'config',
      warnings: [],
    });
  });

  it('assumes a max output (with a warning) where no dataset publishes one, never above the window', () => {
    const registry = createModelRegistry([
      { id: 'tiny', provider: 'local', contextWindow: 2048, tokenizer: 'chars/4', pricing: {} },
    ]);
    const resolved = resolveModel('tiny', { registry });
    expect(resolved.maxOutputTokens).toBe(2048);
    expect(resolved.warnings).toEqual([expect.stringMatching(/do not publish the max output of "tiny"/)]);
  });

  it('rejects empty ids and nonsense overrides with typed errors', () => {
    expect(() => resolveModel('  ')).toThrow(expect.objectContaining({ code: 'E_UNKNOWN_MODEL' }));
    let error: unknown;
    try {
      resolveModel('gpt-4o', { overrides: { contextWindow: -5 } });
    } catch (e) {
      error = e;
    }
    expect(ChatfoldError.hasCode(error, 'E_INVALID_OPTIONS')).toBe(true);
    expect((error as Error).message).toBe(
      'contextWindow: expected a positive integer number of tokens, received -5',
    );
    expect(() => resolveModel('gpt-4o', { overrides: { pricing: { input: Number.NaN } } })).toThrow(
      /pricing\.input: expected US dollars per million tokens/,
    );
  });
});

describe('resolveModel agrees with chatfold models (MOD-2, MOD-3)', () => {
  it('finds a preview when no generally available entry exists, and says so', () => {
    const resolved = resolveModel('gemini-3-pro');
    expect(resolved).toMatchObject({ id: 'gemini-3-pro-preview', matchedBy: 'preview', source: 'registry' });
    expect(resolved.contextWindow).toBeGreaterThan(8192);
    expect(resolved.warnings).toContainEqual(
      expect.stringMatching(/no generally available "gemini-3-pro".*preview/),
    );
  });

  it('reads Ollama names: size tags and llama3.1 for llama-3.1; a tag never picks another size', () => {
    expect(resolveModel('qwen3:8b')).toMatchObject({ id: 'qwen3-8b', matchedBy: 'spelling' });
    expect(resolveModel('gpt-oss:20b')).toMatchObject({ id: 'gpt-oss-20b', tokenizer: 'open:gptoss' });
    expect(resolveModel('ollama/llama3.1:8b')).toMatchObject({ id: 'llama-3.1-8b', provider: 'meta' });
    expect(resolveModel('llama3.1:70b-instruct-q4_K_M').id).toBe('llama-3.1-70b-instruct');
    expect(resolveModel('gemma3:12b')).toMatchObject({ id: 'gemma-3-12b-it', tokenizer: 'open:gemma3' });
    // No 7b entry: the 32b is not it.
    expect(resolveModel('qwen2.5-coder:7b')).toMatchObject({ source: 'default', tokenizer: 'open:qwen3' });
  });

  it('a bare family name picks its documented default member, with a warning', () => {
    for (const [family, member] of Object.entries(FAMILY_DEFAULTS)) {
      const resolved = resolveModel(family);
      expect(resolved, family).toMatchObject({ id: member, matchedBy: 'family', source: 'registry' });
      expect(resolved.warnings[0]).toMatch(
        new RegExp(`names a model family; using its default member "${member}"`),
      );
    }
  });

  it('a name the listing shows several models for and without a default fails naming them', () => {
    let error: unknown;
    try {
      resolveModel('claude');
    } catch (e) {
      error = e;
    }
    expect(ChatfoldError.hasCode(error, 'E_UNKNOWN_MODEL')).toBe(true);
    const ids = listModels('claude').map((m) => m.id);
    expect((error as ChatfoldError).details).toEqual({ model: 'claude', candidates: ids });
    expect((error as Error).message).toMatch(/"claude" matches \d+ models in the registry \(claude-/);
    // With an explicit window the name only picks the tokenizer.
    expect(resolveModel('claude', { overrides: { contextWindow: 100_000 } })).toMatchObject({
      contextWindow: 100_000,
      tokenizer: 'anthropic:claude',
    });
  });

  it('never falls to the 8,192-token default for a query the listing shows a model for', () => {
    const ids = bundledModelRegistry().entries.map((entry) => entry.id);
    const query = fc.oneof(
      fc.constantFrom(...ids),
      // Leading words of listed ids: `gpt-5`, `qwen3-coder`, `gemini-2.5`, …
      fc
        .tuple(fc.constantFrom(...ids), fc.integer({ min: 1, max: 4 }))
        .map(([id, words]) => id.split('-').slice(0, words).join('-')),
      fc.constantFrom(...ids).map((id) => id.toUpperCase().replaceAll('-', '.')),
    );
    fc.assert(
      fc.property(query, (q) => {
        const listed = listModels(q);
        let resolved: ReturnType<typeof resolveModel> | undefined;
        try {
          resolved = resolveModel(q);
        } catch (error) {
          expect(ChatfoldError.hasCode(error, 'E_UNKNOWN_MODEL'), q).toBe(true);
          expect((error as ChatfoldError).details.candidates, q).toEqual(listed.map((m) => m.id));
          return;
        }
        if (listed.length > 0) expect(resolved.source, q).toBe('registry');
      }),
      { numRuns: 400 },
    );
  });
});
