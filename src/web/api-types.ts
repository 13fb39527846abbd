import type { CompactionMode } from '../compaction/types.ts';
import type { ChatfoldErrorCode } from '../errors/chatfold-error.ts';
import type { ContextPolicy } from '../policy/context-policy.ts';

/**
 * The JSON the web app's server sends and the client reads (WEB-1..7): one vocabulary for both
 * sides, types only. Everything here is plain data derived from the store and the agent's
 * events, bounded in size, and never holds an API key (WEB-8).
 */

/**
 * Where a stored message stands relative to the active context (WEB-6, FR-6.3): sent as is,
 * folded into the summary, sent as a shorter stub, or left out without a summary (truncated).
 */
export type MessageState = 'in-context' | 'summarized' | 'stubbed' | 'omitted';

/** How a stubbed message was shortened (the strategy that touched it). */
export type StubKind = 'superseded' | 'masked' | 'clipped';

/** One part of a message as the browser shows it. Long texts are cut; `chars` is the full length. */
export type WirePart =
  | { readonly type: 'text'; readonly text: string; readonly chars: number }
  | { readonly type: 'reasoning'; readonly text: string; readonly chars: number }
  | {
      readonly type: 'tool-call';
      readonly callId: string;
      readonly name: string;
      /** JSON text of the arguments, cut to a preview. */
      readonly arguments: string;
    }
  | {
      readonly type: 'tool-result';
      readonly callId: string;
      readonly name?: string;
      readonly text: string;
      readonly chars: number;
      readonly isError: boolean;
    }
  | {
      readonly type: 'attachment';
      readonly kind: 'image' | 'file';
      readonly mediaType: string;
      readonly filename?: string;
      readonly size?: number;
    };

/** A stored message as the browser shows it. */
export interface WireMessage {
  readonly id: string;
  /** Position in the session's full history (1, 2, …). */
  readonly seq: number;
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly createdAt: string;
  readonly state: MessageState;
  readonly stub?: StubKind;
  readonly parts: readonly WirePart[];
}

/** A session in the list (WEB-1). */
export interface WireSession {
  readonly id: string;
  readonly title: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly messageCount: number;
  /** Per-session auto-compaction override (FR-3.1.1); `inherit` follows the global setting. */
  readonly autoCompaction: 'inherit' | 'on' | 'off';
}

/** One line of the gauge's breakdown (WEB-2). */
export interface BreakdownItem {
  readonly key: 'system' | 'tools' | 'summary' | 'messages' | 'reserved' | 'margin' | 'free';
  readonly label: string;
  readonly tokens: number;
}

/** The context gauge (WEB-2, FR-6.1.1): tokens of the next prompt against the message budget. */
export interface Gauge {
  readonly tokens: number;
  /** Tokens the messages may use (window − reserved output − margin − tools). */
  readonly budget: number;
  readonly window: number;
  /** tokens / budget × 100, one decimal. */
  readonly percent: number;
  readonly level: 'ok' | 'warning' | 'critical';
  readonly accuracy: 'exact' | 'calibrated' | 'approximate';
  readonly tokenizer: string;
  readonly breakdown: readonly BreakdownItem[];
  readonly messagesInHistory: number;
  readonly messagesSummarized: number;
  readonly willCompactNextTurn: boolean;
  /**
   * Set while automatic compaction waits after one that did not help (saved under 5 %, or
   * failed): the message count in history at which it may run again.
   */
  readonly autoCompactionResumesAt?: number;
  /**
   * Tokens one message may use and still be sent whole: the budget minus the system prompt and
   * the summary. A longer one reaches the model clipped; the box warns before sending it
   * (FR-5.3.1).
   */
  readonly maxMessageTokens: number;
}

/** The latest summary (WEB-4). */
export interface WireSummary {
  readonly text: string;
  /** Messages of the original history it stands for. */
  readonly messagesCovered: number;
  readonly tokens: number;
  readonly createdAt: string;
  readonly mode: CompactionMode;
}

/** `GET /api/sessions/:id`: what the chat view needs. */
export interface SessionView {
  readonly session: WireSession;
  readonly gauge: Gauge;
  readonly summary?: WireSummary;
  /** The active context in prompt order, without the summary and system messages (newest last). */
  readonly messages: readonly WireMessage[];
  /** Active-context messages left out of `messages` because the list is long. */
  readonly olderInContext: number;
}

