/**
 * The options of `trimToTokens`: LangChain.js `trimMessages` names and defaults (STR-9), read
 * and checked once at the boundary.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { describe } from '../messages/normalize.ts';
import type { Message, Role } from '../messages/types.ts';
import type { TokenCounter } from '../tokens/types.ts';

/** A message type as LangChain names it (`'human'`, `'ai'`) or as chatfold does (`'user'`, `'assistant'`). */
export type TrimMessageType = Role | 'human' | 'ai';

/** A LangChain.js message class (`HumanMessage`, `AIMessage`, …), recognised by its static `lc_name()`. */
export interface LangChainMessageClass {
  lc_name(): string;
}

/** What `startOn` and `endOn` accept: one type or class, or a list of them. */
export type TrimMessageTypes =
  | TrimMessageType
  | LangChainMessageClass
  | readonly (TrimMessageType | LangChainMessageClass)[];

/** Counts a list of messages (LangChain's function-style `tokenCounter`, over neutral messages). */
export type MessagesTokenCounter<Count = number> = (messages: Message[]) => Count;

/** Splits text into pieces that concatenate back to it (LangChain's `textSplitter`). */
export type TextSplitter<Split = string[]> = ((text: string) => Split) | { splitText(text: string): Split };

/**
 * Options of {@link trimToTokens}: LangChain.js `trimMessages` names, defaults and semantics.
 * `Count` and `Split` are `number` and `string[]` for synchronous callbacks; with asynchronous
 * ones `trimToTokens` may return a promise.
 */
export interface TrimOptions<Count = number, Split = string[]> {
  /** Tokens the kept messages may use. 0 and up; `Infinity` keeps everything. */
  readonly maxTokens: number;
  /**
   * A chatfold {@link TokenCounter} (fast: summed per message with its cache, STR-9) or a
   * function over a list of messages, called with the candidate list in conversation order.
   * Functions are searched by doubling then halving, which assumes adding a message never
   * lowers the count (true of every real counter).
   */
  readonly tokenCounter?: TokenCounter | MessagesTokenCounter<Count>;
  /** chatfold's name for a {@link TokenCounter} `tokenCounter`; pass one of the two. */
  readonly counter?: TokenCounter;
  /** `'last'` (default) keeps the newest messages, `'first'` the oldest. */
  readonly strategy?: 'last' | 'first';
  /**
   * Keep part of the message at the cut (default false): its leading parts (content blocks), as
   * many as fit, or else the pieces of its first text that fit (the newest pieces under `'last'`,
   * the first under `'first'`, as `textSplitter` cuts them). Never a message of a tool group.
   */
  readonly allowPartial?: boolean;
  /**
   * `'last'` only: drop the oldest kept messages until one of these types (after the cut).
   * A system message kept by `includeSystem` must match too, or the result is empty (as in
   * LangChain.js). E.g. `'human'` so the history starts on a user turn, as Anthropic needs.
   */
  readonly startOn?: TrimMessageTypes;
  /**
   * Drop messages after the last one of these types: before the cut under `'last'`, after it
   * under `'first'`. A tool group counts as its last message.
   */
  readonly endOn?: TrimMessageTypes;
  /** `'last'` only: keep the system message at index 0 and trim the rest (default false). */
  readonly includeSystem?: boolean;
  /** Splits a text for `allowPartial`. Default: after each newline (LangChain's default). */
  readonly textSplitter?: TextSplitter<Split>;
}

const LANGCHAIN_TYPES: Readonly<Record<string, Role>> = {
  system: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  tool: 'tool',
  SystemMessage: 'system',
  HumanMessage: 'user',
  AIMessage: 'assistant',
  ToolMessage: 'tool',
};

export const invalid = (option: string, message: string): ChatfoldError =>
  new ChatfoldError('E_INVALID_OPTIONS', `trimToTokens: ${message}`, { option });

function roleSet(
  option: 'startOn' | 'endOn',
  value: TrimMessageTypes | undefined,
): ReadonlySet<Role> | undefined {
  if (value === undefined) return undefined;
  const list = (Array.isArray(value) ? value : [value]) as readonly unknown[];
  const roles = new Set<Role>();
  for (const item of list) {
    const name =
      typeof item === 'function' && typeof (item as Partial<LangChainMessageClass>).lc_name === 'function'
        ? String((item as unknown as LangChainMessageClass).lc_name()).replace(/Chunk$/, '')
        : item;
    const role =
      typeof name === 'string' && Object.hasOwn(LANGCHAIN_TYPES, name) ? LANGCHAIN_TYPES[name] : undefined;
    if (role === undefined) {
      throw invalid(
        option,
        `${option}: expected 'system', 'human' ('user'), 'ai' ('assistant'), 'tool', a LangChain message class or a list of them, received ${typeof name === 'string' ? JSON.stringify(name) : describe(name)}; omit ${option} to accept any message`,
      );
    }
    roles.add(role);
  }
  return roles;
}

