/**
 * The agent runtime's public types (AG-3): what `createAgent` takes and the events `run()`
 * streams. The terminal agent (`chatfold chat`) and the web app render these events and
 * nothing else, so this union is a stable contract: fields are only ever added.
 */
import type { FlexibleSchema, LanguageModel } from 'ai';
import type {
  CompactionEndEvent,
  CompactionErrorEvent,
  CompactionFallbackEvent,
  CompactionHooks,
  CompactionMode,
  CompactionPlan,
  CompactionProgressEvent,
  CompactionStartEvent,
} from '../compaction/types.ts';
import type { Message, MessageInput } from '../messages/types.ts';
import type { PolicySpec } from '../policy/presets.ts';
import type { ChatfoldOptions, Session } from '../session/types.ts';
import type { Store } from '../stores/types.ts';
import type { UnderReportReason } from '../tokens/calibrated-counter.ts';
import type { TokenCounter } from '../tokens/types.ts';
import type { AgentWarning } from './model-warnings.ts';

// ---------------------------------------------------------------------------------------------
// Events

/** Why a compaction runs (HK-1): a trigger fired, the user asked, or the prompt did not fit. The core's `CompactionMode`. */
export type AgentCompactionMode = CompactionMode;

/**
 * A model call started (one "step" of the tool loop). Before it the session prepared the
 * prompt, which may have compacted (`compaction-*` events come first).
 */
export interface StepStartEvent {
  readonly type: 'step-start';
  /** 0 for the first model call of the run, then 1, 2, … */
  readonly step: number;
  /** Messages in the prompt the session prepared (summary + retained + new). */
  readonly promptMessages: number;
  /** Tokens of that prompt as chatfold counts them (tools included). */
  readonly promptTokens: number;
}

/** A piece of the assistant's answer, as the model streams it. */
export interface TextDeltaEvent {
  readonly type: 'text-delta';
  readonly step: number;
  readonly text: string;
}

/** A piece of the model's reasoning ("thinking"), when the provider streams it. */
export interface ReasoningDeltaEvent {
  readonly type: 'reasoning-delta';
  readonly step: number;
  readonly text: string;
}

/** The model called a tool; its result follows as a `tool-result` event. */
export interface ToolCallEvent {
  readonly type: 'tool-call';
  readonly step: number;
  readonly callId: string;
  readonly toolName: string;
  /** The parsed arguments (as the model sent them). */
  readonly input: unknown;
  /** The path argument of a workspace tool, for compact display (`read_file src/a.ts`). */
  readonly path?: string;
}

/** A tool finished (or was refused, or failed): what the model will see. */
export interface ToolResultEvent {
  readonly type: 'tool-result';
  readonly step: number;
  readonly callId: string;
  readonly toolName: string;
  /** The text the model receives (bounded; a note says what was cut). */
  readonly output: string;
  /** True when the tool refused or failed; the model sees the error text and may recover. */
  readonly isError: boolean;
  /** True when the output was cut to its size cap. */
  readonly truncated: boolean;
  readonly durationMs: number;
}

/** A message was appended to the session (user input, assistant turn, tool results). */
export interface MessageEvent {
  readonly type: 'message';
  readonly message: Message;
}

/** Provider-reported usage of one model call (recorded in the session, TOK-5). */
export interface UsageEvent {
  readonly type: 'usage';
  readonly step: number;
  /** `undefined` when the provider did not report it (never 0 for unknown). */
  readonly inputTokens: number | undefined;
  readonly outputTokens: number | undefined;
}

/**
 * The provider reported fewer input tokens than chatfold counts for the same request, beyond
 * the tolerance (a server that reuses its prompt cache and reports fresh tokens only, one that
 * leaves the tool definitions out): the report was set aside and the session counts locally.
 * Sent once per session, for the first such report.
 */
export interface UsageUnderReportedEvent {
  readonly type: 'usage-under-reported';
  readonly reason: UnderReportReason;
  /** Input tokens the provider reported. */
  readonly reported: number;
  /** chatfold's own count of the same request (messages + tools + system). */
  readonly estimate: number;
}

