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
  | 'E_INVALID_TEXT'
  | 'E_MESSAGE_TOO_LARGE'
  | 'E_NESTING_TOO_DEEP'
  | 'E_INVALID_FORMAT'
  | 'E_FILE'
  | 'E_UNKNOWN_MODEL'
  | 'E_TOKENIZER'
  | 'E_BUDGET_IMPOSSIBLE'
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
  | 'E_MISSING_API_KEY';

/** Structured data that explains an error; keys depend on the code. */
export type ChatfoldErrorDetails = Readonly<Record<string, unknown>>;

/**
 * The one error type chatfold throws. `code` is stable across versions; `details` holds the
 * data (index, id, budget, actual, …) apart from the human wording in `message`.
 *
 * Use `ChatfoldError.isInstance(e)` rather than `instanceof`: it also works when two copies
 * of chatfold are installed side by side.
 */
export class ChatfoldError extends Error {
  readonly [marker] = true;
  override readonly name: string = 'ChatfoldError';
  readonly code: ChatfoldErrorCode;
  readonly details: ChatfoldErrorDetails;

  constructor(
    code: ChatfoldErrorCode,
    message: string,
    details: ChatfoldErrorDetails = {},
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
  static hasCode(error: unknown, code: ChatfoldErrorCode): error is ChatfoldError {
    return ChatfoldError.isInstance(error) && error.code === code;
  }
}
