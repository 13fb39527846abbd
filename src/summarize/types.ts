import type { EngineCache } from '../messages/engine-cache.ts';
import type { Message } from '../messages/types.ts';
import type { TokenCounter } from '../tokens/types.ts';

// The ledger is part of the projection's vocabulary (a summary record carries it).
export type { FactKind, FactLedger } from '../projection/types.ts';

import type { FactLedger } from '../projection/types.ts';

/** A summary together with its ledger. */
export interface SummaryWithLedger {
  readonly text: string;
  readonly ledger: FactLedger;
}

/** What a summarizer receives: the span and a ready-to-send prompt (SUM-2, SUM-3, SUM-5). */
export interface SummaryRequest {
  /** The span's messages the prompt holds: the newest ones, when the oldest did not fit the summarizer's window. */
  readonly messages: readonly Message[];
  readonly previousSummary?: SummaryWithLedger;
  /** The ledger of the span merged with the previous one. */
  readonly ledger: FactLedger;
  /** The first user message: what the conversation is for. */
  readonly goal?: string;
  readonly instructions?: string;
  readonly variant: 'general' | 'code';
  readonly maxTokens: number;
  readonly prompt: { readonly system: string; readonly user: string };
  /** Aborted on timeout or when the caller aborts the compaction: stop the model call. */
  readonly signal: AbortSignal;
  /** Call with each piece of text as the model streams it (UIs show the summary as it grows). */
  readonly onDelta?: (delta: string) => void;
}

/** What a summarizer returns: the text, or the text and the model that wrote it. */
export type SummarizerOutput = string | { readonly text: string; readonly model?: string };

/**
 * Any model that turns a prompt into a summary (SUM-5); adapters for the AI SDK and others
 * wrap a model in this function.
 */
export type Summarizer = (request: SummaryRequest) => Promise<SummarizerOutput>;

/** The result of summarizing a span. */
export interface SummaryResult extends SummaryWithLedger {
  readonly source: 'llm' | 'extractive' | 'custom';
  /** The summarizer's model, when it said. */
  readonly model?: string;
  /** Why the LLM summary was not used (RT-4), when it was not. */
  readonly fallbackReason?: string;
}

/** Options of `summarizeSpan`. */
export interface SummarizeSpanOptions {
  readonly messages: readonly Message[];
  readonly previousSummary?: SummaryWithLedger;
  readonly goal?: string;
  readonly summarizer?: Summarizer;
  readonly instructions?: string;
  readonly customSummary?: string;
  readonly variant: 'general' | 'code';
  readonly maxTokens: number;
  readonly timeoutMs: number;
  readonly counter: TokenCounter;
  /**
   * The summarizer model's context window in tokens: the prompt plus the answer (`maxTokens`)
   * never exceed it; the oldest messages of the span are left out of the prompt first (the
   * earlier summary and the ledger stay). Default: no bound.
   */
  readonly summarizerWindow?: number;
  /** Counts for `summarizerWindow` (the summarizer model's tokenizer). Default `counter`. */
  readonly summarizerCounter?: TokenCounter;
  /** The compaction's memo tables (ledger facts per message); default: a fresh cache. */
  readonly cache?: EngineCache;
  /** Aborts the summary: `summarizeSpan` rejects with the signal's reason (no fallback). */
  readonly signal?: AbortSignal;
  readonly onDelta?: (delta: string) => void;
}
