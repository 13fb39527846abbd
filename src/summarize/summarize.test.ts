import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { DEFAULT_LEDGER_CAPS, EMPTY_LEDGER, extractLedger } from './ledger.ts';
import { buildSummaryPrompt } from './prompts.ts';
import { recentFiles } from './recent-files.ts';
import { summarizeSpan } from './summarize-span.ts';
import { formatLedger, formatSummaryMessage, parseSummaryMessage } from './summary-message.ts';
import type { FactLedger } from './types.ts';

const counter = createMockTokenCounter();
const session = () =>
  buildConversation()
    .user('Please fix the flaky test in test/api.test.ts')
    .toolRound([
      {
        name: 'Read',
        args: { file_path: 'src/api.ts' },
        result: 'export function handler() {}\n'.repeat(30),
      },
      {
        name: 'Bash',
        args: { command: 'npm test -- api' },
        result: 'FAIL test/api.test.ts\nError: timeout after 5000 ms on port 5432',
        isError: true,
      },
    ])
    .assistant(
      'The test times out because the handler never closes the connection; see https://nodejs.org/api/net.html and commit 3f2a9c1d.',
    )
    .toolRound([
      { name: 'Edit', args: { file_path: 'src/api.ts', old_string: 'a', new_string: 'b' }, result: 'ok' },
    ])
    .build();

describe('extractLedger (SUM-4)', () => {
  it('collects read and modified files, commands, URLs, identifiers, numbers and errors', () => {
    const ledger = extractLedger(session());
    expect(ledger.filesRead).toEqual(['src/api.ts']);
    expect(ledger.filesModified).toEqual(['src/api.ts']);
    expect(ledger.commands).toEqual(['npm test -- api']);
    expect(ledger.urls).toEqual(['https://nodejs.org/api/net.html']);
    expect(ledger.identifiers).toContain('3f2a9c1d');
    expect(ledger.numbers).toEqual(expect.arrayContaining(['5000 ms', 'port 5432']));
    expect(ledger.errors[0]).toBe('FAIL test/api.test.ts');
  });

  it('carries an earlier ledger forward, newest last, deduplicated and capped', () => {
    const previous: FactLedger = { ...EMPTY_LEDGER, filesRead: ['old.ts', 'src/api.ts'] };
    expect(extractLedger(session(), previous).filesRead).toEqual(['old.ts', 'src/api.ts']);
    const many = buildConversation().user('go');
    for (let i = 0; i < 450; i++)
      many.toolRound([{ name: 'Read', args: { file_path: `f${i}.ts` }, result: 'x' }]);
    const capped = extractLedger(many.build());
    expect(capped.filesRead).toHaveLength(DEFAULT_LEDGER_CAPS.filesRead);
    expect(capped.filesRead.at(-1)).toBe('f449.ts');
    // A bounded list says so, in the record and in the summary text, and the next level keeps saying it.
    expect(capped.leftOut).toEqual(['filesRead']);
    expect(formatLedger(capped)).toContain('Files read (the newest only; older ones were left out):');
    expect(extractLedger([], capped).leftOut).toEqual(['filesRead']);
    expect(extractLedger(session()).leftOut).toBeUndefined();
  });

  it('scans only the head and tail of a 5 MB output, and never throws on arbitrary text (property)', () => {
    const filler = 'a/b '.repeat(650_000);
    const output = `see https://head.example/x\n${filler}https://middle.example/y\n${filler}see https://tail.example/z`;
    const huge = buildConversation()
      .user('go')
      .toolRound([{ name: 'Bash', args: { command: 'cat big.log' }, result: output }])
      .build();
    // Linear work on any size: the middle of a huge output is never read by the patterns.
    expect(extractLedger(huge).urls).toEqual(['https://head.example/x', 'https://tail.example/z']);
    fc.assert(
      fc.property(fc.string(), (text) => void extractLedger(buildConversation().assistant(text).build())),
    );
  });
});

