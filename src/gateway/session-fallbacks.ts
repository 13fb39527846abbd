/**
 * The fallbacks and failures a gateway's sessions survive (a summary that fell back to the
 * extractive one, a summarizer backing off, a repaired history, a failed background write…),
 * as gateway events (issue 21: every fallback is an event and a log line). Only what can be
 * logged as it is: kinds, counts, codes — never a reason or an error message, which may quote
 * the conversation.
 */
import type { SessionEvent } from '../session/types.ts';
import type { GatewayEvent } from './gateway-events.ts';

/** The session events a gateway reports as `session-fallback`. */
export const SESSION_FALLBACK_EVENTS = [
  'compaction-fallback',
  'compaction-error',
  'summarizer-backoff',
  'history-repaired',
  'usage-under-reported',
  'store-error',
  'snapshot-conflict',
  'background-discarded',
  'listener-error',
] as const;

/** One of {@link SESSION_FALLBACK_EVENTS}. */
export type SessionFallbackKind = (typeof SESSION_FALLBACK_EVENTS)[number];

/** An error's stable code, else its class name. */
export function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    if (error instanceof Error) return error.name;
  }
  return typeof error;
}

/**
 * The gateway event for a session event that is a fallback or a survived failure.
 *
 * @returns The `session-fallback` event, or undefined for any other session event.
 */
export function sessionFallbackEvent(event: SessionEvent, sessionId: string): GatewayEvent | undefined {
  const base = { type: 'session-fallback', sessionId, event: event.type } as const;
  switch (event.type) {
    case 'compaction-fallback':
      return {
        ...base,
        event: event.type,
        detail: {
          source: event.source,
          fallback: event.fallback,
          ...(event.stage === undefined ? {} : { stage: event.stage }),
        },
      };
    case 'compaction-error':
      return {
        ...base,
        event: event.type,
        detail: { durationMs: Math.round(event.durationMs) },
        code: errorCode(event.error),
      };
    case 'summarizer-backoff':
      return {
        ...base,
        event: event.type,
        detail: { failures: event.failures, retryAfterMs: event.retryAfterMs },
      };
    case 'history-repaired':
      return {
        ...base,
        event: event.type,
        detail: { moved: event.moved, heldBack: event.heldBack, dropped: event.dropped },
      };
    case 'usage-under-reported':
      return {
        ...base,
        event: event.type,
        detail: { reason: event.reason, reported: event.reported, estimate: event.estimate },
      };
    case 'store-error':
      return {
        ...base,
        event: event.type,
        detail: { operation: event.operation },
        code: errorCode(event.error),
      };
    case 'snapshot-conflict':
    case 'background-discarded':
      return { ...base, event: event.type, detail: {} };
    case 'listener-error':
      return {
        ...base,
        event: event.type,
        detail: { eventType: event.eventType },
        code: errorCode(event.error),
      };
    default:
      return undefined;
  }
}
