import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, AgentEvent, AgentOptions } from '../../src/agent/index.ts';
import { createAgent, openWorkspaceRoot, workspaceTools } from '../../src/agent/index.ts';
import type { FakeProviderServer, FakeScript } from '../../src/fake-provider/index.ts';
import { startFakeProvider } from '../../src/fake-provider/index.ts';
import { memoryStore } from '../../src/stores/memory/index.ts';
import type { Store } from '../../src/stores/types.ts';
import { EDIT_LOOP_RULE, NOTES } from './agent-fixtures.ts';

// The agent runtime (AG-3) over real HTTP: the AI SDK's OpenAI-compatible provider talks to the
// fake provider, which answers from a script (tool loops, slow streams, slow summaries).

let server: FakeProviderServer;
let workspace: string;

beforeAll(async () => {
  server = await startFakeProvider({});
});
afterAll(() => server.close());
afterEach(() => server.reset());

function freshWorkspace(): string {
  workspace = mkdtempSync(path.join(tmpdir(), 'chatfold-agent-'));
  writeFileSync(path.join(workspace, 'notes.md'), NOTES);
  return workspace;
}

async function agentWith(
  script: FakeScript,
  options: Partial<AgentOptions> & { store?: Store } = {},
): Promise<Agent> {
  server.configure({ script });
  return createAgent({
    model: {
      provider: 'openai-compatible',
      name: 'gpt-4o',
      baseURL: `${server.url}/v1`,
      apiKey: 'test',
      // A 10k window: budget ≈ 7,350 tokens after output, margin and tools; target ≈ 3,675.
      maxInputTokens: 10_000,
      maxOutputTokens: 1000,
    },
    instructions: 'You are a careful editor.',
    tools: workspaceTools(await openWorkspaceRoot(workspace ?? freshWorkspace())),
    ...options,
  });
}

async function collect(
  events: AsyncIterable<AgentEvent>,
  onEvent?: (event: AgentEvent) => void,
): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    onEvent?.(event);
  }
  return seen;
}

/** Event types in order, consecutive text deltas counted once. */
const types = (events: readonly AgentEvent[]) =>
  events
    .map((event) => event.type)
    .filter((type, index, all) => !(type === 'text-delta' && all[index - 1] === 'text-delta'));

const editLoop: FakeScript = { rules: [EDIT_LOOP_RULE] };

/** ~600 tokens of prose with no numbers or paths (a small fact ledger, so summaries are short). */
const PROSE = Array.from(
  { length: 12 },
  () => 'We talked about the garden, the roses along the fence, and which plants need shade in summer.',
).join(' ');

/** What the scripted summarizer writes. */
const SUMMARY =
  '## Context and goal\nThe user described the garden: roses along the fence, plants that need shade.';

const readEditRead: FakeScript = {
  rules: [
    {
      match: { lastUserIncludes: 'fix the typo', isSummary: false },
      steps: [
        { text: 'Reading it.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] },
        {
          toolCalls: [
            {
              name: 'edit_file',
              arguments: {
                path: 'notes.md',
                old_string: 'over teh lazy dog 7\n',
                new_string: 'over the lazy dog 7\n',
              },
            },
          ],
        },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] },
        { text: 'Fixed line 8.' },
      ],
    },
  ],
};

