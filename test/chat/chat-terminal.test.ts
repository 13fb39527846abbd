import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeProviderServer } from '../../src/fake-provider/index.ts';
import { startFakeProvider } from '../../src/fake-provider/index.ts';
import { EDIT_LOOP_RULE } from '../agent/agent-fixtures.ts';
import { agentYaml, CHATFOLD_ENTRY, type ChatHome, chatHome, PROSE, SUMMARY, send } from './chat-fixtures.ts';
import { openTerminal, type TerminalSession } from './tmux-terminal.ts';

// `chatfold chat` as a person uses it (CLI-1): a real terminal (tmux) drives the REPL against
// the fake provider over HTTP; every assertion is on the screen text.

let server: FakeProviderServer;
const open: TerminalSession[] = [];

beforeAll(async () => {
  server = await startFakeProvider({});
});
afterAll(() => server.close());
afterEach(() => {
  for (const terminal of open.splice(0)) terminal.close();
  server.reset();
});

function chat(home: ChatHome, args: readonly string[]): TerminalSession {
  const terminal = openTerminal({
    command: [process.execPath, CHATFOLD_ENTRY, 'chat', ...args],
    cwd: home.dir,
    env: home.env,
  });
  open.push(terminal);
  return terminal;
}

/** Each scenario starts the CLI (a few seconds on a busy 2-core machine) and runs many turns. */
const SCENARIO_TIMEOUT_MS = 300_000;

