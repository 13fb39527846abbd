import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part } from '../messages/types.ts';
import { messageKey } from './message-key.ts';

const base: Message = { id: 'a', role: 'assistant', createdAt: '2026-01-01T00:00:00Z', parts: [] };
const withParts = (parts: Part[], extra: Partial<Message> = {}): Message => ({ ...base, ...extra, parts });

describe('messageKey (TOK-6)', () => {
  it('is the same for messages that differ only in what is not counted (id, time, call ids, metadata)', () => {
    const a = withParts([
      { type: 'text', text: 'reading the file' },
      { type: 'tool-call', id: 'call_1', name: 'read', arguments: '{"path":"a.ts"}' },
    ]);
    const b = withParts(
      [
        { type: 'text', text: 'reading the file', providerMetadata: { openai: { x: 1 } } },
        { type: 'tool-call', id: 'call_2', name: 'read', arguments: '{"path":"a.ts"}' },
      ],
      { id: 'b', createdAt: '2027-01-01T00:00:00Z', metadata: { note: 'n' } },
    );
    expect(messageKey(a, false)).toBe(messageKey(b, false));
  });

  it('tells apart texts split differently across parts', () => {
    const one = withParts([
      { type: 'text', text: 'ab' },
      { type: 'text', text: 'c' },
    ]);
    const two = withParts([
      { type: 'text', text: 'a' },
      { type: 'text', text: 'bc' },
    ]);
    const three = withParts([{ type: 'text', text: 'abc' }]);
    expect(new Set([one, two, three].map((m) => messageKey(m, false))).size).toBe(3);
  });

  it('tells apart tool results whose texts regroup across results', () => {
    const result = (callId: string, texts: string[]): Part => ({
      type: 'tool-result',
      callId,
      content: texts.map((text) => ({ type: 'text' as const, text })),
    });
    const a = withParts([result('1', ['x', 'y']), result('2', [])], { role: 'tool' });
    const b = withParts([result('1', ['x']), result('2', ['y'])], { role: 'tool' });
    expect(messageKey(a, false)).not.toBe(messageKey(b, false));
  });

  it('keys reasoning only where the chat format counts it', () => {
    const a = withParts([{ type: 'reasoning', text: 'think A' }]);
    const b = withParts([{ type: 'reasoning', text: 'think B' }]);
    expect(messageKey(a, false)).toBe(messageKey(b, false));
    expect(messageKey(a, true)).not.toBe(messageKey(b, true));
  });

  it('changes when any counted text, the role or the name changes (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string(), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.string({ minLength: 1 }),
        (texts, at, extra) => {
          const message = withParts(texts.map((text) => ({ type: 'text', text })));
          const i = at % texts.length;
          const changed = withParts(
            texts.map((text, j) => ({ type: 'text', text: j === i ? text + extra : text })),
          );
          expect(messageKey(changed, false)).not.toBe(messageKey(message, false));
          expect(messageKey({ ...message, role: 'user' }, false)).not.toBe(messageKey(message, false));
          expect(messageKey({ ...message, name: extra }, false)).not.toBe(messageKey(message, false));
        },
      ),
    );
  });
});