describe('createAgent: the tool loop (AG-3)', () => {
  it('streams events in order and appends every message as it happens', async () => {
    freshWorkspace();
    const agent = await agentWith(readEditRead);
    const events = await collect(agent.run('please fix the typo on line 8'));
    const done = events.at(-1);
    expect(done).toMatchObject({ type: 'done', reason: 'stop', steps: 4, text: 'Fixed line 8.' });
    // First step: the user input, the prompt, the streamed text and the call, then its result.
    expect(types(events).slice(0, 9)).toEqual([
      'message', // system (instructions, stored once)
      'message', // user
      'step-start',
      'text-delta',
      'tool-call',
      'message', // assistant with the call
      'usage',
      'tool-result',
      'message', // tool
    ]);
    expect(events.find((event) => event.type === 'tool-call')).toMatchObject({
      toolName: 'read_file',
      path: 'notes.md',
    });
    expect(readFileSync(path.join(workspace, 'notes.md'), 'utf8')).toContain(
      'line 8: the quick brown fox jumps over the lazy dog 7',
    );
    const history = await agent.session.history();
    expect(history.map((entry) => entry.message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    // Usage was recorded on each assistant message (TOK-5).
    expect(
      history
        .filter((entry) => entry.message.role === 'assistant')
        .every((entry) => (entry.inputTokens ?? 0) > 0),
    ).toBe(true);
    expect(done).toMatchObject({
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    });
  });

  it('compacts between two steps of one run when the N-messages trigger fires; stale reads are stubbed', async () => {
    freshWorkspace();
    // A 40k window (budget ≈ 35k; outputs far below clip's quarter of it). The trigger fires after
    // the 6th read (24 messages, 6 copies of the file): above a 0.2 target, below the 80 % threshold.
    const agent = await agentWith(editLoop, {
      model: {
        provider: 'openai-compatible',
        name: 'gpt-4o',
        baseURL: `${server.url}/v1`,
        apiKey: 'test',
        maxInputTokens: 40_000,
        maxOutputTokens: 1000,
      },
      // The default policy (cheap stages, then a summary) with an N-messages trigger added.
      context: { policy: 'default', maxMessagesBeforeSummary: 24, minRecentMessages: 2, target: 0.2 },
    });
    const events = await collect(agent.run('please fix the typos on lines 2 to 6'));
    const starts = events.flatMap((event, index) => (event.type === 'step-start' ? [index] : []));
    const compaction = events.findIndex((event) => event.type === 'compaction-start');
    expect(compaction).toBeGreaterThan(starts[0] as number);
    expect(compaction).toBeLessThan(starts.at(-1) as number); // inside the run, before its last model call
    const end = events.find((event) => event.type === 'compaction-end');
    expect(end).toMatchObject({
      mode: 'auto',
      report: {
        compacted: true,
        reason: expect.stringContaining('24 messages since the last compaction ≥ 24'),
      },
    });
    if (end?.type === 'compaction-end') {
      // The 5 stale reads, and edit snippets a later full read made stale too (STR-1).
      expect(end.report.stages.find((stage) => stage.stage === 'supersede')?.stubbed).toBeGreaterThanOrEqual(
        5,
      );
    }
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'stop', text: 'Fixed five typos.' });
    const history = await agent.session.history({ limit: 200 });
    const reads = history.filter(
      (entry) =>
        entry.message.role === 'tool' &&
        entry.message.parts.some((part) => part.type === 'tool-result' && part.toolName === 'read_file'),
    );
    // The first five reads left the active context (stubbed, or folded into a summary after that);
    // the newest read is what the model sees. Every original stays in the store.
    expect(
      reads.slice(0, 5).every((entry) => entry.status === 'superseded' || entry.status === 'summarized'),
    ).toBe(true);
    expect(reads.at(-1)?.status).toBe('in-context');
    expect(history.slice(0, 25).map((entry) => entry.seq)).toEqual(
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    expect(readFileSync(path.join(workspace, 'notes.md'), 'utf8')).not.toMatch(/teh lazy dog [1-5]\n/);
  });

  it('an escaping path is an error result the model sees; the run goes on', async () => {
    freshWorkspace();
    const agent = await agentWith({
      rules: [
        {
          match: { isSummary: false },
          steps: [
            { toolCalls: [{ name: 'read_file', arguments: { path: '../../etc/passwd' } }] },
            { text: 'Not allowed.' },
          ],
        },
      ],
    });
    const events = await collect(agent.run('read the password file'));
    expect(events.find((event) => event.type === 'tool-result')).toMatchObject({
      isError: true,
      output: expect.stringMatching(/^Error: path "..\/..\/etc\/passwd" refused: ".." is not allowed/),
    });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'stop', text: 'Not allowed.' });
  });

  it('an unknown tool or bad arguments become error results, never a crash', async () => {
    freshWorkspace();
    const agent = await agentWith({
      rules: [
        {
          match: { isSummary: false },
          steps: [
            {
              toolCalls: [
                { name: 'rm_rf', arguments: {} },
                { name: 'read_file', arguments: { path: 42 } },
              ],
            },
            { text: 'ok' },
          ],
        },
      ],
    });
    const events = await collect(agent.run('go'));
    const results = events.filter((event) => event.type === 'tool-result');
    expect(results).toHaveLength(2);
    expect(results.every((event) => event.type === 'tool-result' && event.isError)).toBe(true);
    expect(events.at(-1)).toMatchObject({ reason: 'stop' });
  });
});