/** One compaction of a session (WEB-6). */
export interface WireCompaction {
  readonly id: string;
  readonly mode: CompactionMode;
  readonly createdAt: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly durationMs?: number;
  readonly summarizerModel?: string;
  readonly summarySource?: 'llm' | 'extractive' | 'custom';
  /** Messages the summary stands for after this compaction. */
  readonly messagesCovered: number;
}

/** `GET /api/sessions/:id/history`. */
export interface HistoryPage {
  readonly messages: readonly WireMessage[];
  /** Total stored messages in the session. */
  readonly total: number;
  readonly query?: string;
  /** Pass as `before` to get the previous page; absent on the first message. */
  readonly nextBefore?: number;
}

/** `POST /api/sessions/:id/compactions/preview`: the dry-run plan for the dialog (WEB-5, FR-2.3.2). */
export interface CompactionPreview {
  readonly totalMessages: number;
  readonly messagesToSummarize: number;
  readonly tokensBefore: number;
  readonly estimatedTokensAfter: number;
  /** Set when there is little to gain (FR-5.4.2): summarizing is allowed, with this warning. */
  readonly warning?: string;
}

/** Web app settings (WEB-7, FR-3.1.1), persisted in the store's settings (FR-3.1.2). */
export interface WebSettings {
  readonly autoCompaction: boolean;
  /** Compaction threshold per model, as a fraction of the budget (FR-1.2.3). */
  readonly thresholds: Readonly<Record<string, number>>;
  readonly retentionTokens: number;
  readonly notifications: boolean;
  /** `provider:model` for summaries; `null` uses the chat model (SUM-5). */
  readonly summarizerModel: string | null;
}

/** `GET /api/info`: what the page shows about the server. Never a key. */
export interface ServerInfo {
  readonly version: string;
  readonly agent: string;
  /** `provider:model`. */
  readonly model: string;
  /** The model's id as thresholds are keyed. */
  readonly modelId: string;
  /** True when answers come from chatfold's fake provider (keyless try), so the UI says so. */
  readonly fakeProvider: boolean;
  readonly store: string;
  /** The engine's default threshold (fraction of the budget) when no per-model one is set. */
  readonly defaultThreshold: number;
  readonly defaultRetentionTokens: number;
  /**
   * The context policy every chat starts from (`chat-app` unless the agent file names one),
   * whole, as the settings page shows it; the threshold and retention settings override it.
   */
  readonly policy: ContextPolicy;
}

/** A compact, JSON-safe view of a compaction's outcome for the browser. */
export interface WireCompactionResult {
  readonly compacted: boolean;
  readonly mode: CompactionMode;
  readonly reason: string;
  readonly tokensBefore: number;
  /** `tokensBefore` estimates the oldest messages (a history far above the window); shown with `~`. */
  readonly tokensBeforeEstimated?: true;
  readonly tokensAfter: number;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  /** Messages the new summary stands for, when one was written (earlier summaries' included). */
  readonly messagesSummarized?: number;
  /**
   * Messages this compaction folded into the summary, not counting those an earlier summary
   * already held: the number the confirmation dialog announced as "to summarize".
   */
  readonly messagesAdded?: number;
  readonly summaryPreview?: string;
  readonly summarySource?: 'llm' | 'extractive' | 'custom';
  readonly durationMs: number;
}

/**
 * Server-sent events of one turn, summarize or regenerate stream (`event:` is the `type`).
 * `done` is always last.
 */
export type StreamEvent =
  | { readonly type: 'step-start'; readonly step: number; readonly promptTokens: number }
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly text: string }
  | {
      readonly type: 'tool-call';
      readonly callId: string;
      readonly toolName: string;
      readonly input: string;
      readonly path?: string;
    }
  | {
      readonly type: 'tool-result';
      readonly callId: string;
      readonly toolName: string;
      readonly output: string;
      readonly chars: number;
      readonly isError: boolean;
      readonly truncated: boolean;
    }
  | { readonly type: 'message'; readonly message: WireMessage }
  | { readonly type: 'usage'; readonly inputTokens?: number; readonly outputTokens?: number }
  | {
      readonly type: 'compaction-start';
      readonly mode: CompactionMode;
      readonly tokens: number;
      readonly messages: number;
    }
  | { readonly type: 'compaction-progress'; readonly text: string }
  | { readonly type: 'compaction-end'; readonly result: WireCompactionResult }
  | { readonly type: 'compaction-fallback'; readonly reason: string }
  | { readonly type: 'compaction-error'; readonly message: string }
  | { readonly type: 'error'; readonly code?: ApiErrorCode; readonly message: string }
  | { readonly type: 'gauge'; readonly gauge: Gauge }
  | { readonly type: 'done'; readonly reason: 'stop' | 'aborted' | 'step-limit' | 'error' };

