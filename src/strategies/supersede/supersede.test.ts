import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { importClaudeCode } from '../../messages/claude-code.ts';
import { createEngineCache } from '../../messages/engine-cache.ts';
import { fromSweAgentTrajectory, type SweAgentTrajectory } from '../../messages/swe-agent.ts';
import type { Message } from '../../messages/types.ts';
import { chatfoldMetadata } from '../../projection/chatfold-metadata.ts';
import { buildConversation } from '../../test/build-conversation.ts';
import { createMockTokenCounter } from '../../test/mock-token-counter.ts';
import { type AppliedStrategyResult, withProjection } from '../apply-strategy.ts';
import type { StrategyContext, StrategyResult } from '../types.ts';
import { type SupersedeOptions, supersede } from './index.ts';

const fixture = (path: string): string =>
  readFileSync(new URL(`../../../test/fixtures/${path}`, import.meta.url), 'utf8');
const context = (protectedIds: readonly string[] = []): StrategyContext => ({
  counter: createMockTokenCounter(),
  target: 0,
  budget: 0,
  reservedTokens: 0,
  protectedIds: new Set(protectedIds),
});
const run = (
  messages: readonly Message[],
  options?: SupersedeOptions,
  protectedIds?: string[],
): AppliedStrategyResult =>
  withProjection(messages, supersede(options).apply(messages, context(protectedIds)) as StrategyResult);
/** `[index, rule, by]` of every superseded message. */
const stubs = (result: AppliedStrategyResult): [number, string, string][] =>
  result.messages.flatMap((message, i) => {
    const record = chatfoldMetadata(message);
    return record?.transform === 'superseded' ? [[i, String(record.rule), String(record.by)]] : [];
  });
