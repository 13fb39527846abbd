import { ChatfoldError } from '../errors/chatfold-error.ts';
import {
  assertMessageInput,
  DEFAULT_MAX_MESSAGE_CHARS,
  markChecked,
  readMessageList,
  snapshotMessage,
} from './check-messages.ts';
import { contentHash } from './content-hash.ts';
import { nestingError } from './json-depth.ts';
import { isArray } from './snapshot.ts';
import { argumentsFault, invalidArgumentsError } from './tool-arguments.ts';
import type { Message, MessageInput, Part } from './types.ts';

export { DEFAULT_MAX_MESSAGE_CHARS };

/** Options shared by every converter and by {@link normalizeMessages}. */
export interface NormalizeOptions {
  /** Largest total text of one message, in UTF-16 code units. Default {@link DEFAULT_MAX_MESSAGE_CHARS}. */
  readonly maxMessageChars?: number;
  /**
   * What to do with lone UTF-16 surrogates (invalid Unicode that most providers reject):
   * `'replace'` (default) swaps each for U+FFFD, `'error'` throws `E_INVALID_TEXT`.
   */
  readonly loneSurrogates?: 'replace' | 'error';
  /** Clock for messages without a timestamp. Default `() => new Date()`. */
  readonly now?: () => Date;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Returns the text with lone surrogates handled per `options` (MSG-4). */
export function cleanText(text: string, where: string, options: NormalizeOptions = {}): string {
  if (typeof text !== 'string') {
    throw new ChatfoldError('E_INVALID_MESSAGE', `${where}: expected a string, received ${describe(text)}`, {
      where,
    });
  }
  if (!LONE_SURROGATE.test(text)) return text;
  if (options.loneSurrogates === 'error') {
    throw new ChatfoldError(
      'E_INVALID_TEXT',
      `${where}: text contains a lone UTF-16 surrogate (invalid Unicode); pass loneSurrogates: 'replace' to substitute U+FFFD`,
      { where },
    );
  }
  return text.toWellFormed();
}

/** A short description of a value's type for error messages (`null`, `array`, `number`…). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (isArray(value)) return 'array';
  return typeof value;
}

/**
 * Checks that tool-call arguments are JSON text nested at most `MAX_NESTING_DEPTH` levels;
 * throws `E_INVALID_TOOL_ARGUMENTS` or `E_NESTING_TOO_DEEP` otherwise.
 */
export function checkToolArguments(text: string, where: string): string {
  const fault = argumentsFault(text);
  if (fault === 'too-deep') throw nestingError(where);
  if (fault === 'not-json') throw invalidArgumentsError(text, where);
  return text;
}

/**
 * Deterministic id for a message without one: a hash of role, name, content and how many
 * identical messages came before it, so converting the same input twice gives the same ids.
 */
export function deriveMessageId(
  message: Pick<Message, 'role' | 'parts' | 'name'>,
  occurrence: number,
): string {
  const key = `${message.role}\u0000${message.name ?? ''}\u0000${JSON.stringify(message.parts)}\u0000${occurrence}`;
  return `msg_${contentHash(key)}`;
}

/**
 * Fills in ids and timestamps, checks shapes, roles and sizes, and cleans text (MSG-1, MSG-4).
 * Returns new objects; the input is not mutated. Converters call this on their output.
 *
 * @throws ChatfoldError `E_INVALID_MESSAGES`, `E_INVALID_MESSAGE` (the path says where),
 *   `E_UNKNOWN_ROLE`, `E_INVALID_TOOL_ARGUMENTS`, `E_NESTING_TOO_DEEP`, `E_MESSAGE_TOO_LARGE`,
 *   `E_INVALID_TEXT` (lone surrogates with `loneSurrogates: 'error'`).
 */
export function normalizeMessages(input: readonly MessageInput[], options: NormalizeOptions = {}): Message[] {
  // Read once (issue 24 §2): the list's length is bounded before a walk (a sparse array is
  // refused by its length), each entry is read once, and each message is copied once before
  // it is checked; everything below reads the copies only.
  return normalizeItems(readMessageList(input, 'normalizeMessages'), options, true);
}

/**
 * {@link normalizeMessages} for a converter's own output: messages it built from a snapshot of
 * the caller's input (plain data no caller holds), so they are checked and frozen without a
 * second copy.
 */
export function normalizeConverted(
  messages: readonly MessageInput[],
  options: NormalizeOptions = {},
): Message[] {
  return normalizeItems(messages, options, false);
}

/**
 * Where normalizing a converter's output resumes (issue 19 §2): the state a conversion of the
 * messages before `offset` left, so the messages after them get the ids, timestamps and error
 * paths a conversion of the whole list would give them. Updated as messages are normalized.
 */
export interface NormalizeProgress {
  /** Index in the caller's list of the first message normalized (errors name it). */
  readonly offset: number;
  /** How many messages with each derived base id came before (the occurrence of the next). */
  readonly seen: Map<string, number>;
  /**
   * The last timestamp a message before came with, which one without a timestamp takes;
   * `undefined` when none came with one (they take the clock's time, read once per call).
   */
  stamp: string | undefined;
  /** The timestamp each message normalized came with, `undefined` for one without; appended to. */
  readonly given: (string | undefined)[];
  /** The derived base id of each message normalized, `undefined` for one with its own id. */
  readonly bases: (string | undefined)[];
}

/**
 * {@link normalizeConverted} for the messages after `progress.offset` of a converter's output,
 * continuing from `progress` and updating it: the same messages a conversion of the whole list
 * gives at those indexes.
 */
export function normalizeConvertedFrom(
  messages: readonly MessageInput[],
  options: NormalizeOptions,
  progress: NormalizeProgress,
): Message[] {
  return normalizeItems(messages, options, false, progress);
}

function normalizeItems(
  items: readonly unknown[],
  options: NormalizeOptions,
  copy: boolean,
  progress: NormalizeProgress = { offset: 0, seen: new Map(), stamp: undefined, bases: [], given: [] },
): Message[] {
  const maxChars = options.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
  const now = options.now ?? (() => new Date());
  const { seen, bases, offset } = progress;
  let stamp = progress.stamp;
  const out: Message[] = [];
  for (let at = 0; at < items.length; at++) {
    const index = at + offset;
    const message = (
      copy ? snapshotMessage(items[at], index, 'normalizeMessages', true) : items[at]
    ) as MessageInput;
    assertMessageInput(message, index, 'normalizeMessages', maxChars);
    const where = `messages[${index}]`;
    const { role } = message;
    const parts = message.parts.map((part: Part, partIndex: number) =>
      cleanPart(part, `${where}.parts[${partIndex}]`, options),
    );
    let id = message.id;
    let base: string | undefined;
    if (id === undefined) {
      base = deriveMessageId(
        { role, parts, ...(message.name === undefined ? {} : { name: message.name }) },
        0,
      );
      const occurrence = seen.get(base) ?? 0;
      seen.set(base, occurrence + 1);
      id =
        occurrence === 0
          ? base
          : deriveMessageId(
              { role, parts, ...(message.name === undefined ? {} : { name: message.name }) },
              occurrence,
            );
    }
    stamp = message.createdAt ?? stamp ?? now().toISOString();
    const normalized: Message = { ...message, id, role, parts, createdAt: stamp };
    if (message.id === undefined) Object.defineProperty(normalized, DERIVED_ID, { value: true });
    // Checked above with this call's size limit, and frozen: accepted everywhere from now on,
    // whatever the size limit there. A converter's values were not frozen by a snapshot.
    if (copy) freezeMessage(normalized);
    else deepFreeze(normalized);
    markChecked(normalized);
    out.push(normalized);
    bases.push(base);
    progress.given.push(message.createdAt);
    if (message.createdAt !== undefined) progress.stamp = message.createdAt;
  }
  return out;
}

/** Freezes a value made of plain data, deeply (depth is bounded by the entry check). */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
}