/**
 * Codes of the web API's own errors (`{ error: { code, message } }` bodies and `error` stream
 * events). Stable: the client and scripts branch on them.
 */
export type WebErrorCode =
  | 'E_UNAUTHORIZED'
  | 'E_FORBIDDEN_ORIGIN'
  | 'E_FORBIDDEN_HOST'
  | 'E_INVALID_BODY'
  | 'E_INVALID_QUERY'
  | 'E_BODY_TOO_LARGE'
  | 'E_NOT_FOUND'
  | 'E_SESSION_NOT_FOUND'
  | 'E_BUSY'
  | 'E_SUMMARY_FAILED'
  | 'E_SUMMARY_TIMEOUT'
  | 'E_SUMMARY_TOO_LONG'
  | 'E_INTERNAL';

/** Every code an error body or an `error` event may carry: the web API's and the library's. */
export type ApiErrorCode = WebErrorCode | ChatfoldErrorCode;

/** Every error body of the API. */
export interface ApiError {
  readonly error: { readonly code: ApiErrorCode; readonly message: string };
}

/** `PATCH /api/sessions/:id`: a new title, the chat's own auto-compaction, or both. */
export interface SessionPatch {
  readonly title?: string;
  readonly autoCompaction?: WireSession['autoCompaction'];
}

/** Body of summarize, regenerate and the preview: an optional instruction for the summarizer. */
export interface SummarizeRequest {
  readonly instructions?: string;
  /** Keep the newest this-many tokens verbatim for this summary only (a custom retention). */
  readonly retentionTokens?: number;
}

/** `GET /api/sessions/:id/history` query (numbers as the URL carries them). */
export interface HistoryQuery {
  readonly query?: string;
  readonly limit?: string;
  readonly before?: string;
}

/**
 * The JSON API as one contract (`METHOD path` → request body and answer), shared by the
 * server's routes (each answers through it) and the client (each call is typed by it).
 * `:id` is a session id.
 */
export interface ApiRoutes {
  readonly 'GET /api/info': { readonly body: undefined; readonly response: ServerInfo };
  readonly 'GET /api/settings': { readonly body: undefined; readonly response: { settings: WebSettings } };
  readonly 'PUT /api/settings': {
    readonly body: Partial<WebSettings>;
    readonly response: { settings: WebSettings };
  };
  readonly 'GET /api/sessions': { readonly body: undefined; readonly response: { sessions: WireSession[] } };
  readonly 'POST /api/sessions': {
    readonly body: { readonly title?: string };
    readonly response: { session: WireSession };
  };
  readonly 'GET /api/sessions/:id': { readonly body: undefined; readonly response: SessionView };
  readonly 'PATCH /api/sessions/:id': {
    readonly body: SessionPatch;
    readonly response: { session: WireSession };
  };
  readonly 'DELETE /api/sessions/:id': { readonly body: undefined; readonly response: { deleted: true } };
  readonly 'GET /api/sessions/:id/gauge': { readonly body: undefined; readonly response: { gauge: Gauge } };
  readonly 'POST /api/sessions/:id/stop': {
    readonly body: Record<string, never>;
    readonly response: { stopped: boolean };
  };
  readonly 'GET /api/sessions/:id/history': { readonly body: undefined; readonly response: HistoryPage };
  readonly 'GET /api/sessions/:id/compactions': {
    readonly body: undefined;
    readonly response: { compactions: WireCompaction[] };
  };
  readonly 'POST /api/sessions/:id/compactions/preview': {
    readonly body: SummarizeRequest;
    readonly response: CompactionPreview;
  };
}

/** The streamed routes (server-sent {@link StreamEvent}s) and their request bodies. */
export interface StreamRoutes {
  readonly 'POST /api/sessions/:id/turns': { readonly text: string };
  readonly 'POST /api/sessions/:id/compactions': SummarizeRequest;
  readonly 'POST /api/sessions/:id/compactions/regenerate': SummarizeRequest;
}
