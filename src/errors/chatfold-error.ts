const marker = Symbol.for('chatfold.error');

/**
 * Stable error codes. Callers branch on these, never on message text.
 * Every code is documented in the README ("Errors").
 */
export type ChatfoldErrorCode =
  | 'E_INVALID_MESSAGES'
  | 'E_INVALID_MESSAGE'
  | 'E_UNKNOWN_ROLE'
  | 'E_INVALID_TOOL_ARGUMENTS'
  | 'E_INVALID_TOOLS'
  | 'E_INVALID_TEXT'
  | 'E_MESSAGE_TOO_LARGE'
  | 'E_NESTING_TOO_DEEP'
  | 'E_INVALID_FORMAT'
  | 'E_FILE'
  | 'E_UNKNOWN_MODEL'
  | 'E_TOKENIZER'
  | 'E_BUDGET_IMPOSSIBLE'
  | 'E_SUMMARY_FAILED'
  | 'E_INVALID_OPTIONS'
  | 'E_UNKNOWN_STRATEGY'
  | 'E_MISSING_DEPENDENCY'
  | 'E_STORE'
  | 'E_INVALID_SESSION_ID'
  | 'E_STORE_CONFLICT'
  | 'E_STORE_SCHEMA'
  | 'E_CONTEXT_OVERFLOW'
  | 'E_PROVIDER'
  | 'E_AGENT_FILE'
  | 'E_WORKSPACE_PATH'
  | 'E_MISSING_API_KEY'
  | 'E_QUEUE'
  | 'E_UNSUPPORTED_VERSION'
  | 'E_INVALID_PLAN'
  | 'E_BUSY';

type Open = Readonly<Record<string, unknown>>;

/**
 * The `details` of each code (the data apart from the wording). Fields a code always or often
 * carries are typed; every code may carry more. `ChatfoldError.hasCode(e, 'E_CONTEXT_OVERFLOW')`
 * narrows `e.details` to its entry, so `e.details.limit` type-checks.
 */