/**
 * Freezes the layers `normalizeMessages` made (message, parts, tool-result content); the
 * values under them come from a frozen snapshot.
 */
function freezeMessage(message: Message): void {
  for (const part of message.parts) {
    if (part.type === 'tool-result') {
      for (const inner of part.content) Object.freeze(inner);
      Object.freeze(part.content);
    }
    Object.freeze(part);
  }
  Object.freeze(message.parts);
  Object.freeze(message);
}

/**
 * Marks a message whose id `normalizeMessages` derived: a non-enumerable property of the
 * object it made (a copy does not carry it), not a module table.
 */
const DERIVED_ID = Symbol('chatfold.derived-id');

/**
 * True when `message` (the very object `normalizeMessages` or a converter returned) got its id
 * from its content because the source had none. Such ids are the same for the same content, so
 * a session gives these messages ids of their own when they are appended: two identical
 * replies stay two messages.
 */
export function hasDerivedId(message: Message): boolean {
  return DERIVED_ID in message;
}

/** A caller's message read once (see {@link readMessageInputs}). */
export interface MessageInputRead {
  /** A plain frozen copy of the caller's message, not yet checked (`normalizeMessages` checks it). */
  readonly message: unknown;
  /** Whether the caller's object is one whose id `normalizeMessages` derived ({@link hasDerivedId}). */
  readonly derivedId: boolean;
}

/**
 * Reads a caller's list of messages once, for code that looks at them before
 * `normalizeMessages` does (a session giving messages ids of their own): the list's length is
 * bounded before a walk, each message is copied once, and the copies are what is used after.
 *
 * @throws ChatfoldError `E_INVALID_MESSAGES`, `E_MESSAGE_TOO_LARGE` (too many messages),
 *   `E_NESTING_TOO_DEEP`, `E_INVALID_MESSAGE` (a property could not be read).
 */
export function readMessageInputs(input: unknown, fn: string): MessageInputRead[] {
  return readMessageList(input, fn).map((item, index) => {
    let derivedId = false;
    try {
      derivedId = typeof item === 'object' && item !== null && DERIVED_ID in item;
    } catch {
      // A proxy whose `has` trap throws: its id is its own, as for any message without the mark.
    }
    return { derivedId, message: snapshotMessage(item, index, fn, true) };
  });
}

/** A part with its text cleaned (lone surrogates) and its tool arguments checked; shape already checked. */
function cleanPart(part: Part, where: string, options: NormalizeOptions): Part {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { ...part, text: cleanText(part.text, `${where}.text`, options) };
    case 'tool-call':
      return {
        ...part,
        name: cleanText(part.name, `${where}.name`, options),
        arguments: checkToolArguments(
          cleanText(part.arguments, `${where}.arguments`, options),
          `${where}.arguments`,
        ),
      };
    case 'tool-result':
      return {
        ...part,
        content: part.content.map((inner, i) =>
          inner.type === 'text'
            ? { ...inner, text: cleanText(inner.text, `${where}.content[${i}].text`, options) }
            : inner,
        ),
      };
    case 'attachment':
      return part;
  }
}