describe('createAgent: abort (AG-3)', () => {
  it('aborting mid-stream stops the model call and keeps the partial answer', async () => {
    freshWorkspace();
    const agent = await agentWith({
      rules: [
        {
          match: { isSummary: false },
          reply: { text: 'one two three four five six seven eight nine ten', chunkDelayMs: 300 },
        },
      ],
    });
    const controller = new AbortController();
    const events = await collect(agent.run('count slowly', { signal: controller.signal }), (event) => {
      if (event.type === 'text-delta') controller.abort();
    });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'aborted' });
    const last = (await agent.session.history()).at(-1)?.message;
    expect(last).toMatchObject({ role: 'assistant', metadata: { interrupted: true } });
    expect(last?.parts[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^one/) });
    expect(JSON.stringify(last?.parts)).not.toContain('ten');
  });

  it('aborting during a slow summary cancels it: no snapshot, history intact', async () => {
    freshWorkspace();
    const agent = await agentWith(
      {
        rules: [
          { match: { isSummary: true }, reply: { delayMs: 20_000 } },
          { match: { isSummary: false }, reply: { text: 'noted' } },
        ],
      },
      // K = 3,000 tokens: the third copy of the notes (about 1,100 tokens each) fires it, below 80 %.
      { context: { maxTokensBeforeSummary: 3000, minRecentMessages: 2 } },
    );
    for (const text of ['first', 'second']) await collect(agent.run(`${text}: ${NOTES}`));
    const controller = new AbortController();
    const events = await collect(agent.run(`third: ${NOTES}`, { signal: controller.signal }), (event) => {
      if (event.type === 'compaction-start') setTimeout(() => controller.abort(), 200);
    });
    expect(types(events)).toContain('compaction-start');
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'aborted' });
    expect(await agent.session.compactions()).toEqual([]);
    expect((await agent.session.history()).map((entry) => entry.message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
  });
});

