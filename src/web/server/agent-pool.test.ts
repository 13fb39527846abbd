// NFR-7.5: the pool hands every session's agent the same frozen model specs, so createAgent
// reuses the AI SDK model built for them instead of building the provider at each first open.
import { describe, expect, it } from 'vitest';
import type { Agent, AgentModelSpec, AgentOptions } from '../../agent/types.ts';
import { memoryStore } from '../../stores/memory/index.ts';
import type { WebSettings } from '../api-types.ts';
import { AgentPool } from './agent-pool.ts';
import { DEFAULT_WEB_SETTINGS } from './web-settings.ts';

function recordingPool(model: AgentModelSpec, settings: () => WebSettings) {
  const built: AgentOptions[] = [];
  const pool = new AgentPool({
    store: memoryStore(),
    agent: { model, instructions: 'test' },
    modelId: model.name,
    createAgent: (options) => {
      built.push(options);
      return { name: 'agent' } as Agent;
    },
    settings: async () => settings(),
  });
  return { pool, built };
}

describe('AgentPool model specs (NFR-7.5)', () => {
  it('gives every session one frozen copy of the model spec and leaves the caller’s object alone', async () => {
    const model: AgentModelSpec = {
      provider: 'openai-compatible',
      name: 'm',
      baseURL: 'http://127.0.0.1:9/v1',
    };
    const { pool, built } = recordingPool(model, () => DEFAULT_WEB_SETTINGS);
    await pool.agent('s-one');
    await pool.agent('s-two');
    await pool.fresh('s-one', {});
    const [first, ...rest] = built.map((options) => options.model);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).toEqual(model);
    for (const other of rest) expect(other).toBe(first);
    expect(Object.isFrozen(model)).toBe(false);
  });

  it('keeps one summarizer spec per setting value, with the chat model’s base URL and key', async () => {
    const model: AgentModelSpec = {
      provider: 'openai-compatible',
      name: 'm',
      baseURL: 'http://127.0.0.1:9/v1',
      apiKey: 'k',
    };
    let summarizerModel = 'openai-compatible:small';
    const { pool, built } = recordingPool(model, () => ({ ...DEFAULT_WEB_SETTINGS, summarizerModel }));
    await pool.agent('s-one');
    await pool.agent('s-two');
    summarizerModel = 'openai:gpt-4o-mini';
    await pool.agent('s-three');
    const [one, two, three] = built.map((options) => options.summarizer);
    expect(two).toBe(one);
    expect(Object.isFrozen(one)).toBe(true);
    expect(one).toEqual({
      provider: 'openai-compatible',
      name: 'small',
      baseURL: 'http://127.0.0.1:9/v1',
      apiKey: 'k',
    });
    expect(three).toEqual({ provider: 'openai', name: 'gpt-4o-mini' });
  });
});
