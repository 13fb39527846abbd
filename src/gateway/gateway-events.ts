/**
 * What a gateway reports about its work (issue 21): one event per request and per thing that
 * went differently. Events carry sizes, ids and timings — never message content or keys — so
 * they can be logged as they are.
 */
import type { SessionFallbackKind } from './session-fallbacks.ts';

/** One event of a gateway. */
export type GatewayEvent =
  | {
      readonly type: 'request';
      readonly format: 'openai' | 'anthropic';
      readonly route?: string;
      readonly model: string;
      readonly sessionId: string;
      readonly branchedFrom?: string;
      readonly stream: boolean;
      readonly status: number;
      /** Messages of the request the session did not hold. */
      readonly newMessages: number;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      readonly compacted: boolean;
      readonly cachedPrefixTokens: number;
      /** Time spent in the gateway before the upstream call (mapping, appending, projecting). */
      readonly gatewayMs: number;
      readonly durationMs: number;
    }
  | {
      /** The upstream answered with an error status (passed to the client unchanged). */
      readonly type: 'upstream-error';
      readonly status: number;
      readonly model: string;
    }
  | {
      /** The upstream could not be reached. */
      readonly type: 'upstream-unreachable';
      readonly reason: string;
    }
  | {
      /** The upstream rejected the prompt as too long; the gateway compacted and sent it again. */
      readonly type: 'overflow-retry';
      readonly sessionId: string;
      readonly limit?: number;
      readonly actual?: number;
    }
  | {
      readonly type: 'compaction';
      readonly sessionId: string;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      readonly mode: string;
    }
  | {
      /** A summary written (in the background or inline), with how long it took. */
      readonly type: 'summary';
      readonly sessionId: string;
      readonly durationMs?: number;
      readonly source: string;
    }
  | {
      /** The reply could not be stored (the client sends it back next turn; it is stored then). */
      readonly type: 'reply-not-recorded';
      readonly sessionId: string;
      readonly reason: string;
      /** The store error's code or name, when a store error was the reason. */
      readonly code?: string;
    }
  | {
      /**
       * A session took a fallback or survived a failure (a summary fell back to the extractive
       * one, the summarizer backs off, a broken history was repaired for sending, a background
       * write failed…): which, with counts and codes only.
       */
      readonly type: 'session-fallback';
      readonly sessionId: string;
      readonly event: SessionFallbackKind;
      readonly detail: Readonly<Record<string, string | number>>;
      /** The error's code or name, when there was an error. */
      readonly code?: string;
    }
  /** The model called `chatfold_recall`; the gateway answered from the store and asked again. */
  | { readonly type: 'recall'; readonly sessionId: string; readonly calls: number }
  | {
      /**
       * A recall round could not be completed (the upstream refused or could not be reached):
       * a streamed answer ends with what the client already has; a whole one is the error.
       */
      readonly type: 'recall-failed';
      readonly sessionId: string;
      readonly stream: boolean;
      /** The upstream's status or the error's code or name (never its message). */
      readonly reason: string;
    }
  /** An unexpected failure: where and the error's code or name (its message may quote content, so it is left out). */
  | { readonly type: 'error'; readonly where: string; readonly code: string };

/** Receives a gateway's events; must not throw (what it throws is ignored). */
export type GatewayEventListener = (event: GatewayEvent) => void;