describe('createAgent: hooks, summaries, errors (HK-1, HK-2, RT-3)', () => {
  it('beforeCompact can cancel or supply the summary; afterCompact sees the report', async () => {
    freshWorkspace();
    const seen: string[] = [];
    let cancel = true;
    const agent = await agentWith(
      { rules: [{ match: { isSummary: false }, reply: { text: 'noted' } }] },
      {
        context: { minRecentMessages: 2 },
        hooks: {
          beforeCompact: (context) => {
            seen.push(`before:${context.mode}`);
            return cancel ? { cancel: true } : { customSummary: 'We talked about the garden.' };
          },
          afterCompact: (report) => {
            seen.push(`after:${report.compacted}`);
          },
        },
      },
    );
    for (const text of ['first', 'second', 'third', 'fourth']) await collect(agent.run(`${text}: ${PROSE}`));
    const cancelled = await collect(agent.summarize());
    expect(cancelled.find((event) => event.type === 'compaction-end')).toMatchObject({
      report: { compacted: false, cancelled: true },
    });
    expect(await agent.session.compactions()).toEqual([]);
    cancel = false;
    const summarized = await collect(agent.summarize());
    expect(summarized.find((event) => event.type === 'compaction-end')).toMatchObject({
      mode: 'manual',
      report: {
        compacted: true,
        summary: { text: expect.stringContaining('We talked about the garden.'), source: 'custom' },
      },
    });
    expect(seen).toEqual(['before:manual', 'before:manual', 'after:true']);
  });

  it('summarize() streams the summary as progress deltas; previewSummary() calls no model', async () => {
    freshWorkspace();
    const agent = await agentWith(
      {
        rules: [
          { match: { isSummary: true }, reply: { text: SUMMARY } },
          { match: { isSummary: false }, reply: { text: 'noted' } },
        ],
      },
      { context: { minRecentMessages: 2 } },
    );
    for (const text of ['first', 'second', 'third', 'fourth']) await collect(agent.run(`${text}: ${PROSE}`));
    const requests = server.requests.length;
    const preview = await agent.previewSummary();
    expect(server.requests.length).toBe(requests);
    expect(preview).toMatchObject({ willCompact: true, messagesInHistory: 9 });
    expect(preview.messagesToSummarize).toBeGreaterThan(0);
    expect(preview.tokensAfter).toBeLessThan(preview.tokensBefore);
    const events = await collect(agent.summarize({ instructions: 'Keep the plant names.' }));
    const deltas = events.flatMap((event) =>
      event.type === 'compaction-progress' && event.delta !== undefined ? [event.delta] : [],
    );
    expect(deltas.length).toBeGreaterThan(1);
    // The summary may be asked for again, shorter, when the first does not reach the target (SUM-6).
    expect(deltas.join('').startsWith(SUMMARY)).toBe(true);
    expect(events.find((event) => event.type === 'compaction-end')).toMatchObject({
      report: { compacted: true, summary: { source: 'llm', text: expect.stringContaining(SUMMARY) } },
    });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'stop' });
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('Keep the plant names.');
    expect((await agent.session.compactions())[0]).toMatchObject({
      mode: 'manual',
      summarySource: 'llm',
      summarizerModel: 'openai-compatible:gpt-4o',
    });
  });

  it('a failing manual summary is an error that changes nothing (never an extractive summary shown as done)', async () => {
    freshWorkspace();
    const agent = await agentWith(
      {
        rules: [
          { match: { isSummary: true }, reply: { error: { status: 503, message: 'overloaded' } } },
          { match: { isSummary: false }, reply: { text: 'noted' } },
        ],
      },
      { context: { minRecentMessages: 2 } },
    );
    for (const text of ['first', 'second', 'third', 'fourth']) await collect(agent.run(`${text}: ${PROSE}`));
    const events = await collect(agent.summarize());
    expect(events.find((event) => event.type === 'error')).toMatchObject({ code: 'E_SUMMARY_FAILED' });
    expect(events.find((event) => event.type === 'compaction-end')).toBeUndefined();
    expect(await agent.session.compactions()).toEqual([]);
  });

  it('a failing automatic summary falls back to the extractive one, announced as compaction-fallback', async () => {
    freshWorkspace();
    const agent = await agentWith(
      {
        rules: [
          { match: { isSummary: true }, reply: { error: { status: 503, message: 'overloaded' } } },
          { match: { isSummary: false }, reply: { text: 'noted' } },
        ],
      },
      {
        context: {
          policy: { preset: 'default', overrides: { floor: { tokens: 0 } } },
          maxMessagesBeforeSummary: 14,
          minRecentMessages: 2,
        },
      },
    );
    const events: AgentEvent[] = [];
    for (let turn = 0; turn < 8; turn++) events.push(...(await collect(agent.run(`turn ${turn}: ${PROSE}`))));
    expect(events.find((event) => event.type === 'compaction-fallback')).toMatchObject({
      source: 'summarizer',
      fallback: 'extractive',
    });
    expect(events.find((event) => event.type === 'compaction-end')).toMatchObject({
      report: { compacted: true, summary: { source: 'extractive' } },
    });
  });

  it('a provider overflow error compacts against the reported limit and retries once (RT-3)', async () => {
    freshWorkspace();
    const agent = await agentWith({ rules: [{ match: { isSummary: false }, reply: { text: 'noted' } }] });
    for (const text of ['first', 'second']) await collect(agent.run(`${text}: ${NOTES}`));
    server.configure({ contextLimit: 2500 });
    const events = await collect(agent.run('and now?'));
    expect(events.find((event) => event.type === 'compaction-start')).toMatchObject({ mode: 'overflow' });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'stop', text: 'noted' });
  });

  it('an overflow that the retry cannot cure is one E_CONTEXT_OVERFLOW error with limit, actual and provider (the shared retry)', async () => {
    freshWorkspace();
    const agent = await agentWith({ rules: [{ match: { isSummary: false }, reply: { text: 'noted' } }] });
    await collect(agent.run(`first: ${NOTES}`));
    // A limit smaller than the system prompt and the latest turn: nothing chatfold can send fits.
    server.configure({ contextLimit: 40 });
    const events = await collect(agent.run(`and now? ${NOTES}`));
    const error = events.find((event) => event.type === 'error');
    expect(error).toMatchObject({ code: 'E_CONTEXT_OVERFLOW' });
    expect((error as { error: { details: unknown } }).error.details).toMatchObject({
      limit: 40,
      actual: expect.any(Number),
      provider: expect.any(String),
    });
    expect(events.filter((event) => event.type === 'step-start')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
  });

  it('a refused key and an unreachable server are one-line error events; done follows', async () => {
    freshWorkspace();
    server.configure({ failAlways: { status: 401, message: 'bad key' } });
    const agent = await agentWith({ rules: [] });
    const refused = await collect(agent.run('hi'));
    expect(refused.find((event) => event.type === 'error')).toMatchObject({
      code: 'E_PROVIDER',
      message: expect.stringMatching(/refused the API key \(HTTP 401\); check OPENAI_COMPATIBLE_API_KEY$/),
    });
    expect(refused.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
    const closed = await startFakeProvider({});
    const closedUrl = closed.url;
    await closed.close(); // nothing listens there any more
    const offline = await createAgent({
      model: { provider: 'openai-compatible', name: 'gpt-4o', baseURL: `${closedUrl}/v1`, apiKey: 'x' },
    });
    const unreachable = await collect(offline.run('hi'));
    expect(unreachable.find((event) => event.type === 'error')).toMatchObject({
      message: expect.stringMatching(/^cannot reach .*: ECONNREFUSED; start the server or check --base-url$/),
    });
    expect((await offline.session.history()).map((entry) => entry.message.role)).toEqual(['user']);
  });

  it('a resumed session keeps its history and stores the instructions once (ST-6)', async () => {
    freshWorkspace();
    const store = memoryStore();
    const first = await agentWith(
      { rules: [{ match: { isSummary: false }, reply: { text: 'noted' } }] },
      { store, session: 'abc123' },
    );
    await collect(first.run('remember the number 42'));
    const second = await agentWith(
      { rules: [{ match: { isSummary: false }, reply: { text: 'noted again' } }] },
      {
        store,
        session: 'abc123',
        instructions: 'You are a terse editor.',
      },
    );
    await collect(second.run('what was it?'));
    const history = await second.session.history();
    expect(history.map((entry) => entry.message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    // The newest instructions are what the model gets.
    const lastRequest = JSON.stringify(server.requests.at(-1)?.body);
    expect(lastRequest).toContain('You are a terse editor.');
    expect(lastRequest).not.toContain('You are a careful editor.');
  });
});
