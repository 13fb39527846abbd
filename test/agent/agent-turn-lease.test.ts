import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, AgentEvent, AgentOptions } from '../../src/agent/index.ts';
import { createAgent } from '../../src/agent/index.ts';
import { ChatfoldError } from '../../src/errors/chatfold-error.ts';
import type { FakeProviderServer } from '../../src/fake-provider/index.ts';
import { startFakeProvider } from '../../src/fake-provider/index.ts';
import { memoryStore } from '../../src/stores/memory/index.ts';
import { parseLeaseHolder } from '../../src/stores/shared/turn-lease.ts';
import type { FullStore } from '../../src/stores/types.ts';

// One run at a time per session across agents sharing a store (issue 24 §5): each agent stands
// for a process (a terminal, a server); the cross-process cases are in test/stores/lease-processes.

let server: FakeProviderServer;

beforeAll(async () => {
  server = await startFakeProvider({});
  server.configure({
    script: {
      rules: [
        {
          match: { lastUserIncludes: 'long story' },
          reply: { text: 'Once upon a time there was a garden', chunkDelayMs: 100 },
        },
        { match: { lastUserIncludes: 'stall' }, reply: { text: 'late', delayMs: 20_000 } },
        { match: {}, reply: { text: 'noted' } },
      ],
    },
  });
});
afterAll(() => server.close());

function agentOn(store: FullStore, name: string, options: Partial<AgentOptions> = {}): Promise<Agent> {
  return createAgent({
    model: {
      provider: 'openai-compatible',
      name: 'gpt-4o',
      baseURL: `${server.url}/v1`,
      apiKey: 'test',
      maxInputTokens: 10_000,
    },
    name,
    store,
    session: 'shared',
    ...options,
  });
}

async function collect(
  events: AsyncIterable<AgentEvent>,
  onEvent?: (event: AgentEvent) => void | Promise<void>,
): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    await onEvent?.(event); // the run waits meanwhile: its events queue
  }
  return seen;
}

const texts = async (agent: Agent): Promise<string[]> =>
  (await agent.session.history()).map((entry) =>
    entry.message.parts.map((part) => (part.type === 'text' ? part.text : part.type)).join(''),
  );

describe('createAgent: the turn lease (issue 24 §5)', () => {
  it('a run or summary while another agent answers in the session ends with E_BUSY naming it and appends nothing', async () => {
    const store = memoryStore();
    const terminal = await agentOn(store, 'a', { turnLease: { label: 'chatfold chat' } });
    const other = await agentOn(store, 'b');
    let started = false;
    let refused: AgentEvent[] = [];
    let refusedSummary: AgentEvent[] = [];
    const answered = await collect(terminal.run('tell me a long story'), async (event) => {
      if (event.type === 'text-delta' && !started) {
        started = true;
        refused = await collect(other.run('hello from the web tab'));
        refusedSummary = await collect(other.summarize());
      }
    });
    expect(answered.at(-1)).toMatchObject({
      type: 'done',
      reason: 'stop',
      text: 'Once upon a time there was a garden',
    });
    for (const events of [refused, refusedSummary]) {
      expect(events.map((event) => event.type)).toEqual(['error', 'done']);
      const [error, done] = events as [Extract<AgentEvent, { type: 'error' }>, AgentEvent];
      expect(error.code).toBe('E_BUSY');
      expect(error.message).toMatch(
        /^another process is answering in session shared: chatfold chat \(this process, turn started \d+ s ago\); wait for its turn to finish, then send again$/,
      );
      expect(
        ChatfoldError.hasCode(error.error, 'E_BUSY') && parseLeaseHolder(error.error.details.holder ?? ''),
      ).toMatchObject({
        label: 'chatfold chat',
        pid: process.pid,
      });
      expect(done).toMatchObject({ type: 'done', reason: 'error' });
    }
    expect(await texts(other)).toEqual(['tell me a long story', 'Once upon a time there was a garden']);
    expect(await store.currentLease('shared')).toBeUndefined(); // given back at done

    // The turn is over: the other agent's message goes through.
    const next = await collect(other.run('hello from the web tab'));
    expect(next.at(-1)).toMatchObject({ type: 'done', reason: 'stop', text: 'noted' });
    expect((await texts(terminal)).slice(2)).toEqual(['hello from the web tab', 'noted']);
  }, 30_000);

  it('a run whose lease another holder took over stops with E_BUSY at its next renewal; what it produced stays', async () => {
    const store = memoryStore();
    const agent = await agentOn(store, 'a', { turnLease: { renewMs: 50 } });
    let stolen = false;
    const events = await collect(agent.run('stall please'), async (event) => {
      if (event.type === 'step-start' && !stolen) {
        stolen = true;
        const held = (await store.currentLease('shared'))?.holder;
        expect(await store.acquireLease('shared', 'thief', 60_000, held)).toBe(true);
      }
    });
    expect(events.filter((event) => event.type === 'error')).toMatchObject([
      {
        code: 'E_BUSY',
        message: expect.stringMatching(
          /^this turn stopped: it could not renew its hold on session shared \(the session was taken over by another turn\)/,
        ),
      },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'aborted' });
    expect(await texts(agent)).toEqual(['stall please']);
    expect((await store.currentLease('shared'))?.holder).toBe('thief'); // not released by the loser
  }, 30_000);

  it("turnLease: 'off' takes none (the caller holds it)", async () => {
    const store = memoryStore();
    expect(await store.acquireLease('shared', 'server', 60_000)).toBe(true);
    const agent = await agentOn(store, 'a', { turnLease: 'off' });
    const events = await collect(agent.run('hello'));
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
    expect((await store.currentLease('shared'))?.holder).toBe('server');
  }, 30_000);
});
