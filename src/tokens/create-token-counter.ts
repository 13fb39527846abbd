import { ChatfoldError } from '../errors/chatfold-error.ts';
import {
  assertMessage,
  assertMessages,
  checkedNote,
  noteChecked,
  readMessageList,
} from '../messages/check-messages.ts';
import { contentHash } from '../messages/content-hash.ts';
import { createEngineCache } from '../messages/engine-cache.ts';
import { toToolDefinitions } from '../messages/tools/to-tool-definitions.ts';
import type { JsonValue, Message, ToolDefinition } from '../messages/types.ts';
import {
  ANTHROPIC_CHAT_FORMAT,
  type ChatFormat,
  type FunctionNamespaceFormat,
  GENERIC_CHAT_FORMAT,
  OPENAI_CHAT_FORMAT,
} from './chat-format.ts';
import { createCountCache } from './count-cache.ts';
import { TOKENS_AT_MOST } from './count-up-to.ts';
import { type EncodingName, loadEncoding, type TextEncoder } from './encodings.ts';
import { attachmentText, legacyFunctionName, messageKey, textKey } from './message-key.ts';
import { renderFunctionNamespace } from './openai-tool-prompt.ts';
import { createPrefixMemo, type ListCount } from './prefix-memo.ts';
import { checkToolChoice, toolChoiceTokens } from './tool-choice.ts';
import type { CountAccuracy, TokenCount, TokenCounter } from './types.ts';

/** Tokenizer ids chatfold understands (`ModelInfo.tokenizer`). */
export type TokenizerId =
  | 'openai:o200k_base'
  | 'openai:cl100k_base'
  | 'anthropic:claude'
  | 'google:gemini'
  | `estimate:${'o200k_base' | 'cl100k_base' | 'claude'}`
  | `chars/${number}`;

/** Default characters per token of the approximate counter (TOK-7). */
export const DEFAULT_CHARS_PER_TOKEN = 4;
/** Texts at least this long have their counts cached by content hash (summaries, file contents). */
const TEXT_CACHE_MIN_CHARS = 512;
/** Messages whose counts are kept by content hash (bounded, TOK-6). */
export const DEFAULT_CACHE_SIZE = 50_000;
/**
 * The most entries the default content cache grows to (issue 19 §3): it grows to fit the
 * longest list counted, so recounting that list rebuilt (equal content, new objects) hits
 * instead of evicting in scan order. About 120 bytes an entry, against kilobytes a message.
 */
export const MAX_CACHE_SIZE = 2_000_000;

/** Options of {@link createTokenCounter}. */
export interface TokenCounterOptions {
  readonly tokenizer: TokenizerId | string;
  /**
   * Entries of the content-hash cache, fixed. Default {@link DEFAULT_CACHE_SIZE}, growing to fit
   * the longest list counted (up to {@link MAX_CACHE_SIZE}).
   */
  readonly cacheSize?: number;
  /**
   * Bring your own tokenizer (TOK-3: e.g. a Hugging Face tokenizer of a local model): counts
   * the tokens of a text. With it, `tokenizer` is just the id and the chat format is generic
   * unless `format` says otherwise.
   */
  readonly encode?: TextEncoder;
  readonly format?: ChatFormat;
  readonly accuracy?: CountAccuracy;
}

interface Setup {
  readonly encode: TextEncoder;
  readonly format: ChatFormat;
  readonly accuracy: CountAccuracy;
  readonly tokenizer: string;
  /** Counting costs less than hashing the text (chars/N): content caches would only add work. */
  readonly isCheap?: boolean;
}