const textOf = (message: Message | undefined): string => {
  const part = message?.parts[0];
  return part?.type === 'tool-result' && part.content[0]?.type === 'text' ? part.content[0].text : '';
};
const lines = (label: string, n = 40): string =>
  Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(6)}→${label} line ${i + 1}`).join('\n');

// Real excerpts (test/fixtures/supersede, MIT, see SOURCES.md): Claude Code session 258c7280
// and 4d5611e5, cut down to the calls each rule is about.
const GQC = '/home/USER/projects/spotter-worktrees/spotter-gqc';
const DOV = '/home/USER/projects/spotter-worktrees/spotter-dov';
const readWriteTail = importClaudeCode(fixture('supersede/claude-code-read-write-tail.jsonl')).messages;
const partialEditRead = importClaudeCode(fixture('supersede/claude-code-partial-edit-read.jsonl')).messages;

describe('supersede: file content (STR-1)', () => {
  it('a later Write supersedes an earlier Read of the file; the stub names both, its own id and the message', () => {
    const result = run(readWriteTail, { cwd: GQC });
    expect(stubs(result)).toContainEqual([2, 'file-content', '6ac34893-b5f1-4967-b759-4387be5efeae']);
    expect(textOf(result.messages[2])).toBe(
      `[superseded: Read of test/spotter/transcripts/resources_test.exs (183 lines, id ${readWriteTail[2]?.id}) — a later Write of ` +
        'test/spotter/transcripts/resources_test.exs (message 4, 6ac34893-b5f1-4967-b759-4387be5efeae) holds newer content]',
    );
    const [before, after] = [readWriteTail[2]?.parts[0], result.messages[2]?.parts[0]];
    expect(after).toMatchObject({
      type: 'tool-result',
      callId: 'toolu_01DXqkHL6i28EDfmmJ11uD1F',
      toolName: 'Read',
    });
    expect(
      before?.type === 'tool-result' && after?.type === 'tool-result' && after.callId === before.callId,
    ).toBe(true);
    expect(result.messages[2]?.id).toBe(readWriteTail[2]?.id);
    expect(result.messages[2]?.metadata?.chatfold).toEqual({
      version: 1,
      transform: 'superseded',
      by: '6ac34893-b5f1-4967-b759-4387be5efeae',
      rule: 'file-content',
    });
  });

  it('matches the absolute path of Read with the relative one of `cat` when cwd is known', () => {
    const messages = buildConversation()
      .user('go')
      .toolRound([{ name: 'Read', args: { file_path: `${GQC}/lib/a.ex` }, result: lines('v1') }])
      .toolRound([{ name: 'Bash', args: { command: 'cat ./lib/a.ex' }, result: lines('v2') }])
      .build();
    expect(stubs(run(messages))).toEqual([]);
    expect(stubs(run(messages, { cwd: GQC }))).toEqual([[2, 'file-content', 'm4']]);
  });

  it('an Edit that returns a snippet supersedes nothing; a later full Read supersedes the edit and the reads', () => {
    const beforeFullRead = partialEditRead.slice(0, 7);
    expect(stubs(run(beforeFullRead, { cwd: DOV, minSavedChars: 0 }))).toEqual([]);
    const result = run(partialEditRead, { cwd: DOV, minSavedChars: 0 });
    // The Edit output (message 4, 209 characters) is superseded too, but its stub — naming
    // two uuids — would be longer than the output: it stays.
    expect(stubs(result)).toEqual([
      [2, 'file-content', '552b95b5-d77c-493f-af04-35bd63403c07'],
      [6, 'file-content', 'c100526b-3099-4e75-92bb-0fab2bdf7150'],
    ]);
    expect(textOf(result.messages[2])).toMatch(
      /^\[superseded: Read of lib\/spotter_web\/live\/session_live\.ex \(offset=260 limit=60\) \(60 lines, id \S+\) — a later Read of lib\/spotter_web\/live\/session_live\.ex \(message 8,/,
    );
    // A `tail` of a background task's output file, superseded by a later full Read of it.
    expect(textOf(result.messages[6])).toMatch(/^\[superseded: Bash `tail -20 \/tmp\/claude-1000\//);
    // The Edit output (209 characters) and the 20-line tail are not worth a stub at the
    // default threshold (a stub must save 200 characters).
    expect(stubs(run(partialEditRead, { cwd: DOV })).map(([i]) => i)).toEqual([2]);
  });

  it('an edit that returns the whole new file (Cline replace_in_file) supersedes earlier reads', () => {
    const finalContent = `<final_file_content path="src/a.ts">\n${lines('after edit')}\n</final_file_content>`;
    const messages = buildConversation()
      .user('go')
      .toolRound([{ name: 'read_file', args: { path: 'src/a.ts' }, result: lines('before') }])
      .toolRound([
        {
          name: 'replace_in_file',
          args: { path: 'src/a.ts', diff: '------- SEARCH\nbefore\n=======\nafter edit\n+++++++ REPLACE' },
          result: `The content was successfully saved to src/a.ts.\n\n${finalContent}`,
        },
      ])
      .build();
    expect(stubs(run(messages))).toEqual([[2, 'file-content', 'm4']]);
  });

  it('a partial read never supersedes a full one; a later full read supersedes partial ones', () => {
    const messages = buildConversation()
      .user('go')
      .toolRound([{ name: 'Read', args: { file_path: 'a.ts' }, result: lines('full') }])
      .toolRound([
        { name: 'Read', args: { file_path: 'a.ts', offset: 10, limit: 20 }, result: lines('part', 20) },
      ])
      .toolRound([
        { name: 'Read', args: { file_path: 'a.ts', offset: 50, limit: 20 }, result: lines('other', 20) },
      ])
      .build();
    expect(stubs(run(messages))).toEqual([]);
    const withFull = buildConversation()
      .user('go')
      .toolRound([
        { name: 'Read', args: { file_path: 'a.ts', offset: 10, limit: 20 }, result: lines('part', 20) },
      ])
      .toolRound([{ name: 'Read', args: { file_path: 'a.ts' }, result: lines('full') }])
      .build();
    expect(stubs(run(withFull))).toEqual([[2, 'file-content', 'm4']]);
  });

  it('a later read whose output was cut or refers back ("File unchanged since last read") supersedes nothing', () => {
    for (const later of [
      `${lines('v2', 5)}\n[… chatfold clipped 12,000 of 15,000 characters here; the full text is kept in the history as message m4 …]`,
      `[File: src/fields.py (1997 lines total)]\n${lines('window', 10)}\n(1897 more lines below)`,
      'File unchanged since last read. The content from the earlier Read tool_result in this conversation is still current — refer to that instead of re-reading.',
    ]) {
      const messages = buildConversation()
        .user('go')
        .toolRound([{ name: 'Read', args: { file_path: 'src/fields.py' }, result: lines('v1') }])
        .toolRound([{ name: 'Read', args: { file_path: 'src/fields.py' }, result: later }])
        .build();
      expect(stubs(run(messages)), later.slice(0, 30)).toEqual([]);
    }
  });
});

