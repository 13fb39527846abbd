import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validConversation } from '../../test/malformed-messages.ts';
import { repairToolRounds } from './repair-tool-rounds.ts';
import type { Message } from './types.ts';
import { validate } from './validate.ts';

/** One conversation's messages with ids and call ids of its own (two turns of one session). */
const tagged = (messages: readonly Message[], tag: string): Message[] =>
  messages.map((message) => ({
    ...message,
    id: `${tag}${message.id}`,
    parts: message.parts.map((part) =>
      part.type === 'tool-call'
        ? { ...part, id: `${tag}${part.id}` }
        : part.type === 'tool-result'
          ? { ...part, callId: `${tag}${part.callId}` }
          : part,
    ),
  }));

/** Two conversations merged as two turns running at once would write them: each in its order. */
const interleaved = fc
  .record({
    a: validConversation,
    b: validConversation,
    picks: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    // Results the log never got (a turn still running, or killed): dropped by index.
    lost: fc.array(fc.nat(40), { maxLength: 3 }),
  })
  .map(({ a, b, picks, lost }) => {
    const left = tagged(a, 'a');
    const right = tagged(
      b.filter((message) => message.role !== 'system'),
      'b',
    );
    const out: Message[] = [];
    let i = 0;
    let j = 0;
    for (const pick of picks) {
      if (pick && i < left.length) out.push(left[i++] as Message);
      else if (j < right.length) out.push(right[j++] as Message);
    }
    out.push(...left.slice(i), ...right.slice(j));
    const gone = new Set(lost);
    return out.filter((message, index) => message.role !== 'tool' || !gone.has(index));
  });

/** The problems a repaired history may still have: empty messages are not the repair's business. */
const pairing = (messages: readonly Message[], provider?: 'openai' | 'anthropic') =>
  validate(messages, {
    allowPendingToolCalls: true,
    ignore: ['empty-message'],
    ...(provider === undefined ? {} : { provider }),
  });

describe('repairToolRounds (issue 24 §5)', () => {
  it('gives a well-formed history back as the same array', () => {
    fc.assert(
      fc.property(validConversation, (messages) => {
        expect(pairing(messages)).toEqual([]);
        const repair = repairToolRounds(messages);
        expect(repair.messages).toBe(messages);
        expect([repair.moved, repair.heldBack, repair.dropped]).toEqual([0, 0, 0]);
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  it('makes two interleaved turns sendable: rounds whole, nothing invented, every user message kept, idempotent', () => {
    fc.assert(
      fc.property(interleaved, (messages) => {
        const { messages: repaired } = repairToolRounds(messages);
        expect(pairing(repaired)).toEqual([]);
        expect(pairing(repaired, 'openai')).toEqual([]);
        // Nothing invented: each message is an input message or one with some of its parts.
        const byId = new Map(messages.map((message) => [message.id, message]));
        for (const message of repaired) {
          const source = byId.get(message.id) ?? byId.get(message.id.slice(0, message.id.lastIndexOf(':')));
          expect(source).toBeDefined();
          for (const part of message.parts) expect(source?.parts).toContain(part);
        }
        // Users and systems all kept, in order.
        const said = (list: readonly Message[]) =>
          list.filter((message) => message.role === 'user' || message.role === 'system');
        expect(said(repaired)).toEqual(said(messages));
        // A call whose result the log has is sent with it.
        const answered = new Set(
          messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool-result' ? [p.callId] : []))),
        );
        const sentCalls = new Set(
          repaired.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool-call' ? [p.id] : []))),
        );
        for (const id of answered) expect(sentCalls.has(id)).toBe(true);
        const again = repairToolRounds(repaired);
        expect(again.messages).toBe(repaired);
      }),
      { numRuns: 500, seed: 24 },
    );
  });

  it('holds back another turn’s unfinished round and keeps the last turn’s own call in flight', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const user = (id: string, text: string): Message => ({
      id,
      role: 'user',
      parts: [{ type: 'text', text }],
      createdAt: at,
    });
    const call = (id: string, callId: string): Message => ({
      id,
      role: 'assistant',
      parts: [{ type: 'tool-call', id: callId, name: 'read_file', arguments: '{}' }],
      createdAt: at,
    });
    const result = (id: string, callId: string): Message => ({
      id,
      role: 'tool',
      parts: [{ type: 'tool-result', callId, content: [{ type: 'text', text: 'ok' }] }],
      createdAt: at,
    });
    // Turn A's round is running elsewhere when turn B's prompt is made.
    const log = [user('u1', 'A'), call('c1', 'a1'), user('u2', 'B')];
    expect(repairToolRounds(log)).toEqual({ messages: [log[0], log[2]], moved: 0, heldBack: 1, dropped: 0 });
    // B's own call, last, stays in flight.
    const own = [...log, call('c2', 'b1')];
    expect(repairToolRounds(own).messages).toEqual([log[0], log[2], own[3]]);
    // A's result lands after B's turn: A's round is shown whole, in its place.
    const later = [...own, result('r2', 'b1'), result('r1', 'a1')];
    expect(repairToolRounds(later)).toEqual({
      messages: [log[0], log[1], later[5], log[2], own[3], later[4]],
      moved: 1,
      heldBack: 0,
      dropped: 0,
    });
  });
});