function setup(tokenizer: string): Setup {
  const exact = (name: EncodingName, format: ChatFormat, accuracy: CountAccuracy): Setup => ({
    encode: loadEncoding(name),
    format,
    accuracy,
    tokenizer,
  });
  switch (tokenizer) {
    case 'openai:o200k_base':
      return exact('o200k_base', OPENAI_CHAT_FORMAT, 'exact');
    case 'openai:cl100k_base':
      return exact('cl100k_base', OPENAI_CHAT_FORMAT, 'exact');
    case 'anthropic:claude':
      // ai-tokenizer's Claude encoding, measured at 97–99.8 % of the API's counts (TOK-4).
      return exact('claude', ANTHROPIC_CHAT_FORMAT, 'calibrated');
    case 'google:gemini':
      // No public Gemini tokenizer: o200k_base is within a few percent on mixed text (ai-tokenizer's table).
      return exact('o200k_base', { ...OPENAI_CHAT_FORMAT, countsReasoning: true }, 'calibrated');
  }
  const estimate = /^estimate:(o200k_base|cl100k_base|claude)$/.exec(tokenizer);
  if (estimate !== null) {
    // Another vendor's model counted with the encoding measured closest to its own (MOD-1).
    return exact(
      estimate[1] as EncodingName,
      estimate[1] === 'claude' ? ANTHROPIC_CHAT_FORMAT : GENERIC_CHAT_FORMAT,
      'calibrated',
    );
  }
  const chars = /^chars\/(\d+(?:\.\d+)?)$/.exec(tokenizer);
  if (chars !== null) {
    const perToken = Number(chars[1]);
    if (!(perToken > 0)) {
      throw new ChatfoldError(
        'E_TOKENIZER',
        `tokenizer ${tokenizer}: characters per token must be positive`,
        { tokenizer },
      );
    }
    return {
      encode: (text) => Math.ceil(text.length / perToken),
      format: GENERIC_CHAT_FORMAT,
      accuracy: 'approximate',
      tokenizer,
      isCheap: true,
    };
  }
  throw new ChatfoldError(
    'E_TOKENIZER',
    `unknown tokenizer ${JSON.stringify(tokenizer)}; expected openai:o200k_base, openai:cl100k_base, anthropic:claude, google:gemini or chars/N`,
    { tokenizer },
  );
}

export { attachmentText };

/**
 * Creates a token counter for a tokenizer id (TOK-1, TOK-2, TOK-7). Counts are cached per
 * message object and per content hash (TOK-6), so recounting a conversation after one new
 * message encodes only that message.
 *
 * @example
 * const counter = createTokenCounter({ tokenizer: 'openai:o200k_base' });
 * counter.count(messages).total;
 */
