/**
 * Unit tests for the Claude Code importer. Every input is made of real records from
 * test/fixtures/claude-code (MIT, see LICENSE there), cut or edited to reach one case.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { importClaudeCode } from './claude-code.ts';
import { INTERRUPTED_TOOL_RESULT } from './pair-tool-results.ts';
import { validate } from './validate.ts';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../test/fixtures/claude-code/${name}`, import.meta.url), 'utf8');
/** The file's lines (1-based numbers as in an editor). */
const lines = (name: string): string[] => fixture(name).split('\n').filter(Boolean);
const pick = (all: string[], numbers: number[]): string => numbers.map((n) => all[n - 1]).join('\n');
type Record = { [key: string]: unknown; message: { [key: string]: unknown } };
const edit = (line: string, change: (record: Record) => void): string => {
  const record = JSON.parse(line) as Record;
  change(record);
  return JSON.stringify(record);
};

const short = lines('short.jsonl');
const toolHeavy = lines('tool_heavy.jsonl');
const anthropicInFlight = { provider: 'anthropic', allowPendingToolCalls: true } as const;

describe('importClaudeCode: API responses', () => {
  it('merges the records of one response into one assistant message, blocks in order', () => {
    const { messages } = importClaudeCode(fixture('short.jsonl'));
    const reply = messages[1];
    expect(reply?.id).toBe('msg_01MKH1ccEGrZGNPvu8pYiiQa');
    expect(reply?.createdAt).toBe('2026-02-10T21:11:59.186Z'); // first record's timestamp
    expect(reply?.parts.map((p) => p.type)).toEqual(['text', 'reasoning', 'text', 'tool-call', 'tool-call']);
    expect(reply?.parts[1]).toMatchObject({ type: 'reasoning', signature: expect.any(String) });
    expect(reply?.metadata).toEqual({ claudeCode: { model: 'claude-opus-4-6', partialOutputTokens: 13 } });
    expect(reply?.usage).toEqual({ inputTokens: 3, cacheReadTokens: 11515, cacheWriteTokens: 13835 });
  });

  it('puts results logged between records of one response after the merged message', () => {
    // tool_heavy lines 34–38: Read call, its result, WebFetch call (same response), its result
    const { messages } = importClaudeCode(pick(toolHeavy, [26, 34, 36, 37, 38, 39]));
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(messages[1]?.parts.map((p) => (p.type === 'tool-call' ? p.name : p.type))).toEqual([
      'Read',
      'WebFetch',
    ]);
    expect(messages[2]?.parts[0]).toMatchObject({ type: 'tool-result', toolName: 'Read' });
    expect(messages[3]?.parts[0]).toMatchObject({ type: 'tool-result', toolName: 'WebFetch' });
    expect(validate(messages, { provider: 'anthropic' })).toEqual([]);
  });

  it('takes output tokens only from a record that carries the final stop_reason', () => {
    const final = edit(short[9] as string, (r) => {
      r.message.stop_reason = 'tool_use';
      (r.message.usage as { output_tokens: number }).output_tokens = 220;
    });
    const { messages } = importClaudeCode([...short.slice(3, 9), final, ...short.slice(10)].join('\n'));
    expect(messages[1]?.usage?.outputTokens).toBe(220);
    expect(messages[1]?.metadata).toEqual({ claudeCode: { model: 'claude-opus-4-6' } });
  });

  it('drops an empty text block (the API rejects it when sent back) but keeps whitespace text', () => {
    const empty = edit(short[4] as string, (r) => {
      r.message.content = [{ type: 'text', text: '' }];
    });
    const { messages } = importClaudeCode([short[3], empty, ...short.slice(5)].join('\n'));
    expect(messages[1]?.parts.map((p) => p.type)).toEqual(['reasoning', 'text', 'tool-call', 'tool-call']);
    const { messages: kept } = importClaudeCode(fixture('short.jsonl'));
    expect(kept[1]?.parts[0]).toEqual({ type: 'text', text: '\n\n' });
  });
});

