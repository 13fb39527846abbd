import { describe, expect, it } from 'vitest';
import { summarizerFromSpec } from './summarizer-spec.ts';

describe('--summarizer provider:model (SUM-5, CLI-3)', () => {
  it('extractive means no LLM', async () => {
    expect(await summarizerFromSpec('extractive')).toBeUndefined();
  });

  it('rejects unknown providers and missing model names', async () => {
    for (const spec of ['gpt-4o', 'mistral:large', 'openai:', 'openai']) {
      await expect(summarizerFromSpec(spec, { env: {} })).rejects.toMatchObject({
        code: 'E_INVALID_OPTIONS',
        message: expect.stringContaining('provider:model'),
      });
    }
  });

  it('names the missing API key', async () => {
    await expect(summarizerFromSpec('openai:gpt-4o-mini', { env: {} })).rejects.toMatchObject({
      message: expect.stringContaining('OPENAI_API_KEY'),
    });
    await expect(summarizerFromSpec('google:gemini-2.5-flash', { env: {} })).rejects.toMatchObject({
      message: expect.stringContaining('GEMINI_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY'),
    });
    await expect(summarizerFromSpec('openai-compatible:llama3.2', { env: {} })).rejects.toMatchObject({
      message: expect.stringContaining('--summarizer-base-url'),
    });
  });

  it('builds a summarizer function for each provider when configured', async () => {
    const env = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GEMINI_API_KEY: 'k' };
    for (const spec of ['openai:gpt-4o-mini', 'anthropic:claude-haiku-4-5', 'google:gemini-2.5-flash']) {
      expect(typeof (await summarizerFromSpec(spec, { env }))).toBe('function');
    }
    const local = await summarizerFromSpec('openai-compatible:llama3.2', {
      env: {},
      baseURL: 'http://127.0.0.1:11434/v1',
    });
    expect(typeof local).toBe('function');
  });
});