export function createTokenCounter({
  tokenizer,
  cacheSize: fixedSize,
  ...custom
}: TokenCounterOptions): TokenCounter {
  const cacheSize = fixedSize ?? DEFAULT_CACHE_SIZE;
  if (!Number.isSafeInteger(cacheSize) || cacheSize < 1) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `createTokenCounter: cacheSize must be a positive integer (entries of the content cache), received ${String(cacheSize)}; leave it out for the default ${DEFAULT_CACHE_SIZE}`,
      { option: 'cacheSize', received: String(cacheSize) },
    );
  }
  const { encode, format, accuracy, isCheap } =
    custom.encode === undefined
      ? setup(tokenizer)
      : {
          encode: custom.encode,
          format: custom.format ?? GENERIC_CHAT_FORMAT,
          accuracy: custom.accuracy ?? 'exact',
          isCheap: false,
        };
  // This counter's compactions share memo tables (issue 22 §3), never another counter's.
  const cache = createEngineCache();
  // Per message object (a session's messages come back every turn), then per content (the
  // same message rebuilt by a converter, as the stateless SDK middleware does each call). A
  // count is noted on the checked copy itself (issue 19 §3: a weak-map entry per message of a
  // rebuilt list cost more than its lookup); `byObject` holds the counts of copies another
  // counter noted first.
  const owner: object = Object.freeze({});
  const byObject = new WeakMap<Message, number>();
  const known = (message: Message): number | undefined =>
    checkedNote(message, owner) ?? byObject.get(message);
  const remember = (message: Message, tokens: number): void => {
    if (!noteChecked(message, owner, tokens)) byObject.set(message, tokens);
  };
  const byContent = createCountCache(cacheSize, { ceiling: fixedSize ?? MAX_CACHE_SIZE });
  const scale = (tokens: number): number =>
    format.contentMultiplier === 1 ? tokens : Math.ceil(tokens * format.contentMultiplier);

  const encodeMessage = (message: Message): number => {
    // A legacy `role: 'function'` message, as OpenAI counts it (published cases, TOK-2).
    const functionName = format.perFunctionMessage === undefined ? undefined : legacyFunctionName(message);
    let tokens = format.perMessage;
    if (functionName === undefined) tokens += encode(message.role);
    else
      tokens += encode('function') + format.perName + encode(functionName) + (format.perFunctionMessage ?? 0);
    if (message.name !== undefined) tokens += format.perName + encode(message.name);
    let content = 0;
    for (const part of message.parts) {
      switch (part.type) {
        case 'text':
          content += encode(part.text);
          break;
        case 'reasoning':
          if (format.countsReasoning)
            content += encode(part.text) + (part.redactedData === undefined ? 0 : encode(part.redactedData));
          break;
        case 'tool-call':
          content += format.perToolCall + encode(part.name) + encode(part.arguments);
          break;
        case 'tool-result':
          for (const inner of part.content)
            content += encode(inner.type === 'text' ? inner.text : attachmentText(inner));
          break;
        case 'attachment':
          content += encode(attachmentText(part));
          break;
      }
    }
    return tokens + scale(content);
  };

  // At least what encodeMessage gives: a token is at least one UTF-8 byte (TOK-2's bytes;
  // issue 19 §3: stages skip counting messages that surely fit).
  const atMostMessage = (message: Message): number => {
    // A message counted before: its count is the tightest bound, and costs one lookup.
    const counted = known(message);
    if (counted !== undefined) return counted;
    let tokens =
      format.perMessage +
      2 * Math.abs(format.perName) +
      Math.abs(format.perFunctionMessage ?? 0) +
      utf8Length(message.role) +
      'function'.length +
      utf8Length(message.name ?? '');
    let content = 0;
    for (const part of message.parts) {
      switch (part.type) {
        case 'text':
          content += utf8Length(part.text);
          break;
        case 'reasoning':
          content += utf8Length(part.text) + utf8Length(part.redactedData ?? '');
          break;
        case 'tool-call':
          content += Math.abs(format.perToolCall) + utf8Length(part.name) + utf8Length(part.arguments);
          break;
        case 'tool-result':
          tokens += utf8Length(part.toolName ?? '');
          for (const inner of part.content)
            content += utf8Length(inner.type === 'text' ? inner.text : attachmentText(inner));
          break;
        case 'attachment':
          content += utf8Length(attachmentText(part));
          break;
      }
    }
    return tokens + scale(content);
  };

  // `previous`: the last list's message at this place (a rebuilt list's equal message comes
  // back from the entry check as that message's checked copy, whose count is noted on it).
  const countMessage = (message: Message, fn = 'countMessage', previous?: Message): number => {
    const options = previous === undefined ? { cache } : { cache, previous };
    // A few string lengths cost less than any cache lookup (the entry check remembers).
    if (isCheap) return encodeMessage(assertMessage(message, undefined, fn, options));
    const counted = known(message);
    if (counted !== undefined) return counted;
    // Entry check (MSG-4) on first sight: a message counted once is known well-formed (and
    // a compaction with this counter's cache knows it too).
    // The checked copy is what is read (issue 24 §2): a proxy cannot answer the check one way
    // and the count another.
    const checked = assertMessage(message, undefined, fn, options);
    // A caller's object seen before is found through the entry check's cache: its checked copy.
    const copied = checked === message ? undefined : known(checked);
    if (copied !== undefined) return copied;
    const tokens = byContent.remember(messageKey(checked, format.countsReasoning === true), () =>
      encodeMessage(checked),
    );
    // Kept by the checked copy, which the engine works on from here (compaction, the next
    // count), not by the caller's object as well (issue 19 §3).
    remember(checked, tokens);
    return tokens;
  };
  // Recounting a list that extends the last one counted reads only the new messages (TOK-6).
  const countList = createPrefixMemo((message, previous) => countMessage(message, 'count', previous));

  // Tool definitions are sent with every call: their count is cached by content (TOK-6), so a
  // session's prepare() or the SDK middleware does not re-tokenize the same schemas each turn.
  const countTools = (tools: readonly ToolDefinition[]): number => {
    if (tools.length === 0) return 0;
    return byContent.remember(`tools\u0000${contentHash(JSON.stringify(tools))}`, () => encodeTools(tools));
  };

  const encodeTools = (tools: readonly ToolDefinition[]): number => {
    const t = format.tools;
    if (t.functionNamespace !== undefined)
      return encode(renderFunctionNamespace(tools)) + t.functionNamespace.perRequest;
    let total = t.toolsExist;
    for (const tool of tools) {
      total += t.perTool + encode(tool.name);
      if (tool.description !== undefined) total += t.perDescription + encode(tool.description);
      total += countSchemaProperties(tool.parameters, t, encode);
    }
    return scale(total);
  };

  // The definitions join the first system message, which then ends with a newline (TOK-2,
  // published cases): its count changes by the newline's tokens and the format's constant.
  const paddedSystem = new WeakMap<Message, number>();
  const systemMessageChange = (messages: readonly Message[], namespace: FunctionNamespaceFormat): number => {
    const system = messages.find((message) => message.role === 'system');
    if (system === undefined) return 0;
    let padding = paddedSystem.get(system);
    if (padding === undefined) {
      const last = system.parts.findLast((part) => part.type === 'text');
      // As gpt-tokenizer's port: no newline for an empty text or one that ends with one.
      padding =
        last === undefined || last.text === '' || last.text.endsWith('\n')
          ? 0
          : encode(`${last.text}\n`) - encode(last.text);
      paddedSystem.set(system, padding);
    }
    return namespace.withSystemMessage + padding;
  };

  return {
    tokenizer,
    accuracy,
    cache,
    // Byte-pair encodings only: a custom `encode` may count more tokens than bytes.
    ...(custom.encode === undefined && isCheap !== true ? { [TOKENS_AT_MOST]: atMostMessage } : {}),
    countText: (text) => {
      if (isCheap || text.length < TEXT_CACHE_MIN_CHARS) return scale(encode(text));
      return byContent.remember(textKey(text), () => scale(encode(text)));
    },
    countMessage: (message) => countMessage(message),
    count(input, options = {}): TokenCount {
      // The list read once, its length bounded before the walk (issue 24 §2, §3): a proxy's
      // length cannot change between reads, a sparse array of length 1e9 is refused.
      const messages = readMessageList(input, 'count') as readonly Message[];
      let counted: ListCount;
      // Room for every message of the list (and a quarter more for texts and tools), so a
      // recount of the same content is answered from the cache (issue 19 §3).
      if (!isCheap) byContent.reserve(messages.length + (messages.length >> 2));
      try {
        counted = countList(messages);
      } catch (error) {
        // A malformed message: name it by its index (the check of the whole list throws).
        if (ChatfoldError.isInstance(error) && error.details.function === 'count')
          assertMessages(messages, 'count');
        throw error;
      }
      // Checked at the boundary: a wrong shape is E_INVALID_TOOLS, not a TypeError in here.
      const definitions = options.tools === undefined ? [] : toToolDefinitions(options.tools);
      const choice = checkToolChoice(options, definitions, 'count');
      let tools = countTools(definitions);
      const namespace = format.tools.functionNamespace;
      if (namespace !== undefined && definitions.length > 0) {
        tools += systemMessageChange(messages, namespace) + toolChoiceTokens(choice, namespace, encode);
      }
      let perMessage: number[] | undefined;
      return {
        total: format.perPrompt + tools + counted.sum,
        // Made on first read (an enumerable getter: spread and JSON see a plain array).
        get perMessage() {
          perMessage ??= counted.perMessage();
          return perMessage;
        },
        tools,
        overhead: format.perPrompt,
        tokenizer,
        accuracy,
      };
    },
  };
}

/** Tokens of a JSON-schema `properties` block under the measured tool formula. */
function countSchemaProperties(
  schema: { readonly [key: string]: JsonValue },
  t: ChatFormat['tools'],
  encode: TextEncoder,
): number {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return 0;
  let total = 0;
  Object.entries(properties).forEach(([name, value], index) => {
    total += (index === 0 ? t.perFirstProperty : t.perAdditionalProperty) + encode(name);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    if (typeof value.type === 'string') total += encode(value.type);
    if (typeof value.description === 'string') total += t.perPropertyDescription + encode(value.description);
    if (Array.isArray(value.enum)) {
      total += t.perEnum;
      for (const item of value.enum) total += encode(String(item));
    }
    if (value.type === 'object') total += countSchemaProperties(value, t, encode);
  });
  return total;
}

/** Bytes of `text` in UTF-8 (a lone surrogate as the three bytes of U+FFFD, as encoders write it). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else {
      // Three bytes, or a surrogate pair's four for its two units.
      bytes += 2;
      const next = text.charCodeAt(i + 1);
      if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return bytes;
}
