import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseReader, type SseEvent } from './sse-reader.ts';

const encoder = new TextEncoder();

/** Reads `bytes` cut at the given points. */
function read(bytes: Uint8Array, cuts: readonly number[]): SseEvent[] {
  const events: SseEvent[] = [];
  const reader = createSseReader((event) => events.push(event));
  let start = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    reader.push(bytes.slice(start, cut));
    start = cut;
  }
  reader.push(bytes.slice(start));
  reader.end();
  return events;
}

const payload = fc.string({ unit: fc.constantFrom('a', 'é', '🙂', '{', '"', ' ', ':'), maxLength: 12 });

describe('the SSE reader', () => {
  it('reads the same events however the bytes are cut and whatever the line ends', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ event: fc.constantFrom('', 'message_start', 'delta'), data: payload }), {
          maxLength: 6,
        }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 10 }),
        (events, newline, cuts) => {
          const text = events
            .map(
              (event) =>
                `${event.event === '' ? '' : `event: ${event.event}${newline}`}: a comment${newline}data: ${event.data}${newline}${newline}`,
            )
            .join('');
          const bytes = encoder.encode(text);
          const whole = read(bytes, []);
          expect(whole).toEqual(events);
          expect(
            read(
              bytes,
              cuts.map((cut) => cut % (bytes.length + 1)),
            ),
          ).toEqual(events);
        },
      ),
    );
  });

  it('joins multi-line data and reads a last event without its blank line', () => {
    const events = read(encoder.encode('data: one\ndata: two\n\ndata: [DONE]'), []);
    expect(events).toEqual([
      { event: '', data: 'one\ntwo' },
      { event: '', data: '[DONE]' },
    ]);
  });
});