describe('supersede: partial reads (STR-1 file-range)', () => {
  it('a later `tail -30` of the same file supersedes an earlier one; `tail -20` and a failed Read do not', () => {
    const result = run(readWriteTail, { cwd: GQC });
    expect(stubs(result)).toEqual([
      [2, 'file-content', '6ac34893-b5f1-4967-b759-4387be5efeae'],
      [6, 'file-range', '6874a702-c41f-43ca-aa9b-16698d17f146'],
    ]);
    // message 12 is Claude Code's "<tool_use_error>File does not exist." for a full Read of it
    expect(readWriteTail[12]?.parts[0]).toMatchObject({ isError: true });
    expect(textOf(result.messages[10])).toBe(textOf(readWriteTail[10]));
  });
});

describe('supersede: directory listings (STR-1)', () => {
  it('SWE-agent: a later `ls -F` in the same directory supersedes the first', () => {
    const trajectory = JSON.parse(
      fixture('swe-agent/marshmallow-1867.function-calling.traj'),
    ) as SweAgentTrajectory;
    const messages = fromSweAgentTrajectory(trajectory);
    // A 7-line listing: its stub saves less than the default 200 characters.
    expect(stubs(run(messages))).toEqual([]);
    const result = run(messages, { minSavedChars: 0 });
    expect(stubs(result)).toEqual([[3, 'directory-listing', messages[15]?.id as string]]);
    expect(textOf(result.messages[3])).toMatch(
      new RegExp(
        `^\\[superseded: bash \`ls -F\` \\(7 lines, id ${messages[3]?.id}\\) — a later bash \`ls -F\` \\(message 15,`,
      ),
    );
  });

  it('only a listing that shows at least as much, no narrower, supersedes', () => {
    const cases: [string, string, boolean][] = [
      ['ls src', 'ls -la src', true],
      ['ls -la src', 'ls src', false],
      ['ls src', 'ls -R src', true],
      ['ls -R src', 'ls src', false],
      ['ls -a src', 'find src', true],
      ['ls -l src', 'find src', false],
      ['find src -name "*.ts"', 'find src', true],
      ['find src', 'find src -name "*.ts"', false],
      ['ls src', 'ls lib', false],
      ['ls src', 'find src | head -20', false],
    ];
    for (const [earlier, later, superseded] of cases) {
      const messages = buildConversation()
        .user('go')
        .toolRound([{ name: 'Bash', args: { command: earlier }, result: lines('entry') }])
        .toolRound([{ name: 'Bash', args: { command: later }, result: lines('entry') }])
        .build();
      expect(stubs(run(messages)).length, `${earlier} then ${later}`).toBe(superseded ? 1 : 0);
    }
  });

  it('Glob: the same pattern, or a later unfiltered recursive listing of the directory', () => {
    const glob = { name: 'Glob', args: { pattern: '**/*.ex', path: 'lib' }, result: lines('lib/x.ex') };
    const twice = buildConversation().user('go').toolRound([glob]).toolRound([glob]).build();
    expect(stubs(run(twice))).toEqual([[2, 'directory-listing', 'm4']]);
    const byFind = buildConversation()
      .user('go')
      .toolRound([glob])
      .toolRound([{ name: 'Bash', args: { command: 'find lib' }, result: lines('lib/') }])
      .build();
    expect(stubs(run(byFind))).toEqual([[2, 'directory-listing', 'm4']]);
  });
});

