import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import { startUsageServer, type UsageServer } from '../agent/usage-server.ts';
import { chatHome, localModel, runChat } from './chat-fixtures.ts';

// Seed 004's test scenarios, run as its document writes them: agent files in its own spelling
// (snake_case), `chatfold chat` over piped input against an OpenAI-compatible server that is not
// chatfold's fake provider. Scenarios 3 and 4 (the /context layout) are checked line by line in
// src/cli/repl/context-view.test.ts and in colour in chat-paste-wait-colour.test.ts.

const EXAMPLES = new URL('../../examples/agents/designs/context-sprint/', import.meta.url).pathname;
const SUMMARY =
  '## Context and goal\nThe user is planning the garden: the roses along the fence need water every few days, and the beds need compost before the spring planting.';

let server: UsageServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start() {
  server = await startUsageServer({
    shape: 'ollama',
    reporting: 'correct',
    answer: 'Noted.',
    summary: SUMMARY,
  });
  return server;
}

/** `n` user turns of about `words` words each. */
const turns = (n: number, words = 12) =>
  Array.from(
    { length: n },
    (_, i) => `Turn ${i}: ${'the roses along the fence need water '.repeat(Math.ceil(words / 7))}`,
  ).join('\n');

async function storedMessages(store: string, session: string): Promise<number> {
  const opened = sqliteStore(store);
  try {
    return (await opened.messages(session)).length;
  } finally {
    await opened.close();
  }
}

describe('seed 004 scenarios', { timeout: 120_000 }, () => {
  it('1: max_messages_before_summary: 10 — summarized by the message count; every message still stored', async () => {
    const local = await start();
    const home = chatHome();
    const file = path.join(home.dir, 'n10.yaml');
    writeFileSync(file, 'name: n10\ncontext:\n  max_messages_before_summary: 10\n');
    const run = await runChat(
      home,
      ['chat', file, ...localModel(local.baseURL), '--store', home.store, '--session', 's1', '--new'],
      `${turns(8)}\n/context\n`,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      / {2}✓ history compacted: .*\n {4}trigger: .*1\d messages since the last compaction ≥ 10/,
    );
    expect(run.stdout).toMatch(/ {2}Last summary: \d+ messages → \d+ tokens/);
    expect(run.stdout).toMatch(/ {2}Messages: \d+ \/ 10 \(\d+%\)/);
    expect(await storedMessages(home.store, 's1')).toBe(16); // 8 prompts + 8 answers, none lost
  });

  it('2: max_tokens_before_summary: 5000 — summarized by the token count; the model then gets fewer messages', async () => {
    const local = await start();
    const home = chatHome();
    const file = path.join(home.dir, 'k5000.yaml');
    writeFileSync(file, 'name: k5000\ncontext:\n  max_tokens_before_summary: 5000\n');
    const run = await runChat(
      home,
      ['chat', file, ...localModel(local.baseURL), '--store', home.store, '--session', 's2', '--new'],
      `${turns(8, 700)}\n`,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/ {2}✓ history compacted: .*\n {4}trigger: prompt [\d,]+ ≥ 5,000 tokens/);
    // The 8th prompt comes after 7 exchanges: 15 messages uncompacted.
    const chat = local.requests.filter((request) => !request.isSummary);
    expect(chat).toHaveLength(8);
    expect(chat.at(-1)?.messages).toBeLessThan(15);
    expect(await storedMessages(home.store, 's2')).toBe(16);
  });

  it('5: per-agent thresholds — quick_assistant 15 / 32,000, researcher 50 / 180,000, from the document’s files', async () => {
    const local = await start();
    const home = chatHome();
    const common = [...localModel(local.baseURL), '--store', home.store];
    const quick = await runChat(
      home,
      ['chat', path.join(EXAMPLES, 'quick_assistant.yaml'), ...common],
      'hello\n/context\n',
    );
    expect(quick.stdout).toContain('  Messages: 2 / 15 (13%)');
    expect(quick.stdout).toMatch(/ {2}Tokens: {3}[\d,]+ \/ 32,000 \(\d+%\)/);
    const researcher = await runChat(
      home,
      ['chat', path.join(EXAMPLES, 'researcher.yaml'), ...common],
      'hello\n/context\n',
    );
    expect(researcher.stdout).toContain('  Messages: 2 / 50 (4%)');
    expect(researcher.stdout).toMatch(/ {2}Tokens: {3}[\d,]+ \/ 180,000 \(\d+%\)/);
  });

  it('6: resume with summary — "Resuming session ID" and "N messages in history (M summarized)"', async () => {
    const local = await start();
    const home = chatHome();
    const file = path.join(home.dir, 'n10.yaml');
    writeFileSync(file, 'name: n10\ncontext:\n  max_messages_before_summary: 10\n');
    const common = ['chat', file, ...localModel(local.baseURL), '--store', home.store];
    await runChat(home, [...common, '--session', 'abc123', '--new'], `${turns(8)}\n`);
    const resumed = await runChat(home, [...common, '--session', 'abc123', '--print', 'and now?']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(
      /^\nResuming session abc123\n16 messages in history \(\d+ summarized\)\n\n$/,
    );
    expect(Number(/\((\d+) summarized\)/.exec(resumed.stderr)?.[1])).toBeGreaterThan(0);
  });
});

describe('seed 000 §2.2: history summarize and truncate at 80 % of max_input_tokens', {
  timeout: 120_000,
}, () => {
  const reviewer = (history: string) =>
    `name: reviewer\nmodel:\n  provider: openai-compatible\n  name: gpt-4o\n  max_input_tokens: 4000\nhistory: ${history}\n`;

  it('truncate: past 80 % the first user message stays, a marker says how many were dropped, the prompt is cut to 70 %', async () => {
    const local = await start();
    const home = chatHome();
    const file = path.join(home.dir, 'reviewer.yaml');
    writeFileSync(file, reviewer('truncate'));
    const run = await runChat(
      home,
      ['chat', file, '--base-url', local.baseURL, '--store', home.store],
      `${turns(14, 200)}\n`,
    );
    expect(run.code).toBe(0);
    const chat = local.requests.filter((request) => !request.isSummary);
    expect(Math.max(...chat.map((request) => request.promptTokens))).toBeLessThanOrEqual(4000);
    const truncated = chat.find((request) =>
      request.transcript.some((line) => /earlier messages truncated to fit context window\]/.test(line)),
    );
    expect(truncated?.transcript[0]).toMatch(/^user: Turn 0:/);
    expect(
      truncated?.transcript.some((line) =>
        /\[\d+ earlier messages truncated to fit context window\]/.test(line),
      ),
    ).toBe(true);
    // Cut to 70 % of the window (by the server's own count, which is close to chatfold's here).
    expect(truncated?.promptTokens).toBeLessThanOrEqual(0.7 * 4000);
  });

  it('summarize: past 80 % a summary replaces the middle; the first user message (the goal) stays', async () => {
    const local = await start();
    const home = chatHome();
    const file = path.join(home.dir, 'reviewer.yaml');
    writeFileSync(file, reviewer('summarize'));
    const run = await runChat(
      home,
      ['chat', file, '--base-url', local.baseURL, '--store', home.store],
      `${turns(14, 200)}\n`,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/ {2}✓ history compacted: .*→ summary/);
    const chat = local.requests.filter((request) => !request.isSummary);
    expect(Math.max(...chat.map((request) => request.promptTokens))).toBeLessThanOrEqual(4000);
    const last = chat.at(-1)?.transcript ?? [];
    expect(last.some((line) => line.includes('[chatfold summary of'))).toBe(true);
    expect(last.some((line) => line.startsWith('user: Turn 0:'))).toBe(true);
  });
});