describe('importClaudeCode: tool results', () => {
  it('answers a call whose result was never logged with a synthetic error result', () => {
    // short.jsonl without line 12 (the Glob call's result)
    const text = pick(short, [4, 5, 6, 7, 8, 10, 11, 13]);
    const result = importClaudeCode(text);
    expect(result.syntheticResults).toBe(1);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(result.messages[3]).toMatchObject({
      id: 'msg_01MKH1ccEGrZGNPvu8pYiiQa:toolu_01FdQ8qTyVyZjE3Kw4dguQGx:interrupted',
      metadata: { chatfold: { synthetic: true } },
      parts: [
        { toolName: 'Glob', isError: true, content: [{ type: 'text', text: INTERRUPTED_TOOL_RESULT }] },
      ],
    });
    expect(validate(result.messages, { provider: 'anthropic' })).toEqual([]);
  });

  it('leaves the calls of a trailing response in flight', () => {
    const result = importClaudeCode(pick(short, [4, 5, 6, 7, 8, 10]));
    expect(result.syntheticResults).toBe(0);
    expect(validate(result.messages, anthropicInFlight)).toEqual([]);
    expect(validate(result.messages, { provider: 'anthropic' }).map((p) => p.kind)).toEqual([
      'missing-tool-result',
      'missing-tool-result',
    ]);
  });

  it('drops a result whose call is not in the file, and counts it', () => {
    const result = importClaudeCode(pick(toolHeavy, [4, 11, 12, 13, 17]));
    expect(result.skipped['orphan-tool-result']).toBe(1);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('splits a user record holding results and text into a tool and a user message', () => {
    const both = edit(short[11] as string, (r) => {
      const [block] = r.message.content as unknown[];
      r.message.content = [block, { type: 'text', text: '[Request interrupted by user for tool use]' }];
    });
    const { messages } = importClaudeCode([...short.slice(3, 11), both].join('\n'));
    expect(messages.slice(-2).map((m) => [m.role, m.id])).toEqual([
      ['tool', '2618ef5d-c1c6-4938-b81c-8a3230ccad76'],
      ['user', '2618ef5d-c1c6-4938-b81c-8a3230ccad76:1'],
    ]);
  });
});

describe('importClaudeCode: records', () => {
  it('counts skipped record types and keeps meta and command records, marked', () => {
    const result = importClaudeCode(fixture('tool_heavy.jsonl'));
    expect(result.skipped).toEqual({
      'file-history-snapshot': 3,
      progress: 10,
      'queue-operation': 2,
      system: 2,
    });
    const marked = result.messages.filter((m) => m.metadata?.claudeCode !== undefined && m.role === 'user');
    // the local-command caveat is both hidden (isMeta) and command output
    expect(marked.map((m) => m.metadata?.claudeCode)).toEqual([
      { isMeta: true, isCommand: true },
      { isCommand: true },
      { isCommand: true },
    ]);
  });

  it('reports the compaction boundary and marks the continuation summary', () => {
    const all = lines('258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    const result = importClaudeCode(pick(all, [1256, 1257, 1258]));
    expect(result.compactions).toEqual([
      {
        boundaryId: 'd46d6800-2f43-4360-ba84-c1de9c1ecbae',
        timestamp: '2026-02-11T21:18:41.543Z',
        trigger: 'auto',
        preTokens: 167094,
        summaryIndex: 0,
        summaryId: '58436800-0a29-451b-a8f5-3a0c59957945',
      },
    ]);
    expect(result.messages[0]?.metadata).toEqual({
      claudeCode: { isVisibleInTranscriptOnly: true, isCompactSummary: true },
    });
  });

  it('excludes sub-agent records from a main conversation by default, keeps them in a sub-agent file', () => {
    const main = fixture('short.jsonl');
    const agent = fixture('258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl');
    const mixed = importClaudeCode(`${main}\n${agent}`);
    expect(mixed.sidechains).toEqual({ records: 8, included: false });
    expect(mixed.skipped.sidechain).toBe(8);
    expect(mixed.messages).toHaveLength(importClaudeCode(main).messages.length);
    const included = importClaudeCode(`${main}\n${agent}`, { sidechains: 'include' });
    expect(included.messages).toHaveLength(5 + 6);
    expect(validate(included.messages, anthropicInFlight)).toEqual([]);
    expect(importClaudeCode(agent).sidechains).toEqual({ records: 8, included: true });
    expect(importClaudeCode(agent, { sidechains: 'exclude' }).messages).toEqual([]);
  });

  it('reads each record once when a transcript repeats records', () => {
    const once = importClaudeCode(fixture('short.jsonl'));
    const twice = importClaudeCode(`${fixture('short.jsonl')}\n${fixture('short.jsonl')}`);
    expect(twice.messages).toEqual(once.messages);
    expect(twice.skipped['duplicate-record']).toBe(9);
  });

  it('skips a user record without content', () => {
    const blank = edit(short[3] as string, (r) => {
      r.uuid = 'blank';
      r.message.content = '';
    });
    const result = importClaudeCode([blank, short[3]].join('\n'));
    expect(result.skipped.empty).toBe(1);
    expect(result.messages.map((m) => m.id)).toEqual(['7d48cbd2-6615-4dd8-87f6-38f12b8167d6']);
  });

  it('returns the session id', () => {
    expect(importClaudeCode(fixture('short.jsonl')).sessionId).toBe('55604662-cf2a-4331-851a-ec234028f8ca');
  });
});

describe('importClaudeCode: bad input', () => {
  const error = (run: () => unknown): ChatfoldError => {
    try {
      run();
    } catch (thrown) {
      if (ChatfoldError.isInstance(thrown)) return thrown;
      throw thrown;
    }
    throw new Error('expected a ChatfoldError');
  };

  it('names the line of malformed JSON, or skips it when asked', () => {
    const text = `${short[3]}\n${(short[4] as string).slice(0, 40)}\n${short[5]}`;
    const thrown = error(() => importClaudeCode(text));
    expect(thrown.code).toBe('E_INVALID_FORMAT');
    expect(thrown.details).toEqual({ line: 2 });
    expect(thrown.message).toMatch(/^line 2: not valid JSON/);
    const skipped = importClaudeCode(text, { onInvalidLine: 'skip' });
    expect(skipped.skipped['invalid-line']).toBe(1);
    expect(skipped.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('rejects a line that is not an object and a record without a message', () => {
    expect(error(() => importClaudeCode(`${short[3]}\n[1, 2]`)).message).toMatch(
      /^line 2: expected a JSON object, received array/,
    );
    const noMessage = edit(short[3] as string, (r) => {
      delete (r as { message?: unknown }).message;
    });
    const thrown = error(() => importClaudeCode(noMessage));
    expect(thrown.details).toEqual({ line: 1 });
    expect(thrown.message).toMatch(/needs a message object, received undefined/);
  });

  it('rejects an unknown content block with the line, or skips the record when asked', () => {
    const odd = edit(short[4] as string, (r) => {
      r.message.content = [{ type: 'hologram' }];
    });
    const text = [short[3], odd].join('\n');
    const thrown = error(() => importClaudeCode(text));
    expect(thrown.code).toBe('E_INVALID_FORMAT');
    expect(thrown.message).toMatch(
      /^line 2: cannot read this assistant record: .*unsupported Anthropic block "hologram"/,
    );
    expect(importClaudeCode(text, { onInvalidLine: 'skip' }).skipped['invalid-line']).toBe(1);
  });

  it('rejects input that is not text', () => {
    expect(error(() => importClaudeCode(42 as unknown as string)).message).toMatch(/received number/);
  });
});
