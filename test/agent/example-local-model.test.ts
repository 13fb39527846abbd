import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compactionLog, createLocalAgent, query } from '../../examples/agent-local-model.ts';
import { type FakeProviderServer, startFakeProvider } from '../../src/fake-provider/index.ts';

// examples/agent-local-model.ts, imported unchanged, against the fake provider as the "local model"
// (seed 003's success criterion: 100 messages, the history compacted, nothing lost).

let server: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProvider({});
  // Local servers take any key; the fake provider, like hosted APIs, wants one.
  vi.stubEnv('OPENAI_COMPATIBLE_API_KEY', 'local');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

/** ~150 tokens; the fake model echoes it, so each turn adds ~300. */
const paragraph = (i: number) =>
  `Message ${i}: ${'the local model keeps answering about the notes in the project folder and the config file, '.repeat(8)}`;

describe('examples/agent-local-model.ts (seed 003, AG-3)', () => {
  it('100 messages: compacted by the hooks-aware agent, every message kept', {
    timeout: 240_000,
  }, async () => {
    const agent = await createLocalAgent({ baseURL: `${server.url}/v1`, model: 'qwen2.5:32b' });
    let streamed = '';
    for (let i = 0; i < 100; i++)
      await query(agent, paragraph(i), (text) => {
        streamed += text;
      });
    expect(streamed).toContain('[history compacted]');
    expect(
      compactionLog.some((line) => /^About to compact: \d+ tokens, \d+ messages \(auto\)$/.test(line)),
    ).toBe(true);
    expect(compactionLog.some((line) => /^Compacted: \d+ → \d+ tokens$/.test(line))).toBe(true);
    // The hook's instructions reached the summarizer.
    expect(
      server.requests.some((request) =>
        JSON.stringify(request.body).includes('Keep every file path and number'),
      ),
    ).toBe(true);
    const status = await agent.session.status();
    expect(status.messagesInHistory).toBe(201); // instructions + 100 prompts + 100 answers
    const history = await agent.session.history({ limit: 500 });
    expect(history).toHaveLength(201);
    expect(history.filter((entry) => entry.status === 'in-context').length).toBeLessThan(100);
    expect(status.tokens).toBeLessThan(status.budget);
  });
});