describe('supersede: identical calls and repeated commands (STR-1)', () => {
  it('the same read-only tool with the same arguments in any key order', () => {
    const messages = buildConversation()
      .user('go')
      .toolRound([
        { name: 'Grep', args: { pattern: 'TranscriptSelection', path: 'lib' }, result: lines('hit') },
      ])
      .toolRound([
        { name: 'Grep', args: { path: 'lib', pattern: 'TranscriptSelection' }, result: lines('hit') },
      ])
      .toolRound([{ name: 'Grep', args: { path: 'lib', pattern: 'Other' }, result: lines('hit') }])
      .build();
    expect(stubs(run(messages))).toEqual([[2, 'identical-call', 'm4']]);
    expect(stubs(run(messages, { idempotentTools: [] }))).toEqual([]);
  });

  it('a repeated shell command supersedes only when read-only, unless repeatedCommands is "all"', () => {
    const round = (command: string) => [{ name: 'Bash', args: { command }, result: lines(command) }];
    const messages = buildConversation()
      .user('go')
      .toolRound(round('mix test 2>&1 | tail -5'))
      .toolRound(round('git log --oneline -5'))
      .toolRound(round('mix test 2>&1 | tail -5'))
      .toolRound(round('git log --oneline -5'))
      .build();
    expect(stubs(run(messages))).toEqual([[4, 'repeated-command', 'm8']]);
    expect(stubs(run(messages, { repeatedCommands: 'all' }))).toEqual([
      [2, 'repeated-command', 'm6'],
      [4, 'repeated-command', 'm8'],
    ]);
    expect(stubs(run(messages, { repeatedCommands: 'none' }))).toEqual([]);
  });

  it('after a `cd` elsewhere, relative shell paths are not matched until a cd back', () => {
    const messages = buildConversation()
      .user('go')
      .toolRound([{ name: 'bash', args: { command: 'cat a.py' }, result: lines('root a.py') }])
      .toolRound([{ name: 'bash', args: { command: 'cd sub' }, result: '' }])
      .toolRound([{ name: 'bash', args: { command: 'cat a.py' }, result: lines('sub/a.py') }])
      .build();
    expect(stubs(run(messages))).toEqual([]);
    const back = buildConversation()
      .user('go')
      .toolRound([{ name: 'bash', args: { command: 'cat a.py' }, result: lines('v1') }])
      .toolRound([{ name: 'bash', args: { command: 'cd sub && cd ..' }, result: '' }])
      .toolRound([{ name: 'bash', args: { command: 'cat a.py' }, result: lines('v2') }])
      .build();
    expect(stubs(run(back))).toEqual([[2, 'file-content', 'm6']]);
  });

  it('with one engine cache across conversations, a shell line is read in the directory it ran in', () => {
    const cache = createEngineCache();
    const cached = (messages: readonly Message[]) =>
      withProjection(messages, supersede().apply(messages, { ...context(), cache }) as StrategyResult);
    const elsewhere = buildConversation()
      .user('go')
      .toolRound([{ name: 'bash', args: { command: 'cat a.py' }, result: lines('root a.py') }])
      .toolRound([{ name: 'bash', args: { command: 'cd sub' }, result: '' }])
      .toolRound([{ name: 'bash', args: { command: 'cat a.py' }, result: lines('sub/a.py') }])
      .build();
    const same = buildConversation()
      .user('go')
      .toolRound([{ name: 'bash', args: { command: 'cat a.py' }, result: lines('v1') }])
      .toolRound([{ name: 'bash', args: { command: 'cat a.py' }, result: lines('v2') }])
      .build();
    expect(stubs(cached(elsewhere))).toEqual([]);
    expect(stubs(cached(same))).toEqual([[2, 'file-content', 'm4']]);
    expect(stubs(cached(elsewhere))).toEqual([]);
  });
});

