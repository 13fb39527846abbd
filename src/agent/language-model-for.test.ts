// NFR-7.5: an agent built from a frozen spec reuses the AI SDK model built for it before, so a
// server opening many chats does not build the provider (and its zod schemas) again each time.
import { describe, expect, it } from 'vitest';
import { languageModelFor } from './language-model-for.ts';
import type { AgentModelSpec } from './types.ts';

const spec = (extra: Partial<AgentModelSpec> = {}): AgentModelSpec => ({
  provider: 'openai-compatible',
  name: 'local-model',
  baseURL: 'http://127.0.0.1:9/v1',
  ...extra,
});

describe('languageModelFor (NFR-7.5)', () => {
  it('builds a frozen spec once: the same model for every call', async () => {
    const frozen = Object.freeze(spec());
    const first = await languageModelFor(frozen, {});
    expect(await languageModelFor(frozen, {})).toBe(first);
    // Another frozen spec with the same content is another key: nothing is shared by content.
    expect(await languageModelFor(Object.freeze(spec()), {})).not.toBe(first);
  });

  it('builds a spec that is not frozen every time (it may have changed)', async () => {
    const open = spec();
    const first = await languageModelFor(open, {});
    expect(await languageModelFor(open, {})).not.toBe(first);
  });

  it('builds again when the API key read from the environment changed', async () => {
    const frozen = Object.freeze(spec());
    const first = await languageModelFor(frozen, { OPENAI_COMPATIBLE_API_KEY: 'key-one' });
    expect(await languageModelFor(frozen, { OPENAI_COMPATIBLE_API_KEY: 'key-one' })).toBe(first);
    const second = await languageModelFor(frozen, { OPENAI_COMPATIBLE_API_KEY: 'key-two' });
    expect(second).not.toBe(first);
    expect(await languageModelFor(frozen, { OPENAI_COMPATIBLE_API_KEY: 'key-two' })).toBe(second);
  });

  it('refuses a bad frozen spec as createLanguageModel does, every time', async () => {
    const noBaseUrl = Object.freeze({ provider: 'openai-compatible', name: 'm' } as AgentModelSpec);
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(languageModelFor(noBaseUrl, {})).rejects.toMatchObject({ code: 'E_INVALID_OPTIONS' });
    }
    const noKey = Object.freeze({ provider: 'openai', name: 'gpt-4o' } as AgentModelSpec);
    await expect(languageModelFor(noKey, {})).rejects.toMatchObject({ code: 'E_MISSING_API_KEY' });
    // The failure was not kept: with a key the same spec builds.
    await expect(languageModelFor(noKey, { OPENAI_API_KEY: 'sk-test' })).resolves.toBeDefined();
    const unknown = Object.freeze({ provider: 'acme', name: 'm' } as unknown as AgentModelSpec);
    await expect(languageModelFor(unknown, {})).rejects.toMatchObject({ code: 'E_INVALID_OPTIONS' });
  });
});