const isTokenCounter = (value: unknown): value is TokenCounter =>
  typeof value === 'object' && value !== null && typeof (value as TokenCounter).countMessage === 'function';

/** Splits after each newline, keeping it: LangChain's default text splitter. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  return lines.map((line, i) => (i < lines.length - 1 ? `${line}\n` : line));
}

/** The options, checked, with their defaults applied. */
export interface Settings {
  readonly maxTokens: number;
  readonly strategy: 'last' | 'first';
  readonly allowPartial: boolean;
  readonly startOn: ReadonlySet<Role> | undefined;
  readonly endOn: ReadonlySet<Role> | undefined;
  readonly includeSystem: boolean;
  /** Set when counting with a {@link TokenCounter}; function counters go through requests. */
  readonly counter: TokenCounter | undefined;
}

/** Checks `options` and applies the defaults; throws `E_INVALID_OPTIONS` naming the option. */
export function readTrimOptions(options: TrimOptions<unknown, unknown>): {
  settings: Settings;
  countList: MessagesTokenCounter<unknown> | undefined;
  split: (text: string) => unknown;
} {
  if (typeof options !== 'object' || options === null) {
    throw invalid('options', `options must be an object, received ${describe(options)}`);
  }
  const {
    maxTokens,
    tokenCounter,
    counter,
    strategy = 'last',
    allowPartial = false,
    startOn,
    endOn,
    includeSystem = false,
    textSplitter,
  } = options;
  if (typeof maxTokens !== 'number' || !(maxTokens >= 0)) {
    throw invalid('maxTokens', `maxTokens: expected a number ≥ 0, received ${String(maxTokens)}`);
  }
  if (tokenCounter !== undefined && counter !== undefined) {
    throw invalid('tokenCounter', 'pass tokenCounter or counter, not both (counter is the same option)');
  }
  const chosen: unknown = tokenCounter ?? counter;
  if (!isTokenCounter(chosen) && typeof chosen !== 'function') {
    throw invalid(
      'tokenCounter',
      `tokenCounter: expected a function (messages) => number or a chatfold TokenCounter (e.g. createTokenCounter({ model })), received ${describe(chosen)}`,
    );
  }
  if (strategy !== 'last' && strategy !== 'first') {
    throw invalid('strategy', `strategy: expected 'last' or 'first', received ${JSON.stringify(strategy)}`);
  }
  // As in LangChain.js: these two only make sense when keeping the newest messages.
  if (strategy === 'first' && startOn !== undefined) {
    throw invalid('startOn', "startOn applies to strategy 'last' only; with 'first' use endOn");
  }
  if (strategy === 'first' && includeSystem) {
    throw invalid(
      'includeSystem',
      "includeSystem applies to strategy 'last' only; 'first' keeps the system message when it fits",
    );
  }
  if ('keepSystem' in options) {
    throw invalid('keepSystem', 'keepSystem was renamed includeSystem (default false, as in LangChain.js)');
  }
  let split: (text: string) => unknown = splitLines;
  if (typeof textSplitter === 'function') split = textSplitter;
  else if (
    typeof textSplitter === 'object' &&
    textSplitter !== null &&
    typeof textSplitter.splitText === 'function'
  ) {
    split = (text) => textSplitter.splitText(text);
  } else if (textSplitter !== undefined) {
    throw invalid(
      'textSplitter',
      `textSplitter: expected a function or an object with splitText(), received ${describe(textSplitter)}`,
    );
  }
  return {
    settings: {
      maxTokens,
      strategy,
      allowPartial: allowPartial === true,
      startOn: roleSet('startOn', startOn),
      endOn: roleSet('endOn', endOn),
      includeSystem: includeSystem === true,
      counter: isTokenCounter(chosen) ? chosen : undefined,
    },
    countList: typeof chosen === 'function' ? (chosen as MessagesTokenCounter<unknown>) : undefined,
    split,
  };
}