describe('supersede: safety and configuration (STR-1, STR-8)', () => {
  it('never changes protected messages, and returns the input array when nothing is stale', () => {
    const protectedRead = readWriteTail[2]?.id as string;
    const result = run(readWriteTail, { cwd: GQC }, [protectedRead]);
    expect(result.messages[2]).toBe(readWriteTail[2]);
    expect(stubs(result).map(([i]) => i)).toEqual([6]);
    const none = partialEditRead.slice(0, 7);
    expect(run(none).messages).toBe(none);
    expect(run(none).effect).toMatchObject({ stubbed: 0, notes: [] });
  });

  it('does not mutate its input and reports stubbed count and notes', () => {
    const frozen = structuredClone(readWriteTail);
    const deepFreeze = (value: unknown): void => {
      if (typeof value === 'object' && value !== null) {
        Object.freeze(value);
        for (const inner of Object.values(value)) deepFreeze(inner);
      }
    };
    deepFreeze(frozen);
    const result = run(frozen, { cwd: GQC });
    expect(frozen).toEqual(readWriteTail);
    expect(result.effect.stubbed).toBe(2);
    expect(result.effect.notes).toEqual([
      expect.stringMatching(
        /^stubbed 2 message\(s\) of superseded tool output \(file-content 1, file-range 1\), [\d,]+ characters$/,
      ),
    ]);
  });

  it('custom rules and tool mappings: add, override and remove', () => {
    const show = (id: string) => ({
      name: 'Bash',
      args: { command: `bd show ${id} 2>&1` },
      result: lines(id),
    });
    const messages = buildConversation()
      .user('go')
      .toolRound([show('gqc.4')])
      .toolRound([show('gqc.4')])
      .build();
    expect(stubs(run(messages))).toEqual([]);
    const beads = run(messages, {
      rules: [
        ({ name, args }) => {
          const match =
            name === 'Bash' && typeof args.command === 'string' && /^bd show (\S+)/.exec(args.command);
          return match ? { kind: 'observation', key: `bd show ${match[1]}`, rule: 'beads-issue' } : undefined;
        },
      ],
    });
    expect(stubs(beads)).toEqual([[2, 'beads-issue', 'm4']]);
    expect(stubs(run(messages, { readOnlyCommands: ['bd show'] }))).toEqual([[2, 'repeated-command', 'm4']]);

    const view = (path: string) => ({ name: 'fetch_page', args: { url: path }, result: lines(path) });
    const pages = buildConversation()
      .user('go')
      .toolRound([view('a')])
      .toolRound([view('a')])
      .build();
    expect(stubs(run(pages, { tools: { fetch_page: { kind: 'read', path: ['url'] } } }))).toEqual([
      [2, 'file-content', 'm4'],
    ]);
    const reads = buildConversation()
      .user('go')
      .toolRound([{ name: 'Read', args: { file_path: 'a' }, result: lines('a') }])
      .toolRound([{ name: 'Read', args: { file_path: 'a' }, result: lines('a') }])
      .build();
    // Without the mapping, the identical-call rule still applies; without both, nothing does.
    expect(stubs(run(reads, { tools: { Read: null } }))).toEqual([[2, 'identical-call', 'm4']]);
    expect(stubs(run(reads, { tools: { Read: null }, idempotentTools: [] }))).toEqual([]);
  });

  it('rejects bad options with E_INVALID_OPTIONS naming the option', () => {
    const bad: [unknown, RegExp][] = [
      [
        { tools: { Read: { kind: 'read' } } },
        /option tools\.Read\.path: expected a non-empty array of argument keys/,
      ],
      [
        { tools: { Read: { kind: 'copy', path: ['x'] } } },
        /option tools\.Read: expected a mapping with kind/,
      ],
      [{ rules: ['nope'] }, /option rules: expected an array of functions/],
      [
        { repeatedCommands: 'some' },
        /option repeatedCommands: expected read-only \| all \| none, received "some"/,
      ],
      [{ cwd: 'relative/dir' }, /option cwd: expected an absolute path/],
      [{ minSavedChars: -1 }, /option minSavedChars: expected a number >= 0/],
      [{ idempotentTools: 'Read' }, /option idempotentTools: expected an array of strings/],
    ];
    for (const [options, message] of bad) {
      let error: unknown;
      try {
        supersede(options as SupersedeOptions);
      } catch (caught) {
        error = caught;
      }
      expect(ChatfoldError.hasCode(error, 'E_INVALID_OPTIONS'), JSON.stringify(options)).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('is idempotent on a real excerpt: applying twice equals applying once', () => {
    const once = run(partialEditRead, { cwd: DOV, minSavedChars: 0 });
    const twice = run(once.messages, { cwd: DOV, minSavedChars: 0 });
    expect(twice.messages).toEqual(once.messages);
    expect(twice.effect.stubbed).toBe(0);
  });
});