// The compaction events are the core's own (one vocabulary from the engine to every front end).
export type {
  CompactionEndEvent,
  CompactionErrorEvent,
  CompactionFallbackEvent,
  CompactionProgressEvent,
  CompactionStartEvent,
} from '../compaction/types.ts';

/**
 * The run failed (provider error, missing key, unreachable server). Followed by `done` with
 * reason `'error'`; every message appended before the failure stays in the session.
 */
export interface ErrorEvent {
  readonly type: 'error';
  /** A stable `ChatfoldError` code when there is one (`E_PROVIDER`, `E_CONTEXT_OVERFLOW`, …). */
  readonly code: string | undefined;
  /** One line saying what failed and what to do. */
  readonly message: string;
  readonly error: unknown;
}

/** Why a run ended. */
export type DoneReason =
  /** The model answered without calling a tool. */
  | 'stop'
  /** `signal` aborted the run (Ctrl-C, a closed browser tab). */
  | 'aborted'
  /** The step limit was reached while the model still called tools. */
  | 'step-limit'
  /** An `error` event came before. */
  | 'error';

/** The last event of every run and every `summarize()`; nothing follows it. */
export interface DoneEvent {
  readonly type: 'done';
  readonly reason: DoneReason;
  /** Model calls made. */
  readonly steps: number;
  /** Text of the final assistant answer (empty when the run ended without one). */
  readonly text: string;
  /** Summed provider usage over the run's model calls. */
  readonly usage: { readonly inputTokens: number | undefined; readonly outputTokens: number | undefined };
}

/**
 * Everything `agent.run()` and `agent.summarize()` stream, discriminated on `type` (AG-3).
 * Order within a step: `compaction-*` (if the prompt compacts) → `step-start` →
 * `text-delta` / `reasoning-delta` / `tool-call` → `message` (assistant) → `usage` →
 * `tool-result` + `message` (tool) per call. `done` is always last.
 */
export type AgentEvent =
  | StepStartEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ToolCallEvent
  | ToolResultEvent
  | MessageEvent
  | UsageEvent
  | UsageUnderReportedEvent
  | CompactionStartEvent
  | CompactionProgressEvent
  | CompactionEndEvent
  | CompactionFallbackEvent
  | CompactionErrorEvent
  | ErrorEvent
  | DoneEvent;

/** The `type` of every agent event. */
export type AgentEventType = AgentEvent['type'];

// ---------------------------------------------------------------------------------------------
// Configuration

/** Providers the runtime can build a model for (keys from the usual environment variables). */
export type AgentProvider = 'openai' | 'anthropic' | 'google' | 'openai-compatible';

/** A model by name, as agent files declare it (AG-1). */
export interface AgentModelSpec {
  readonly provider: AgentProvider;
  /** The provider's model id, e.g. `gpt-4o`, `claude-sonnet-4-5`, `qwen2.5:32b`. */
  readonly name: string;
  /** Base URL of an OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio) or a proxy. */
  readonly baseURL?: string;
  /** API key; default: the provider's environment variable. */
  readonly apiKey?: string;
  /** Context window; overrides the registry (MOD-2). */
  readonly maxInputTokens?: number;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
}

/** A tool the agent may call (AG-2). Workspace tools are built with `workspaceTools()`. */
export interface AgentTool<INPUT = unknown> {
  readonly description: string;
  /** Zod schema, or any schema the AI SDK accepts (`jsonSchema(...)`). */
  readonly inputSchema: FlexibleSchema<INPUT>;
  /**
   * Runs the tool. Return the text the model sees; throw (or return `{ isError: true }`) to
   * report a failure the model can recover from. The run's signal aborts it.
   */
  execute(
    input: INPUT,
    options: { readonly signal: AbortSignal; readonly callId: string },
  ): Promise<AgentToolOutput | string> | AgentToolOutput | string;
  /** The path argument to show in compact tool lines, when the tool has one. */
  pathOf?(input: INPUT): string | undefined;
}

