import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { SessionEvent } from '../session/types.ts';
import { SESSION_FALLBACK_EVENTS, sessionFallbackEvent } from './session-fallbacks.ts';

const SECRET = 'the vault code is 7291';
const error = new ChatfoldError('E_STORE', `could not write: ${SECRET}`, {});

/** One event of every kind a gateway reports, each carrying the secret where it can. */
const EVENTS: SessionEvent[] = [
  {
    type: 'compaction-fallback',
    source: 'summarizer',
    stage: 'summarize',
    fallback: 'extractive',
    reason: SECRET,
  },
  { type: 'compaction-error', error, message: SECRET, durationMs: 12.4 },
  { type: 'summarizer-backoff', failures: 3, retryAfterMs: 60_000 },
  { type: 'history-repaired', moved: 1, heldBack: 2, dropped: 0 },
  { type: 'usage-under-reported', reason: 'fresh-only', reported: 10, estimate: 900 },
  { type: 'store-error', operation: 'write learned window', error },
  { type: 'snapshot-conflict', reason: SECRET },
  { type: 'background-discarded', reason: SECRET },
  { type: 'listener-error', eventType: 'compaction-end', error: new TypeError(SECRET) },
];

describe('session fallbacks as gateway events', () => {
  it('reports every fallback kind with counts and codes, never the reason or the error message', () => {
    const events = EVENTS.map((event) => sessionFallbackEvent(event, 's1'));
    expect(events.map((event) => event?.type === 'session-fallback' && event.event)).toEqual([
      ...SESSION_FALLBACK_EVENTS,
    ]);
    expect(JSON.stringify(events)).not.toContain('7291');
    expect(events[1]).toMatchObject({ code: 'E_STORE', detail: { durationMs: 12 } });
    expect(events[8]).toMatchObject({ code: 'TypeError', detail: { eventType: 'compaction-end' } });
  });

  it('leaves other session events to the other gateway events', () => {
    expect(sessionFallbackEvent({ type: 'window-learned', window: 8192 }, 's1')).toBeUndefined();
    expect(
      sessionFallbackEvent({ type: 'snapshot-written', snapshotId: 'x', cutoffSeq: 3 }, 's1'),
    ).toBeUndefined();
  });
});