export interface ChatfoldErrorDetailsMap {
  /** Structural problems (MSG-3), each with index, id and kind. */
  readonly E_INVALID_MESSAGES: Open & { readonly problems?: readonly unknown[] | undefined };
  /** One bad message or field: where it is (`messages[3].parts[0].text`). */
  readonly E_INVALID_MESSAGE: Open & {
    readonly where?: string | undefined;
    readonly index?: number | undefined;
  };
  readonly E_UNKNOWN_ROLE: Open & { readonly where?: string | undefined; readonly role?: unknown };
  readonly E_INVALID_TOOL_ARGUMENTS: Open & { readonly where?: string | undefined };
  /** A tool definition of no shape chatfold reads: where (`tools[2].function.parameters`), which entry, what was expected. */
  readonly E_INVALID_TOOLS: Open & {
    readonly where?: string | undefined;
    readonly index?: number | string | undefined;
    readonly expected?: string | undefined;
  };
  readonly E_INVALID_TEXT: Open & { readonly where?: string | undefined };
  readonly E_MESSAGE_TOO_LARGE: Open & {
    readonly where?: string | undefined;
    readonly limit?: number | undefined;
    readonly actual?: number | undefined;
  };
  readonly E_NESTING_TOO_DEEP: Open & {
    readonly where?: string | undefined;
    readonly limit?: number | undefined;
  };
  readonly E_INVALID_FORMAT: Open & { readonly line?: number | undefined };
  readonly E_FILE: Open & { readonly path?: string | undefined };
  readonly E_UNKNOWN_MODEL: Open & { readonly model?: string | undefined };
  readonly E_TOKENIZER: Open & { readonly tokenizer?: string | undefined };
  /** The protected minimum does not fit: the budget and what is left, by cause. */
  readonly E_BUDGET_IMPOSSIBLE: Open & {
    readonly budget?: number | undefined;
    readonly actual?: number | undefined;
    readonly systemPrompt?: number | undefined;
    readonly latestTurn?: number | undefined;
    readonly toolTokens?: number | undefined;
  };
  /** A manual compaction whose summarizer failed, under a policy that makes that an error (nothing changed). */
  readonly E_SUMMARY_FAILED: Open & { readonly reason?: string | undefined };
  /** A bad option: which one, given to which function. */
  readonly E_INVALID_OPTIONS: Open & {
    readonly option?: string | undefined;
    readonly where?: string | undefined;
  };
  readonly E_UNKNOWN_STRATEGY: Open & {
    readonly strategy?: string | undefined;
    readonly known?: readonly string[] | undefined;
  };
  readonly E_MISSING_DEPENDENCY: Open & { readonly dependency?: string | undefined };
  readonly E_STORE: Open & { readonly store?: string | undefined };
  readonly E_INVALID_SESSION_ID: Open & {
    readonly sessionId?: unknown;
    readonly reason?: string | undefined;
  };
  readonly E_STORE_CONFLICT: Open & {
    readonly sessionId?: string | undefined;
    readonly messageId?: string | undefined;
  };
  readonly E_STORE_SCHEMA: Open & { readonly version?: number | undefined };
  /** The provider rejected the prompt as too long even after compacting against its limit. */
  readonly E_CONTEXT_OVERFLOW: Open & {
    readonly provider?: string | undefined;
    readonly limit?: number | undefined;
    readonly actual?: number | undefined;
  };
  readonly E_PROVIDER: Open & {
    readonly provider?: string | undefined;
    readonly status?: number | undefined;
  };
  /** A bad agent file: where, which key, what was expected and found. */
  readonly E_AGENT_FILE: Open & {
    readonly file?: string | undefined;
    readonly line?: number | undefined;
    readonly column?: number | undefined;
    readonly key?: string | undefined;
  };
  readonly E_WORKSPACE_PATH: Open & { readonly path?: unknown };
  readonly E_MISSING_API_KEY: Open & {
    readonly provider?: string | undefined;
    readonly variable?: string | undefined;
  };
  /** The background compaction queue (issue 13): closed, a job expired, the queue's database failed. */
  readonly E_QUEUE: Open & { readonly queue?: string | undefined; readonly sessionId?: string | undefined };
  /** A persisted record (snapshot, session state, pending plan, `metadata.chatfold`) written by a newer chatfold. */
  readonly E_UNSUPPORTED_VERSION: Open & {
    readonly record?: string | undefined;
    readonly version?: number | undefined;
    readonly supported?: number | undefined;
  };
  /** A compaction plan that is not one (`applyCompactionPlan`): which field, what was expected. */
  readonly E_INVALID_PLAN: Open & { readonly where?: string | undefined };
  /**
   * Another process is running a turn or a summary in the session (its turn lease): which
   * session, who holds it (`chatfold serve, pid 4242 on this machine`) and until when it holds
   * it unless renewed (milliseconds since 1970).
   */
  readonly E_BUSY: Open & {
    readonly sessionId?: string | undefined;
    readonly holder?: string | undefined;
    readonly expiresAt?: number | undefined;
  };
}

/** Structured data that explains an error of code `C`. */
export type ChatfoldErrorDetails<C extends ChatfoldErrorCode = ChatfoldErrorCode> =
  ChatfoldErrorDetailsMap[C];

/**
 * The one error type chatfold throws. `code` is stable across versions; `details` holds the
 * data (index, id, budget, actual, …) apart from the human wording in `message`.
 *
 * Use `ChatfoldError.isInstance(e)` rather than `instanceof`: it also works when two copies
 * of chatfold are installed side by side.
 */
export class ChatfoldError<C extends ChatfoldErrorCode = ChatfoldErrorCode> extends Error {
  readonly [marker] = true;
  override readonly name: string = 'ChatfoldError';
  readonly code: C;
  readonly details: ChatfoldErrorDetails<C>;

  constructor(
    code: C,
    message: string,
    details: ChatfoldErrorDetails<C> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.details = details;
  }

  /** True for any chatfold error, whichever copy of the package created it. */
  static isInstance(error: unknown): error is ChatfoldError {
    return typeof error === 'object' && error !== null && marker in error;
  }

  /** True for a chatfold error with the given code. */
  static hasCode<K extends ChatfoldErrorCode>(error: unknown, code: K): error is ChatfoldError<K> {
    return ChatfoldError.isInstance(error) && error.code === code;
  }
}
