/**
 * Every recorded Claude Code session (main and sub-agent transcripts) imports into a valid
 * conversation whose counts match numbers computed independently, by the Python script in
 * fixtures/claude-code/COUNTS.md, over the raw JSONL (MSG-2, MSG-3).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importClaudeCode, type Message, validate } from '../src/index.ts';

const root = new URL('./fixtures/claude-code/', import.meta.url).pathname;

interface Expected {
  messages: number;
  assistant: number;
  user: number;
  tool: number;
  toolCalls: number;
  toolResults: number;
  /** user messages marked isMeta */
  meta: number;
  /** user messages marked isCommand and not isMeta */
  commands: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** messages whose usage has the final output count */
  withOutputTokens: number;
  synthetic: number;
  sidechainRecords: number;
  summaryIndex: number | undefined;
  summaryId: string | undefined;
  skipped: Record<string, number>;
}

// Literals from the output of the script in fixtures/claude-code/COUNTS.md.
const expected: Record<string, Expected> = {
  '258c7280-ae70-4798-800f-63464d01a85d.jsonl': {
    messages: 344,
    assistant: 152,
    user: 6,
    tool: 186,
    toolCalls: 186,
    toolResults: 186,
    meta: 0,
    commands: 0,
    inputTokens: 180,
    cacheReadTokens: 14771617,
    cacheWriteTokens: 349474,
    withOutputTokens: 0,
    synthetic: 0,
    sidechainRecords: 0,
    summaryIndex: 229,
    summaryId: '58436800-0a29-451b-a8f5-3a0c59957945',
    skipped: { 'file-history-snapshot': 28, progress: 1333, 'queue-operation': 6, system: 4 },
  },
  '258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl': {
    messages: 6,
    assistant: 3,
    user: 1,
    tool: 2,
    toolCalls: 2,
    toolResults: 2,
    meta: 0,
    commands: 0,
    inputTokens: 15,
    cacheReadTokens: 34159,
    cacheWriteTokens: 42176,
    withOutputTokens: 0,
    synthetic: 0,
    sidechainRecords: 8,
    summaryIndex: undefined,
    summaryId: undefined,
    skipped: { progress: 2 },
  },
  '258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl': {
    messages: 4,
    assistant: 1,
    user: 3,
    tool: 0,
    toolCalls: 0,
    toolResults: 0,
    meta: 2,
    commands: 0,
    inputTokens: 3,
    cacheReadTokens: 166758,
    cacheWriteTokens: 2487,
    withOutputTokens: 0,
    synthetic: 0,
    sidechainRecords: 4,
    summaryIndex: undefined,
    summaryId: undefined,
    skipped: {},
  },
  '4d5611e5-241a-462a-8d15-5122611a9569.jsonl': {
    messages: 293,
    assistant: 139,
    user: 4,
    tool: 150,
    toolCalls: 150,
    toolResults: 150,
    meta: 0,
    commands: 0,
    inputTokens: 177,
    cacheReadTokens: 11618567,
    cacheWriteTokens: 479537,
    withOutputTokens: 0,
    synthetic: 0,
    sidechainRecords: 0,
    summaryIndex: 132,
    summaryId: 'e95c1e9a-5084-4e69-bf3d-42c8d45f3985',
    skipped: { 'file-history-snapshot': 14, progress: 1083, system: 5, 'queue-operation': 1 },
  },
  '4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl': {
    messages: 46,
    assistant: 12,
    user: 1,
    tool: 33,
    toolCalls: 33,
    toolResults: 33,
    meta: 0,
    commands: 0,
    inputTokens: 53,
    cacheReadTokens: 604156,
    cacheWriteTokens: 71257,
    withOutputTokens: 0,
    synthetic: 0,
    sidechainRecords: 74,
    summaryIndex: undefined,
    summaryId: undefined,
    skipped: { progress: 70 },
  },
  '4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl': {
    messages: 5,
    assistant: 1,
    user: 4,
    tool: 0,
    toolCalls: 0,
    toolResults: 0,
    meta: 3,
    commands: 0,
    inputTokens: 3,
    cacheReadTokens: 164830,
    cacheWriteTokens: 8681,
    withOutputTokens: 0,
    synthetic: 0,
    sidechainRecords: 5,
    summaryIndex: undefined,
    summaryId: undefined,
    skipped: {},
  },
  'short.jsonl': {
    messages: 5,
    assistant: 1,
    user: 2,
    tool: 2,
    toolCalls: 2,
    toolResults: 2,
    meta: 0,
    commands: 0,
    inputTokens: 3,
    cacheReadTokens: 11515,
    cacheWriteTokens: 13835,
    withOutputTokens: 0,
    synthetic: 0,
    sidechainRecords: 0,
    summaryIndex: undefined,
    summaryId: undefined,
    skipped: { 'file-history-snapshot': 1, progress: 3, system: 2 },
  },
  'subagent.jsonl': {
    messages: 32,
    assistant: 12,
    user: 4,
    tool: 16,
    toolCalls: 16,
    toolResults: 16,
    meta: 1,
    commands: 1,
    inputTokens: 1576,
    cacheReadTokens: 427286,
    cacheWriteTokens: 25842,
    withOutputTokens: 0,
    synthetic: 0,
    sidechainRecords: 0,
    summaryIndex: undefined,
    summaryId: undefined,
    skipped: { 'file-history-snapshot': 3, progress: 44, system: 1 },
  },
  'tool_heavy.jsonl': {
    messages: 17,
    assistant: 4,
    user: 7,
    tool: 6,
    toolCalls: 6,
    toolResults: 6,
    meta: 1,
    commands: 2,
    inputTokens: 54,
    cacheReadTokens: 88231,
    cacheWriteTokens: 17696,
    withOutputTokens: 0,
    synthetic: 0,
    sidechainRecords: 0,
    summaryIndex: undefined,
    summaryId: undefined,
    skipped: { 'file-history-snapshot': 3, progress: 10, 'queue-operation': 2, system: 2 },
  },
};