describe('summary messages', () => {
  it('parse(format(x)) recovers text and ledger (property)', () => {
    const item = fc
      .string({ minLength: 1, maxLength: 40 })
      .filter((s) => s.trim() === s && !s.includes('\n') && s !== '');
    const list = fc.array(item, { maxLength: 5 });
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1 })
          .filter(
            (s) =>
              s.trim() !== '' && !s.includes('## Fact ledger') && !s.includes('[end of chatfold summary]'),
          ),
        list,
        list,
        fc.nat({ max: 100_000 }),
        (text, filesRead, commands, count) => {
          const ledger = { ...EMPTY_LEDGER, filesRead, commands };
          const parsed = parseSummaryMessage(
            formatSummaryMessage({ text, ledger, messagesSummarized: count }),
          );
          expect(parsed).toEqual({ text: text.trim(), ledger, messagesSummarized: count });
        },
      ),
    );
  });

  it('keeps multi-line commands, literally, and says which lists are bounded', () => {
    const command = "cat > a.txt <<'EOF'\nhello\n  indented\n~~~\nEOF";
    const ledger: FactLedger = { ...EMPTY_LEDGER, commands: ['ls', command], leftOut: ['commands'] };
    const text = formatSummaryMessage({ text: 'x', ledger, messagesSummarized: 2 });
    // The whole command occurs as it was run (a search for it finds it).
    expect(text).toContain(command);
    expect(parseSummaryMessage(text)?.ledger).toEqual(ledger);
  });

  it('parse(format(x)) recovers multi-line items and bounded lists (property)', () => {
    // Lines of any content but the format's own lines; items as the ledger makes them (trimmed).
    const line = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom('~~~', '~~~~', '- x', 'Files read:', '  y'),
    );
    const item = fc
      .array(line, { minLength: 2, maxLength: 4 })
      .map((lines) => lines.join('\n').trim())
      .filter((text) => text.includes('\n'));
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 3 }),
        fc.subarray(['commands', 'errors'] as const),
        (commands, bounded) => {
          // Only a full list is ever bounded (extractLedger), so only a non-empty one.
          const leftOut = bounded.filter((key) => key === 'errors' || commands.length > 0);
          const ledger: FactLedger = {
            ...EMPTY_LEDGER,
            commands,
            errors: ['e'],
            ...(leftOut.length === 0 ? {} : { leftOut }),
          };
          const text = formatSummaryMessage({ text: 'summary', ledger, messagesSummarized: 3 });
          for (const command of commands) expect(text).toContain(command);
          expect(parseSummaryMessage(text)?.ledger).toEqual(ledger);
        },
      ),
    );
  });

  it('keeps whole long commands in the ledger', () => {
    const command = `git commit -m "$(cat <<'EOF'\n${'a long line of the message '.repeat(40)}\nEOF\n)"`;
    const messages = buildConversation()
      .user('go')
      .toolRound([{ name: 'Bash', args: { command }, result: 'ok' }])
      .build();
    expect(extractLedger(messages).commands).toEqual([command]);
  });
});

describe('prompts (SUM-2, SUM-3)', () => {
  it('uses the code template, the ledger, the UPDATE prompt and custom instructions', () => {
    const messages = session();
    const prompt = buildSummaryPrompt({
      messages,
      ledger: extractLedger(messages),
      previousSummary: { text: 'Earlier: set up the repo.', ledger: EMPTY_LEDGER },
      goal: 'fix the flaky test',
      instructions: 'Mention every port number.',
      variant: 'code',
      maxTokens: 500,
    });
    expect(prompt.user).toContain('UPDATE an existing summary');
    expect(prompt.user).toContain('Earlier: set up the repo.');
    expect(prompt.user).toContain('## Commands and results');
    expect(prompt.user).toContain('- npm test -- api');
    expect(prompt.user.endsWith('Additional instructions:\nMention every port number.')).toBe(true);
  });
});

describe('summarizeSpan (RT-4 fallbacks)', () => {
  const base = { messages: session(), variant: 'code' as const, maxTokens: 400, timeoutMs: 50, counter };

  it('is extractive without a summarizer, and keeps the goal', async () => {
    const result = await summarizeSpan({ ...base, goal: 'fix the flaky test' });
    expect(result.source).toBe('extractive');
    expect(result.text).toContain('Goal: fix the flaky test');
  });

  it('falls back on timeout, on a throw and on empty output, saying why', async () => {
    const slow = await summarizeSpan({
      ...base,
      summarizer: () => new Promise((resolve) => setTimeout(() => resolve('late'), 500)),
    });
    expect(slow).toMatchObject({
      source: 'extractive',
      fallbackReason: 'summarizer failed: summarizer timed out after 50 ms',
    });
    const broken = await summarizeSpan({
      ...base,
      summarizer: async () => Promise.reject(new Error('HTTP 500')),
    });
    expect(broken.fallbackReason).toBe('summarizer failed: HTTP 500');
    const empty = await summarizeSpan({ ...base, summarizer: async () => '   ' });
    expect(empty.fallbackReason).toMatch(/only 0 characters/);
  });

  it('aborts the summarizer signal on timeout', async () => {
    let aborted = false;
    await summarizeSpan({
      ...base,
      summarizer: (request) =>
        new Promise((resolve) => {
          request.signal.addEventListener('abort', () => {
            aborted = true;
            resolve('');
          });
        }),
    });
    expect(aborted).toBe(true);
  });
});

describe('recentFiles (SUM-8)', () => {
  it('lists the newest files first with the latest full content', () => {
    const files = recentFiles(session());
    expect(files.map((f) => f.path)).toEqual(['src/api.ts']);
    const written = recentFiles(
      buildConversation()
        .user('x')
        .toolRound([{ name: 'Write', args: { file_path: 'n.ts', content: 'new file' }, result: 'ok' }])
        .build(),
    );
    expect(written[0]).toMatchObject({ path: 'n.ts', content: 'new file' });
  });
});
