import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { normalizeMessages } from './normalize.ts';
import type { MessageInput } from './types.ts';

const now = () => new Date('2026-01-01T00:00:00.000Z');

describe('normalizeMessages (MSG-1, MSG-4)', () => {
  it('assigns deterministic ids that differ for repeated identical messages', () => {
    const input: MessageInput[] = [
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    ];
    const a = normalizeMessages(input, { now });
    const b = normalizeMessages(input, { now });
    expect(a.map((m) => m.id)).toEqual(b.map((m) => m.id));
    expect(a[0]?.id).not.toEqual(a[1]?.id);
    expect(a[0]?.createdAt).toBe('2026-01-01T00:00:00.000Z');
  });

  it('keeps ids and timestamps that are given and does not mutate the input', () => {
    const input: MessageInput[] = [{ id: 'm1', createdAt: '2020-01-01T00:00:00Z', role: 'user', parts: [] }];
    const frozen = structuredClone(input);
    expect(normalizeMessages(input)[0]).toMatchObject({ id: 'm1', createdAt: '2020-01-01T00:00:00Z' });
    expect(input).toEqual(frozen);
  });

  it('rejects an unknown role with E_UNKNOWN_ROLE', () => {
    const bad = [{ role: 'robot', parts: [] }] as unknown as MessageInput[];
    expect(() => normalizeMessages(bad)).toThrowError(expect.objectContaining({ code: 'E_UNKNOWN_ROLE' }));
  });

  it('rejects non-JSON tool arguments with E_INVALID_TOOL_ARGUMENTS', () => {
    const bad: MessageInput[] = [
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'f', arguments: '{oops' }] },
    ];
    expect(() => normalizeMessages(bad)).toThrowError(
      expect.objectContaining({ code: 'E_INVALID_TOOL_ARGUMENTS' }),
    );
  });

  it('replaces lone surrogates with U+FFFD by default and can refuse them', () => {
    const input: MessageInput[] = [{ role: 'user', parts: [{ type: 'text', text: 'a\uD800b' }] }];
    expect(normalizeMessages(input)[0]?.parts[0]).toEqual({ type: 'text', text: 'a\uFFFDb' });
    expect(() => normalizeMessages(input, { loneSurrogates: 'error' })).toThrowError(
      expect.objectContaining({ code: 'E_INVALID_TEXT' }),
    );
  });

  it('refuses a 50 MB message with E_MESSAGE_TOO_LARGE and the numbers', () => {
    const input: MessageInput[] = [
      { role: 'user', parts: [{ type: 'text', text: 'x'.repeat(50 * 1024 * 1024) }] },
    ];
    try {
      normalizeMessages(input);
      expect.unreachable();
    } catch (error) {
      expect(ChatfoldError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'E_MESSAGE_TOO_LARGE', details: { actual: 50 * 1024 * 1024 } });
    }
  });

  it('rejects null content with a typed error naming the path', () => {
    const bad = [{ role: 'user', parts: null }] as unknown as MessageInput[];
    expect(() => normalizeMessages(bad)).toThrowError(/messages\[0\]\.parts: expected array, received null/);
  });
});