/** What a tool returns. */
export interface AgentToolOutput {
  readonly output: string;
  readonly isError?: boolean;
  readonly truncated?: boolean;
}

/**
 * Context settings of an agent (AG-1). `policy` picks the policy (a preset name or a policy
 * object); each other key that is set overrides one field of it — nothing that is not set
 * adds a trigger. N or K set without a policy starts from the `rolling-summary` preset.
 */
export interface AgentContextOptions {
  /** The policy: a preset name (`default`, `chat-app`, `rolling-summary`, …) or a policy object. */
  readonly policy?: PolicySpec;
  /** Compact automatically when a trigger fires. Default true. */
  readonly autoSummarize?: boolean;
  /** N: compact after this many messages since the last summary (seed 004 default 30). */
  readonly maxMessagesBeforeSummary?: number;
  /** K: compact when the prompt reaches this many tokens (seed 004 default 128,000). */
  readonly maxTokensBeforeSummary?: number;
  /** Newest messages always kept verbatim (seed 004 default 6). */
  readonly minRecentMessages?: number;
  /** Tokens reserved for the answer (seed 004 default 4,096). */
  readonly responseReserve?: number;
  /** Share of the window that triggers a compaction (replaces the policy's `fraction` trigger). */
  readonly threshold?: number;
  /** Share of the window to compact down to (the policy's `target.fraction`). */
  readonly target?: number;
  /** Newest tokens kept verbatim after a summary (the policy's `retention.tokens`). */
  readonly retentionTokens?: number;
}

/** Options of `createAgent`. */
export interface AgentOptions {
  /** An AI SDK model, or a spec the runtime builds one from (`{ provider: 'openai', name: 'gpt-4o' }`). */
  readonly model: LanguageModel | AgentModelSpec;
  /** Agent name (shown by front ends, stored with sessions). Default `'agent'`. */
  readonly name?: string;
  /** System instructions. */
  readonly instructions?: string;
  readonly tools?: Readonly<Record<string, AgentTool<unknown>>>;
  /**
   * Offer the model `chatfold_recall` (issue 21): it asks for the messages a summary, omission
   * marker or placeholder names by id, or searches the full history, and gets the originals
   * back from the session — compaction it can undo. Default false.
   */
  readonly recall?: boolean;
  /**
   * History strategy (seed 000 `history: summarize | truncate`): `summarize` and `truncate`
   * select the `agent-summarize` / `agent-truncate` policies when no `context.policy` is set;
   * another name replaces the policy's pipeline. Default: the policy's own pipeline.
   */
  readonly history?: string;
  readonly context?: AgentContextOptions;
  /** A cheaper model for summaries (SUM-5). Default: the agent's model. */
  readonly summarizer?: LanguageModel | AgentModelSpec;
  /** beforeCompact (cancel, custom instructions, custom summary) and afterCompact (HK-1, HK-2). */
  readonly hooks?: CompactionHooks;
  /** Where the session lives. Default: in memory. */
  readonly store?: Store;
  /** Session id to open or resume (ST-6). Default: a new random id. */
  readonly session?: string;
  /** Model calls per run before it stops with `step-limit`. Default 25. */
  readonly maxSteps?: number;
  /**
   * Milliseconds a model call may go without sending anything (no first token, a stalled
   * stream) before it is cancelled with an `E_PROVIDER` error event; a long answer that keeps
   * streaming is never cut. Default: no limit.
   */
  readonly requestTimeoutMs?: number;
  /**
   * Token counter for the session (e.g. `createLlamaCppTokenCounter` for a local server's own
   * tokenizer); default: the model's tokenizer. Calibrated by reported usage like the default.
   */
  readonly counter?: TokenCounter;
  /**
   * Compaction off the request path (issue 13): past the early threshold the session queues a
   * job; a worker writes the summary and the next prompt over the trigger applies it with no
   * model call. `chatfold serve` sets this; see `runCompactionWorker`.
   */
  readonly background?: ChatfoldOptions['background'];
  /**
   * One run or summary at a time per session across every process sharing the store (a
   * terminal and a web tab, two terminals, two servers): each `run()` and `summarize()` takes
   * the session's turn lease, renews it while it runs, and gives it back at `done`. While
   * another process holds it the run appends nothing and ends with an `error` event of code
   * `E_BUSY` saying who holds it. `'off'` when the caller takes the lease itself (`chatfold
   * serve` does, to answer 409). Default: on, named after the agent.
   */
  readonly turnLease?: 'off' | AgentTurnLeaseOptions;
}

