import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolArguments } from '../messages/tool-arguments.ts';
import type { JsonValue, Message } from '../messages/types.ts';
import { type RecentFile, recentFiles } from './recent-files.ts';

/**
 * The definition, read oldest first: every call naming a file is that file's latest event (a
 * full write with its content), then a later full read's result replaces it; the newest
 * `limit` files. The implementation reads newest first and stops early; they must agree.
 */
function reference(messages: readonly Message[], limit: number): RecentFile[] {
  const PATH_KEYS = ['file_path', 'filePath', 'path', 'target_file', 'filename'];
  const CONTENT_KEYS = ['content', 'file_text', 'text'];
  const PARTIAL_KEYS = ['offset', 'limit', 'view_range', 'start_line', 'end_line', 'line_range'];
  const calls = new Map<string, { path: string; name: string; args: Readonly<Record<string, JsonValue>> }>();
  const latest = new Map<string, RecentFile>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'tool-call') {
        const args = toolArguments(part);
        const path =
          args && PATH_KEYS.map((key) => args[key]).find((v): v is string => typeof v === 'string');
        // A call that names no file still takes its id: its results are not file reads.
        if (args === undefined || path === undefined) {
          calls.delete(part.id);
          continue;
        }
        calls.set(part.id, { path, name: part.name, args });
        const content = CONTENT_KEYS.map((key) => args[key]).find((v): v is string => typeof v === 'string');
        latest.delete(path);
        const isFullWrite = /write|create/i.test(part.name) || args.command === 'create';
        latest.set(path, {
          path,
          messageId: message.id,
          ...(isFullWrite && content !== undefined ? { content } : {}),
        });
      } else if (part.type === 'tool-result' && part.isError !== true) {
        const call = calls.get(part.callId);
        if (call === undefined) continue;
        const isRead = /read|view|open|cat/i.test(call.name) || call.args.command === 'view';
        if (!isRead || PARTIAL_KEYS.some((key) => call.args[key] !== undefined)) continue;
        const text = part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join('');
        latest.delete(call.path);
        latest.set(call.path, { path: call.path, messageId: message.id, content: text });
      }
    }
  }
  return [...latest.values()].reverse().slice(0, limit);
}

const createdAt = '2026-01-01T00:00:00.000Z';
const step = fc.record({
  tool: fc.constantFrom('Read', 'Write', 'Edit', 'Bash', 'view_file'),
  file: fc.constantFrom('a.ts', 'b.ts', 'c.md', 'd.json', 'e.py', 'f.rs'),
  callId: fc.constantFrom('c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'),
  partial: fc.boolean(),
  withPath: fc.boolean(),
  resultAt: fc.constantFrom('next', 'later', 'none', 'error', 'twice'),
  text: fc.string({ maxLength: 6 }),
});

/** Calls and results with reused ids, results out of order, missing, failed or repeated. */
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function build(steps: readonly Step[]): Message[] {
  const messages: Message[] = [];
  const late: Message[] = [];
  steps.forEach((s, i) => {
    const args: Record<string, JsonValue> = s.withPath ? { file_path: s.file } : { command: 'ls' };
    if (s.partial) args.offset = 10;
    if (s.tool === 'Write') args.content = `content ${s.text}`;
    messages.push({
      id: `a${i}`,
      role: 'assistant',
      createdAt,
      parts: [{ type: 'tool-call', id: s.callId, name: s.tool, arguments: JSON.stringify(args) }],
    });
    const result = (suffix: string, isError = false): Message => ({
      id: `r${i}${suffix}`,
      role: 'tool',
      createdAt,
      parts: [
        {
          type: 'tool-result',
          callId: s.callId,
          ...(isError ? { isError: true } : {}),
          content: [{ type: 'text', text: `${s.file} ${s.text}${suffix}` }],
        },
      ],
    });
    if (s.resultAt === 'next') messages.push(result(''));
    else if (s.resultAt === 'error') messages.push(result('', true));
    else if (s.resultAt === 'twice') messages.push(result(''), result('-again'));
    else if (s.resultAt === 'later') late.push(result('-late'));
    if (i % 3 === 2) messages.push(...late.splice(0));
  });
  return [...messages, ...late];
}

describe('recentFiles (SUM-8)', () => {
  it('property: reading newest first and stopping early equals the oldest-first definition', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.integer({ min: 0, max: 8 }), (steps, limit) => {
        const messages = build(steps);
        expect(recentFiles(messages, { limit })).toEqual(reference(messages, limit));
      }),
      { numRuns: 1500 },
    );
  });
});
