/**
 * RT-1, RT-3, ST-3, ST-6 end to end: `examples/session-sqlite.ts`, unchanged, through the real
 * `openai` SDK over HTTP against the fake provider, with a real SQLite file and a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConversation, turn } from '../../examples/session-sqlite.ts';
import { type FakeProviderServer, startFakeProvider } from '../../src/fake-provider/index.ts';
import { fromOpenAI } from '../../src/messages/openai.ts';
import { validate } from '../../src/messages/validate.ts';

/** The fake server's real limit for gpt-4o, far below the registry's 128k window. */
const LIMIT = 6_000;

describe('examples/session-sqlite.ts against the fake provider', () => {
  let server: FakeProviderServer;
  let dir: string;
  beforeAll(async () => {
    server = await startFakeProvider({ contextLimit: { 'gpt-4o': LIMIT } });
    dir = mkdtempSync(join(tmpdir(), 'chatfold-session-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('learns the real limit from the overflow error, keeps every prompt under it, and resumes after a restart', async () => {
    const file = join(dir, 'chat.db');
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'fake-key', maxRetries: 0 });
    const first = await openConversation(file, 'project');
    const texts = Array.from(
      { length: 30 },
      (_, i) => `Step ${i}: look at src/module${i}.ts and explain ${'the parser state machine '.repeat(30)}`,
    );
    for (const text of texts) expect(await turn(first.session, openai, text)).toBe(text);

    const calls = server.requests.filter((r) => r.path === '/v1/chat/completions');
    const rejected = calls.filter(
      (_, i) => i < calls.length && server.requests.indexOf(calls[i] as never) >= 0,
    );
    expect(rejected.length).toBe(calls.length);
    const bodies = calls.map((r) => r.body as { messages: OpenAI.Chat.ChatCompletionMessageParam[] });
    // 30 turns answered, plus exactly one call the server rejected as over its limit, which
    // taught chatfold the limit: every later prompt fit (or the server would have rejected it).
    expect(calls.length).toBe(31);
    for (const body of bodies.slice(-10)) {
      expect(validate(fromOpenAI(body.messages), { provider: 'openai' })).toEqual([]);
    }
    const status = await first.session.status();
    expect(status.messagesInHistory).toBe(60);
    expect(status.messagesSummarized).toBeGreaterThan(0);
    expect(status.budget).toBeLessThan(LIMIT);
    expect(status.accuracy).toBe('calibrated');
    const before = await first.session.prepare({ provider: 'openai' });
    await first.chatfold.close();

    // Restart: a new process would do exactly this.
    const second = await openConversation(file, 'project');
    const after = await second.session.prepare({ provider: 'openai' });
    expect(JSON.stringify(after.messages)).toBe(JSON.stringify(before.messages));
    expect((await second.session.status()).text).toBe(status.text);
    // Nothing was deleted (ST-3): the first turn is still in the searchable history.
    const hits = await second.session.history({ text: 'src/module0.ts' });
    expect(hits.map((row) => row.seq)).toEqual([2, 1]);
    expect(await turn(second.session, openai, 'One more question')).toBe('One more question');
    await second.chatfold.close();
  });
});
