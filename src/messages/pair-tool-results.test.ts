import { describe, expect, it } from 'vitest';
import { normalizeMessages } from './normalize.ts';
import { INTERRUPTED_TOOL_RESULT, pairToolResults } from './pair-tool-results.ts';
import type { MessageInput, Part } from './types.ts';
import { validate } from './validate.ts';

const call = (id: string, name = 'Read'): Part => ({ type: 'tool-call', id, name, arguments: '{}' });
const result = (callId: string): Part => ({
  type: 'tool-result',
  callId,
  content: [{ type: 'text', text: callId }],
});
const user = (id: string): MessageInput => ({ id, role: 'user', parts: [{ type: 'text', text: id }] });
const assistant = (id: string, ...parts: Part[]): MessageInput => ({ id, role: 'assistant', parts });
const tool = (id: string, ...parts: Part[]): MessageInput => ({ id, role: 'tool', parts });

const shape = (messages: readonly MessageInput[]): string[] =>
  messages.map(
    (m) =>
      `${m.role}:${m.id}[${m.parts
        .map((p) => (p.type === 'tool-call' ? p.id : p.type === 'tool-result' ? `>${p.callId}` : p.type))
        .join(',')}]`,
  );

describe('pairToolResults', () => {
  it('moves results logged after later messages right after their call, keeping their order', () => {
    const { messages, synthetic, orphans, duplicates } = pairToolResults([
      user('u'),
      assistant('a1', call('x'), call('y')),
      user('interjection'),
      tool('ty', result('y')),
      tool('tx', result('x')),
    ]);
    expect(shape(messages)).toEqual([
      'user:u[text]',
      'assistant:a1[x,y]',
      'tool:ty[>y]',
      'tool:tx[>x]',
      'user:interjection[text]',
    ]);
    expect({ synthetic, orphans, duplicates }).toEqual({ synthetic: 0, orphans: 0, duplicates: 0 });
  });

  it('fills in the tool name from the call', () => {
    const { messages } = pairToolResults([
      user('u'),
      assistant('a', call('x', 'Grep')),
      tool('t', result('x')),
    ]);
    expect(messages[2]?.parts[0]).toMatchObject({ type: 'tool-result', callId: 'x', toolName: 'Grep' });
  });

  it('splits a tool message whose results answer different assistant messages', () => {
    const { messages } = pairToolResults([
      user('u'),
      assistant('a1', call('x')),
      user('v'),
      assistant('a2', call('y')),
      tool('t', result('x'), result('y')),
    ]);
    expect(shape(messages)).toEqual([
      'user:u[text]',
      'assistant:a1[x]',
      'tool:t:x[>x]',
      'user:v[text]',
      'assistant:a2[y]',
      'tool:t:y[>y]',
    ]);
  });

  it('answers an interrupted call with a synthetic error result, but leaves the trailing turn in flight', () => {
    const { messages, synthetic } = pairToolResults([
      user('u'),
      assistant('a1', call('x'), call('y')),
      tool('tx', result('x')),
      user('stop'),
      assistant('a2', call('z')),
    ]);
    expect(synthetic).toBe(1);
    expect(shape(messages)).toEqual([
      'user:u[text]',
      'assistant:a1[x,y]',
      'tool:tx[>x]',
      'tool:a1:y:interrupted[>y]',
      'user:stop[text]',
      'assistant:a2[z]',
    ]);
    expect(messages[3]).toMatchObject({
      metadata: { chatfold: { synthetic: true } },
      parts: [{ callId: 'y', toolName: 'Read', isError: true, content: [{ text: INTERRUPTED_TOOL_RESULT }] }],
    });
    const normalized = normalizeMessages(messages);
    expect(validate(normalized, { provider: 'anthropic' }).map((p) => p.kind)).toEqual([
      'missing-tool-result',
    ]);
    expect(validate(normalized, { provider: 'anthropic', allowPendingToolCalls: true })).toEqual([]);
  });

  it('drops results without a call and second results for one call, and counts them', () => {
    const { messages, orphans, duplicates } = pairToolResults([
      user('u'),
      tool('early', result('x')),
      assistant('a', call('x')),
      tool('t1', result('x')),
      tool('t2', result('x'), result('nobody')),
      user('v'),
    ]);
    expect({ orphans, duplicates }).toEqual({ orphans: 2, duplicates: 1 });
    expect(shape(messages)).toEqual(['user:u[text]', 'assistant:a[x]', 'tool:t1[>x]', 'user:v[text]']);
  });

  it('pairs call ids reused in later turns with the latest call', () => {
    const { messages, synthetic } = pairToolResults([
      user('u'),
      assistant('a1', call('c')),
      tool('t1', result('c')),
      assistant('a2', call('c')),
      tool('t2', result('c')),
      user('v'),
    ]);
    expect(synthetic).toBe(0);
    expect(shape(messages)).toEqual([
      'user:u[text]',
      'assistant:a1[c]',
      'tool:t1[>c]',
      'assistant:a2[c]',
      'tool:t2[>c]',
      'user:v[text]',
    ]);
  });
});