describe('chatfold chat in a terminal (CLI-1, AG-2)', { timeout: SCENARIO_TIMEOUT_MS }, () => {
  it('tool loop with reads and edits of one file, stale reads stubbed; escapes refused; Ctrl-C mid-stream; /history; exit and resume', async () => {
    const home = chatHome();
    server.configure({
      script: {
        rules: [
          EDIT_LOOP_RULE,
          {
            match: { lastUserIncludes: 'show me the secret', isSummary: false },
            steps: [
              { toolCalls: [{ name: 'read_file', arguments: { path: '../outside/secret.txt' } }] },
              { toolCalls: [{ name: 'read_file', arguments: { path: 'link-out' } }] },
              { toolCalls: [{ name: 'write_file', arguments: { path: '/tmp/pwned.txt', content: 'x' } }] },
              { text: 'I cannot read files outside the workspace.' },
            ],
          },
          {
            match: { lastUserIncludes: 'long story', isSummary: false },
            reply: {
              text: 'Once upon a time there was a garden with roses along the fence and a very long path',
              chunkDelayMs: 400,
            },
          },
        ],
      },
    });
    home.agent(
      'dev',
      agentYaml({
        name: 'dev',
        baseURL: `${server.url}/v1`,
        window: 40_000,
        // The default policy (cheap stages, then a summary) with an N-messages trigger added.
        context: 'policy: default\nmaxMessagesBeforeSummary: 24\nminRecentMessages: 2\ntarget: 0.2',
      }),
    );
    const terminal = chat(home, ['dev', '--workspace', home.workspace, '--store', home.store]);
    await terminal.waitFor(/New session (\w+)/);

    let at = await send(terminal, '/context');
    let out = await terminal.waitFor(/History: .*\n/, { since: at });
    expect(out).toContain('  No summary yet');
    expect(out).toContain('  Messages: 0 / 24 (0%)\n           [░░░░░░░░░░░░░░░░░░░░]');

    // The tool loop: six reads and five edits of notes.md; the N-messages trigger fires after the
    // sixth read and the five stale reads are stubbed.
    at = await send(terminal, 'please fix the typos on lines 2 to 6');
    out = await terminal.waitFor(/Fixed five typos\./, { since: at });
    expect(out.match(/ {2}⚙ read_file notes\.md → [\d,]+ chars/g)?.length).toBeGreaterThanOrEqual(6);
    expect(out).toMatch(/ {2}⚙ edit_file notes\.md → \d+ chars/);
    expect(out).toMatch(
      / {2}✓ history compacted: .*\d+ stale tool outputs stubbed.*, [\d,]+ → [\d,]+ tokens, \d+\.\d s/,
    );
    expect(out).toContain('    trigger: 24 messages since the last compaction ≥ 24');
    expect(readFileSync(path.join(home.workspace, 'notes.md'), 'utf8')).not.toMatch(/teh lazy dog [1-5]\n/);

    at = await send(terminal, '/context');
    out = await terminal.waitFor(/History: .*\n/, { since: at });
    // Counted again from the compaction (which ran before the last model calls of the turn).
    expect(Number(/ {2}Messages: (\d+) \/ 24 \(\d+%\)/.exec(out)?.[1])).toBeLessThan(24);
    expect(out).toMatch(/openai-compatible:gpt-4o • \d+k\/40k tokens \(\d+ %\)/);

    at = await send(terminal, '/history line 1: the quick');
    out = await terminal.waitFor(/messages? match/, { since: at });
    expect(out).toMatch(/#4 +tool +(superseded|summarized) +\[read_file: line 1: the quick brown fox/);

    // Path escapes are refused with an error the model sees; nothing is written outside.
    at = await send(terminal, 'show me the secret');
    out = await terminal.waitFor(/I cannot read files outside the workspace\./, { since: at });
    expect(out).toContain(
      '  ✗ read_file ../outside/secret.txt → path "../outside/secret.txt" refused: ".." is not allowed',
    );
    expect(out).toContain(
      '  ✗ read_file link-out → path "link-out" refused: a symbolic link leads outside the workspace',
    );
    expect(out).toContain(
      '  ✗ write_file /tmp/pwned.txt → path "/tmp/pwned.txt" refused: absolute paths are not allowed',
    );
    expect(out).not.toContain('TOP SECRET');

    // Ctrl-C mid-stream cancels the turn; what was already streamed stays in the history.
    at = await send(terminal, 'tell me a long story');
    await terminal.waitFor(/Once upon a/, { since: at });
    terminal.press('C-c');
    out = await terminal.waitFor(/⏹ cancelled \(history kept\)\n\nYou>$/, { since: at });
    expect(out).not.toContain('very long path');
    at = await send(terminal, '/history story');
    out = await terminal.waitFor(/messages? match/, { since: at });
    expect(out).toMatch(/#\d+ +user +in context +tell me a long story/);
    at = await send(terminal, '/history Once upon');
    out = await terminal.waitFor(/messages? match/, { since: at });
    expect(out).toMatch(/#\d+ +assistant +in context +Once upon a/);

    // Ctrl-D exits and prints the command that resumes the session.
    terminal.press('C-d');
    out = await terminal.waitFor(/\[exited 0\]/, { since: at });
    const resume = /Resume this session: (chatfold chat dev --session (\w+) .*)\n/.exec(out);
    expect(resume?.[1]).toBe(
      `chatfold chat dev --session ${resume?.[2]} --workspace ${home.workspace} --store ${home.store}`,
    );

    // Resume: seed 004 scenario 6's two lines, then the session goes on.
    const again = chat(home, [
      'dev',
      '--session',
      resume?.[2] as string,
      '--workspace',
      home.workspace,
      '--store',
      home.store,
    ]);
    const resumed = await again.waitFor(/You>$/);
    expect(resumed).toMatch(
      new RegExp(`Resuming session ${resume?.[2]}\\n(\\d+) messages in history \\((\\d+) summarized\\)\\n`),
    );
    at = await send(again, '/compactions');
    out = await again.waitFor(/compactions?:\n.*\n/, { since: at });
    expect(out).toMatch(/ {2}1\. \d{4}-\d\d-\d\d \d\d:\d\d {2}auto +[\d,]+ → [\d,]+ tokens/);
    again.press('C-c');
    again.press('C-c');
    await again.waitFor(/Resume this session: .*\n\n?\[exited 0\]/);
  });

  it('the N-messages trigger and the K-tokens trigger, /context before and after, /summarize with progress, /history search', async () => {
    const home = chatHome();
    server.configure({
      script: {
        rules: [
          { match: { isSummary: true }, reply: { text: SUMMARY, chunkDelayMs: 150 } },
          { match: { isSummary: false }, reply: { text: 'Noted.' } },
        ],
      },
    });
    // A 12k window without tools: budget ≈ 10k, target (0.2) ≈ 2k, 80 % ≈ 8k. Each prompt is
    // ~800 tokens: N = 8 messages fires first for `quick` (at ~3,200 tokens, past the 2,000-token
    // floor and the target); K = 4,000 tokens fires for `deep` (whose N is far away).
    home.agent(
      'quick',
      agentYaml({
        name: 'quick',
        baseURL: `${server.url}/v1`,
        window: 12_000,
        tools: '[]',
        context:
          'maxMessagesBeforeSummary: 8\nmaxTokensBeforeSummary: 100000\nminRecentMessages: 2\ntarget: 0.2',
      }),
    );
    home.agent(
      'deep',
      agentYaml({
        name: 'deep',
        baseURL: `${server.url}/v1`,
        window: 12_000,
        tools: '[]',
        context:
          'maxMessagesBeforeSummary: 100\nmaxTokensBeforeSummary: 4000\nminRecentMessages: 2\ntarget: 0.2',
      }),
    );
    const terminal = chat(home, ['quick', '--store', home.store]);
    await terminal.waitFor(/New session/);
    for (const topic of ['roses', 'tulips']) {
      const at = await send(terminal, `About ${topic}: ${PROSE}`);
      await terminal.waitFor(/Noted\.\n/, { since: at });
    }
    let at = await send(terminal, '/context');
    let out = await terminal.waitFor(/History: .*\n/, { since: at });
    expect(out).toContain('  No summary yet');
    expect(out).toContain('  Messages: 5 / 8 (63%)\n           [████████████░░░░░░░░]');
    expect(out).not.toContain('⚡');
    at = await send(terminal, `About ferns: ${PROSE}`);
    await terminal.waitFor(/Noted\.\n/, { since: at });
    at = await send(terminal, '/context');
    out = await terminal.waitFor(/History: .*\n/, { since: at });
    expect(out).toContain('  Messages: 7 / 8 (88%)\n           [█████████████████░░░]');
    expect(out).toContain('\n  ⚡ Summarization will trigger on next message\n');

    // The next message fires the N trigger: a visible line while the summary streams, one at the end.
    at = await send(terminal, `About daisies: ${PROSE}`);
    await terminal.waitFor(/⟳ (compacting history|summarizing…)/, { since: at });
    out = await terminal.waitFor(/Noted\.\n/, { since: at });
    expect(out).toMatch(
      / {2}✓ history compacted: \d+ messages → summary, [\d,]+ → [\d,]+ tokens, \d+\.\d s\n {4}trigger: 8 messages since the last compaction ≥ 8\n/,
    );
    at = await send(terminal, '/context');
    out = await terminal.waitFor(/History: .*\n/, { since: at });
    expect(out).toMatch(
      / {2}Last summary: \d+ messages → \d+ tokens\n {2}Created: \d{4}-\d\d-\d\d \d\d:\d\d\n/,
    );
    expect(out).toMatch(/ {2}Messages: [0-3] \/ 8 \(\d+%\)/);
    expect(out).toMatch(/History: 9 messages in history \([1-9] summarized\)/);

    // /summarize: preview, progress while the summary streams, result with tokens saved.
    at = await send(terminal, '/summarize keep the flower names');
    await terminal.waitFor(/⟳ summarizing… \d+ characters/, { since: at });
    out = await terminal.waitFor(/Summary ready: .*\n.*\n/, { since: at });
    expect(out).toMatch(
      /^Summarizing \d+ of 9 messages: about [\d,]+ → [\d,]+ tokens \(instructions: keep the flower names\)\.\n/m,
    );
    expect(out).toMatch(
      /Summary ready: [\d,]+ → [\d,]+ tokens in the prompt \([\d,]+ saved\); it covers [\d,]+ messages?\.\n {2}## Context and goal The user keeps describing the garden/,
    );
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('keep the flower names');

    // /history finds summarized originals (nothing is deleted) and marks them.
    at = await send(terminal, '/history roses');
    out = await terminal.waitFor(/messages? match "roses"/, { since: at });
    expect(out).toMatch(/#4 +user +summarized +About tulips: We talked about the garden/);
    // The rolling summary does not pin the first user message: it is summarized like the rest.
    expect(out).toMatch(/#2 +user +summarized +About roses: /);
    terminal.press('C-d');
    await terminal.waitFor(/\[exited 0\]/);

    // The K-tokens trigger, for an agent whose N is far away.
    const deep = chat(home, ['deep', '--store', home.store]);
    await deep.waitFor(/New session/);
    let compacted = '';
    for (let turn = 0; turn < 6 && compacted === ''; turn++) {
      const start = await send(deep, `Turn ${turn}: ${PROSE}`);
      const text = await deep.waitFor(/Noted\.\n/, { since: start });
      compacted = /trigger: prompt [\d,]+ ≥ 4,000 tokens\n/.test(text) ? text : '';
    }
    expect(compacted).toMatch(
      / {2}✓ history compacted: \d+ messages → summary, [\d,]+ → [\d,]+ tokens, \d+\.\d s\n/,
    );
    deep.press('C-d');
    await deep.waitFor(/\[exited 0\]/);
  });

  it('a malformed agent file: every problem with file:line:col, exit code 1', async () => {
    const home = chatHome();
    home.agent(
      'broken',
      `name: broken
model:
  provider: openai-compatible
  name: gpt-4o
  baseURL: ${server.url}/v1
context:
  autoSummarize: true
  maxMessagesBeforeSummary: thirty
  max_tokens_before_sumary: 5000
`,
    );
    const terminal = chat(home, ['broken']);
    const out = await terminal.waitFor(/\[exited \d+\]/);
    const file = path.join(home.dir, '.chatfold', 'agents', 'broken.yaml');
    expect(out).toContain(
      `chatfold: ${file}:8:29 context.maxMessagesBeforeSummary: expected a positive integer, received "thirty"\n${file}:9:3 context.max_tokens_before_sumary: unknown key (did you mean max_tokens_before_summary?)`,
    );
    expect(out).toMatch(/\[E_AGENT_FILE\]\n\[exited 1\]$/);
  });
});