/** Settings of the turn lease an agent takes per run (`AgentOptions.turnLease`). */
export interface AgentTurnLeaseOptions {
  /** This program, as a refused process names it: `chatfold chat`. Default `agent NAME`. */
  readonly label?: string;
  /** Lifetime without renewal, in milliseconds (default 30,000). */
  readonly ttlMs?: number;
  /** Renewal period while a run lasts, in milliseconds (default 10,000). */
  readonly renewMs?: number;
}

/** Options of one run. */
export interface RunOptions {
  /** Aborts the model call, any tool and any in-flight summary; messages already produced stay. */
  readonly signal?: AbortSignal;
}

/** Options of `agent.summarize()` (`/summarize`, a "Summarize" button). */
export interface SummarizeOptions {
  /** Extra instructions for the summarizer ("focus on the API decisions"). */
  readonly instructions?: string;
  /** `'originals'`: write the summary again from the stored original messages (WEB-4 regenerate). */
  readonly from?: 'projection' | 'originals';
  /** Keep the newest tokens/messages verbatim for this summary only (a custom retention). */
  readonly retention?: { readonly tokens?: number; readonly messages?: number };
  readonly signal?: AbortSignal;
}

/** Options of `agent.previewSummary()`. */
export interface PreviewOptions {
  readonly instructions?: string;
  /** The custom retention the summary would use (see `SummarizeOptions.retention`). */
  readonly retention?: { readonly tokens?: number; readonly messages?: number };
}

/**
 * What `/summarize` would do now, computed without a model call (API-1 `dryRun`): the numbers
 * a confirmation dialog shows (WEB-5) before the summary runs.
 */
export interface SummaryPreview {
  /** False when there is nothing to compact (`reason` says why). */
  readonly willCompact: boolean;
  readonly reason: string;
  /** Every message in the store. */
  readonly messagesInHistory: number;
  /** Messages a new summary would fold in (excluding those an earlier summary already covers). */
  readonly messagesToSummarize: number;
  /** Tokens of the prompt now. */
  readonly tokensBefore: number;
  /** Estimated tokens after (the preview uses the extractive summary's size). */
  readonly tokensAfter: number;
  /** The policy's floor for automatic compaction (a manual one below it is allowed, with a warning). */
  readonly floorTokens: number;
  /** The plan itself, for UIs that show more. */
  readonly plan: CompactionPlan;
}

/** An agent bound to one chatfold session (AG-3). */
export interface Agent {
  readonly name: string;
  /** `provider:model`, for display. */
  readonly modelLabel: string;
  /** The chatfold session behind the agent: status, history, compactions. */
  readonly session: Session;
  /**
   * What a person should know before the first turn, e.g. an unknown model whose window was
   * assumed. Front ends show each once.
   */
  readonly warnings: readonly AgentWarning[];
  /**
   * Appends the input and runs the tool loop until the model answers without a tool call,
   * the step limit, an error or the signal. Streams events; `done` is last. Never throws for
   * runtime faults (they become `error` events); the iterable may be consumed once.
   */
  run(
    input: string | MessageInput | readonly MessageInput[],
    options?: RunOptions,
  ): AsyncIterable<AgentEvent>;
  /**
   * Compacts now (manual), streaming `compaction-*` events — always one `compaction-end`, whose
   * `report.compacted` is false when a hook cancelled or there was nothing to do — then `done`.
   * History is never lost.
   */
  summarize(options?: SummarizeOptions): AsyncIterable<AgentEvent>;
  /** What `summarize()` would do now, without a model call or any change. */
  previewSummary(options?: PreviewOptions): Promise<SummaryPreview>;
}