function sessionFiles(): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.jsonl'))
    .sort();
}

const sum = (messages: Message[], pick: (m: Message) => number | undefined): number =>
  messages.reduce((total, m) => total + (pick(m) ?? 0), 0);

describe('importClaudeCode on every recorded session', () => {
  it('covers every session file in the fixtures', () => {
    expect(sessionFiles()).toEqual(Object.keys(expected).sort());
  });

  for (const [file, counts] of Object.entries(expected)) {
    it(`imports ${file} into a valid conversation with the independently computed counts`, () => {
      const result = importClaudeCode(readFileSync(join(root, file), 'utf8'));
      const { messages } = result;
      const parts = messages.flatMap((m) => m.parts);
      const marks = (m: Message) => (m.metadata?.claudeCode ?? {}) as Record<string, unknown>;
      const summary = result.compactions[0];
      expect({
        messages: messages.length,
        assistant: messages.filter((m) => m.role === 'assistant').length,
        user: messages.filter((m) => m.role === 'user').length,
        tool: messages.filter((m) => m.role === 'tool').length,
        toolCalls: parts.filter((p) => p.type === 'tool-call').length,
        toolResults: parts.filter((p) => p.type === 'tool-result').length,
        meta: messages.filter((m) => marks(m).isMeta === true).length,
        commands: messages.filter((m) => marks(m).isCommand === true && marks(m).isMeta !== true).length,
        inputTokens: sum(messages, (m) => m.usage?.inputTokens),
        cacheReadTokens: sum(messages, (m) => m.usage?.cacheReadTokens),
        cacheWriteTokens: sum(messages, (m) => m.usage?.cacheWriteTokens),
        withOutputTokens: messages.filter((m) => m.usage?.outputTokens !== undefined).length,
        synthetic: result.syntheticResults,
        sidechainRecords: result.sidechains.records,
        summaryIndex: summary?.summaryIndex,
        summaryId: summary?.summaryId,
        skipped: result.skipped,
      }).toEqual(counts);
      expect(validate(messages, { provider: 'anthropic', allowPendingToolCalls: true })).toEqual([]);
      // every call is answered by exactly one result, every result answers a call
      const calls = parts.flatMap((p) => (p.type === 'tool-call' ? [p.id] : [])).sort();
      const results = parts.flatMap((p) => (p.type === 'tool-result' ? [p.callId] : [])).sort();
      expect(results).toEqual(calls);
      if (summary !== undefined) {
        const text = messages[summary.summaryIndex ?? -1]?.parts[0];
        expect(text?.type === 'text' && text.text).toMatch(
          /^This session is being continued from a previous conversation/,
        );
      }
    });
  }

  it('reports the one compaction Claude Code made in each long session', () => {
    const long = sessionFiles().filter((file) => !file.includes('/') && file.length > 40);
    expect(long.map((file) => importClaudeCode(readFileSync(join(root, file), 'utf8')).compactions)).toEqual([
      [
        expect.objectContaining({
          trigger: 'auto',
          preTokens: 167094,
          boundaryId: 'd46d6800-2f43-4360-ba84-c1de9c1ecbae',
        }),
      ],
      [
        expect.objectContaining({
          trigger: 'auto',
          preTokens: 170251,
          boundaryId: 'dd3cc2e6-a191-4331-a0f0-2473e6d7692d',
        }),
      ],
    ]);
  });

  it('also gives a valid conversation for OpenAI and Gemini rules', () => {
    for (const file of sessionFiles()) {
      const { messages } = importClaudeCode(readFileSync(join(root, file), 'utf8'));
      expect(validate(messages, { provider: 'openai', allowPendingToolCalls: true })).toEqual([]);
      expect(validate(messages, { provider: 'gemini', allowPendingToolCalls: true })).toEqual([]);
    }
  });

  it('imports the bundled example session the same as its fixture', () => {
    const example = readFileSync(
      new URL('../examples/sessions/claude-code-long.jsonl', import.meta.url),
      'utf8',
    );
    const fixture = readFileSync(join(root, '4d5611e5-241a-462a-8d15-5122611a9569.jsonl'), 'utf8');
    expect(example).toBe(fixture);
  });
});