describe('seed 003 success criterion: 100 messages to a local model, truncation from 28,000 of 32,000', {
  timeout: 180_000,
}, () => {
  it('the design’s own file: compacted, never over the window, the last 10 messages kept, every message stored', async () => {
    // Each answer is ~330 tokens: 100 turns pass 28,000 tokens about 85 turns in.
    const answer = `Noted. ${'The roses along the fence need water every few days in summer. '.repeat(30)}`;
    server = await startUsageServer({ shape: 'llama.cpp', reporting: 'correct', answer, summary: SUMMARY });
    const home = chatHome();
    const file = new URL('../../examples/agents/designs/local-models/local_assistant.yaml', import.meta.url)
      .pathname;
    const input = Array.from({ length: 100 }, (_, i) => `Message ${i}`).join('\n');
    const run = await runChat(
      home,
      ['chat', file, '--base-url', server.baseURL, '--store', home.store, '--session', 'local', '--new'],
      `${input}\n`,
    );
    expect(run.code).toBe(0);
    const chat = server.requests.filter((request) => !request.isSummary);
    expect(chat).toHaveLength(100);
    expect(Math.max(...chat.map((request) => request.promptTokens))).toBeLessThanOrEqual(32_000);
    const last = chat.at(-1)?.transcript ?? [];
    expect(last.length).toBeLessThan(199); // not all 100 exchanges
    expect(last.slice(-10).filter((line) => line.startsWith('user: Message ')).length).toBe(5); // keep_recent 10
    expect(last.at(-1)).toBe('user: Message 99');
    expect(await storedMessages(home.store, 'local')).toBe(200);
  });
});
