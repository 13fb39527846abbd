import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part } from '../messages/types.ts';
import { messageKey, PieceHasher, textKey } from './message-key.ts';

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

/** The hash of `PieceHasher.add` computed from `charCodeAt` alone (the path without `Buffer`). */
function referenceHash(texts: readonly string[]): [number, number] {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (const text of texts) {
    h1 = Math.imul(h1 ^ text.length, 2654435761);
    h2 = Math.imul(h2 ^ text.length, 1597334677);
    for (let word = 0; word * 2 < text.length; word++) {
      const low = text.charCodeAt(word * 2);
      const value = word * 2 + 1 < text.length ? low | (text.charCodeAt(word * 2 + 1) << 16) : low;
      if (word % 2 === 0) h1 = Math.imul(h1 ^ value, 2654435761);
      else h2 = Math.imul(h2 ^ value, 1597334677);
    }
  }
  return [h1, h2];
}

const hashOf = (texts: readonly string[]): [number, number] => {
  const hasher = new PieceHasher();
  for (const text of texts) hasher.add(text);
  return [hasher.h1, hasher.h2];
};

describe('PieceHasher (issue 19 §3)', () => {
  it('hashes long texts through the native copy to the same words as charCodeAt (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map(String.fromCharCode), maxLength: 300 }),
          {
            maxLength: 4,
          },
        ),
        (texts) => {
          expect(hashOf(texts)).toEqual(referenceHash(texts));
        },
      ),
    );
  });

  it('carries word parity across the copy chunks of texts longer than one chunk', () => {
    for (const length of [65_535, 65_536, 65_537, 100_001]) {
      const text = Array.from({ length }, (_, i) => String.fromCharCode((i * 7919) % 0xffff)).join('');
      expect(hashOf([text, 'x'])).toEqual(referenceHash([text, 'x']));
    }
  });

  it('keys a text by its content and length (textKey)', () => {
    expect(textKey('a'.repeat(600))).toBe(textKey('a'.repeat(600)));
    expect(textKey('a'.repeat(600))).not.toBe(textKey('a'.repeat(601)));
    expect(textKey('a'.repeat(600))).toMatch(/^t[0-9a-f]{16}$/);
  });
});
