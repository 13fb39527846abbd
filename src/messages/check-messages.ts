/**
 * The entry check for neutral messages (MSG-4): every public function that takes `Message`s
 * calls {@link assertMessages} (or {@link assertMessage} per message) first, so malformed input
 * — `null` messages or parts, wrong types, unknown roles, metadata that is not JSON, nesting
 * deeper than {@link MAX_NESTING_DEPTH}, a message over {@link DEFAULT_MAX_MESSAGE_CHARS} —
 * becomes one `ChatfoldError` naming the path (`messages[3].parts[0].text: expected string,
 * received number`) instead of a `TypeError` deep inside.
 *
 * The rules are {@link messageSchema}'s. The check itself is a hand-written pass that
 * allocates nothing (zod would cost 4–16 µs a message on every call); given an
 * {@link EngineCache}, a message object that passed once is remembered there with its size
 * (messages are immutable: their types are `readonly`, and token counts are cached by object
 * the same way), so a warm call with the same cache costs one `WeakMap` lookup per message.
 * The schema words the error when a message fails.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { cacheOption, cacheTable, type EngineCache } from './engine-cache.ts';
import { isPlainObject, MAX_NESTING_DEPTH, nestingError } from './json-depth.ts';
import { messageInputSchema, messageSchema } from './message-schema.ts';
import { parseProviderInput } from './provider-input.ts';
import { type Message, ROLES } from './types.ts';

/** Largest message chatfold accepts by default, in UTF-16 code units of its text (MSG-4). */
export const DEFAULT_MAX_MESSAGE_CHARS = 16 * 1024 * 1024;

/** Options of {@link assertMessages}. */
export interface AssertMessagesOptions {
  /** Largest total text of one message. Default {@link DEFAULT_MAX_MESSAGE_CHARS}. */
  readonly maxMessageChars?: number;
  /** Remember the messages that passed here, and skip those it remembers. */
  readonly cache?: EngineCache | undefined;
}

/**
 * Message objects that passed the check, with their size, so a warm call still applies its
 * size limit.
 */
const CHECKED = cacheTable('messages.checked', () => new WeakMap<object, number>());

/**
 * Marks `normalizeMessages` output: checked there, against the caller's own size limit, and
 * accepted everywhere from then on. A non-enumerable property of the object chatfold made
 * (copies do not carry it), not a table.
 */
const NORMALIZED = Symbol('chatfold.normalized');

/**
 * Checks that `value` is an array of well-formed neutral messages and returns it unchanged
 * (MSG-4). Shape only: structural rules (tool-call pairing, role order, duplicate ids, JSON
 * tool arguments) are `validate`'s. O(n) on first sight of each message object, one
 * `WeakMap` lookup per message after that.
 *
 * @param value What the caller passed as messages.
 * @param fn The public function being called, named in the error (`'countTokens'`).
 * @param options The size limit (default {@link DEFAULT_MAX_MESSAGE_CHARS}).
 * @returns `value`, typed.
 * @throws ChatfoldError `E_INVALID_MESSAGES` (not an array), `E_INVALID_MESSAGE` (wrong shape,
 *   `details.where` is the path), `E_UNKNOWN_ROLE`, `E_NESTING_TOO_DEEP`, `E_MESSAGE_TOO_LARGE`.
 *
 * @example
 * export function planSomething(messages: readonly Message[]) {
 *   assertMessages(messages, 'planSomething');
 *   // from here on the types hold
 * }
 */
export function assertMessages(
  value: unknown,
  fn: string,
  options: AssertMessagesOptions = {},
): readonly Message[] {
  if (!Array.isArray(value)) {
    throw new ChatfoldError(
      'E_INVALID_MESSAGES',
      `${fn}: expected an array of messages, received ${received(value)}`,
      { function: fn },
    );
  }
  const limit = options.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
  const checked = cacheOption(options.cache, fn)?.table(CHECKED);
  for (let index = 0; index < value.length; index++) checkOne(value[index], index, fn, limit, checked);
  return value as readonly Message[];
}

/**
 * Checks one message, for functions that visit only some messages of a list (`trimToTokens`
 * walks back from the end) or take a single one (`TokenCounter.countMessage`).
 *
 * @param value The message.
 * @param index Its index in the caller's list, for the error path; omit for a lone message.
 * @param fn The public function being called.
 * @param options The cache that remembers checked messages.
 * @throws ChatfoldError As {@link assertMessages}.
 */
export function assertMessage(
  value: unknown,
  index: number | undefined,
  fn: string,
  options: Pick<AssertMessagesOptions, 'cache'> = {},
): Message {
  checkOne(value, index, fn, DEFAULT_MAX_MESSAGE_CHARS, options.cache?.table(CHECKED));
  return value as Message;
}

/**
 * Checks a `MessageInput` (id and timestamp may be missing), as `normalizeMessages` does
 * before it fills them in. Not remembered: the input objects are copied.
 */
export function assertMessageInput(value: unknown, index: number, fn: string, maxMessageChars: number): void {
  checkOne(value, index, fn, maxMessageChars, undefined, true);
}

/** Marks a message as checked (`normalizeMessages` output: already checked, whatever its limit). */
export function markChecked(message: Message): void {
  Object.defineProperty(message, NORMALIZED, { value: true });
}

/** Whether `value` is `normalizeMessages` output (checked there). */
const isNormalized = (value: object): boolean => NORMALIZED in value;

function checkOne(
  value: unknown,
  index: number | undefined,
  fn: string,
  limit: number,
  checked: WeakMap<object, number> | undefined,
  input = false,
): void {
  const known =
    input || typeof value !== 'object' || value === null
      ? undefined
      : (checked?.get(value) ?? (isNormalized(value) ? 0 : undefined));
  const result = known ?? messageFault(value, input);
  if (typeof result === 'number') {
    if (result > limit) {
      const where = index === undefined ? 'message' : `messages[${index}]`;
      throw new ChatfoldError(
        'E_MESSAGE_TOO_LARGE',
        `${fn}: ${where}: message has ${result} characters, more than the limit of ${limit}; clip the content before adding it${input ? ' or raise maxMessageChars' : ''}`,
        { function: fn, ...(index === undefined ? {} : { index }), actual: result, limit },
      );
    }
    if (!input && known === undefined) checked?.set(value as object, result);
    return;
  }
  throw describeFault(value, index, fn, input, result);
}

/** Where a message fails the hand-written check (`''` for the message itself), and whether for depth. */
interface Fault {
  readonly path: string;
  readonly deep: boolean;
}

/** The error for a message the fast check refused; zod words shape errors. */
function describeFault(
  value: unknown,
  index: number | undefined,
  fn: string,
  input: boolean,
  fault: Fault,
): ChatfoldError {
  const root = index === undefined ? 'message' : `messages[${index}]`;
  if (fault.deep) return nestingError(`${root}${fault.path}`, fn);
  // The check stopped at the first fault; zod reads the whole message, after
  // parseProviderInput has bounded its depth (something deeper still is reported as such).
  try {
    parseProviderInput(input ? messageInputSchema : messageSchema, value, {
      root,
      partNoun: 'part type',
      roles: ROLES,
    });
  } catch (error) {
    if (ChatfoldError.isInstance(error)) {
      return new ChatfoldError(
        error.code,
        `${fn}: ${error.message}`,
        { ...error.details, function: fn, ...(index === undefined ? {} : { index }) },
        { cause: error },
      );
    }
    throw error;
  }
  // The schema accepted what the fast check refused (a bug): report the fast check's finding.
  return new ChatfoldError('E_INVALID_MESSAGE', `${fn}: ${root}${fault.path}: not a valid message`, {
    function: fn,
    where: `${root}${fault.path}`,
    ...(index === undefined ? {} : { index }),
  });
}

function received(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

// ---- The hand-written check: mirrors message-schema.ts; a property test keeps them agreed. ----

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';
const isOptionalNumber = (value: unknown): boolean =>
  value === undefined || (typeof value === 'number' && Number.isFinite(value));
const isOptionalBoolean = (value: unknown): boolean => value === undefined || typeof value === 'boolean';

/**
 * Undefined when `value` is JSON (undefined allowed as an object value) nested at most
 * {@link MAX_NESTING_DEPTH} levels counting `value` as level `depth`; otherwise the fault with
 * its path. Recursion is bounded by the depth limit.
 */
function jsonFault(value: unknown, depth: number): Fault | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : SHAPE;
    case 'object': {
      if (value === null) return undefined;
      if (depth > MAX_NESTING_DEPTH) return DEEP;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          const fault = item === undefined ? SHAPE : jsonFault(item, depth + 1);
          if (fault !== undefined) return under(`[${i}]`, fault);
        }
        return undefined;
      }
      if (!isPlainObject(value)) return SHAPE;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const item = value[key];
        if (item === undefined) continue;
        const fault = jsonFault(item, depth + 1);
        if (fault !== undefined) return under(`.${key}`, fault);
      }
      return undefined;
    }
    default:
      return SHAPE;
  }
}

const SHAPE: Fault = { path: '', deep: false };
const DEEP: Fault = { path: '', deep: true };
const under = (key: string, fault: Fault): Fault => ({ path: `${key}${fault.path}`, deep: fault.deep });
const at = (key: string, fault: Fault | undefined): Fault | undefined =>
  fault === undefined ? undefined : under(key, fault);

/** `undefined` or a JSON object (a record) whose own level is `depth`. */
function recordFault(value: unknown, depth: number): Fault | undefined {
  if (value === undefined) return undefined;
  return isPlainObject(value) ? jsonFault(value, depth) : SHAPE;
}

/** `providerMetadata`: a record of JSON records. */
function providerMetadataFault(value: unknown): Fault | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) return SHAPE;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const fault = recordFault(value[key], 2) ?? (value[key] === undefined ? SHAPE : undefined);
    if (fault !== undefined) return under(`.${key}`, fault);
  }
  return undefined;
}

/** Keys other than `known` hold JSON or undefined. */
function extrasFault(value: Record<string, unknown>, known: ReadonlySet<string>): Fault | undefined {
  for (const key in value) {
    if (!Object.hasOwn(value, key) || known.has(key)) continue;
    const item = value[key];
    if (item === undefined) continue;
    const fault = jsonFault(item, 1);
    if (fault !== undefined) return under(`.${key}`, fault);
  }
  return undefined;
}

const MESSAGE_KEYS: ReadonlySet<string> = new Set([
  'id',
  'role',
  'parts',
  'createdAt',
  'name',
  'usage',
  'pinned',
  'metadata',
  'providerMetadata',
]);
const USAGE_KEYS: ReadonlySet<string> = new Set([
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
]);
const PART_KEYS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['text', new Set(['type', 'text', 'providerMetadata'])],
  [
    'attachment',
    new Set(['type', 'kind', 'mediaType', 'filename', 'size', 'data', 'url', 'providerMetadata']),
  ],
  ['tool-call', new Set(['type', 'id', 'name', 'arguments', 'providerMetadata'])],
  ['tool-result', new Set(['type', 'callId', 'toolName', 'content', 'isError', 'providerMetadata'])],
  ['reasoning', new Set(['type', 'text', 'signature', 'redactedData', 'providerMetadata'])],
]);

/** The text size of a well-formed message (a number), or where it goes wrong. */
function messageFault(value: unknown, input: boolean): number | Fault {
  if (!isObject(value)) return SHAPE;
  if (input ? !isOptionalString(value.id) : typeof value.id !== 'string') return { path: '.id', deep: false };
  if (input ? !isOptionalString(value.createdAt) : typeof value.createdAt !== 'string') {
    return { path: '.createdAt', deep: false };
  }
  const role = value.role;
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
    return { path: '.role', deep: false };
  }
  if (!isOptionalString(value.name)) return { path: '.name', deep: false };
  if (!isOptionalBoolean(value.pinned)) return { path: '.pinned', deep: false };
  const usage = value.usage;
  if (usage !== undefined) {
    if (!isObject(usage)) return { path: '.usage', deep: false };
    for (const key of USAGE_KEYS)
      if (!isOptionalNumber(usage[key])) return { path: `.usage.${key}`, deep: false };
    const fault = extrasFault(usage, USAGE_KEYS);
    if (fault !== undefined) return under('.usage', fault);
  }
  const fault =
    at('.metadata', recordFault(value.metadata, 1)) ??
    at('.providerMetadata', providerMetadataFault(value.providerMetadata)) ??
    extrasFault(value, MESSAGE_KEYS);
  if (fault !== undefined) return fault;
  const parts = value.parts;
  if (!Array.isArray(parts)) return { path: '.parts', deep: false };
  let chars = 0;
  for (let i = 0; i < parts.length; i++) {
    const size = partSize(parts[i], true);
    if (typeof size !== 'number') return under(`.parts[${i}]`, size);
    chars += size;
  }
  return chars;
}

/** Characters of text a well-formed part carries (as `normalizeMessages` counts them), or its fault. */
function partSize(part: unknown, top: boolean): number | Fault {
  if (!isObject(part)) return SHAPE;
  const type = part.type;
  const known = typeof type === 'string' ? PART_KEYS.get(type) : undefined;
  if (known === undefined || (!top && type !== 'text' && type !== 'attachment')) {
    return { path: '.type', deep: false };
  }
  const fault =
    at('.providerMetadata', providerMetadataFault(part.providerMetadata)) ?? extrasFault(part, known);
  if (fault !== undefined) return fault;
  switch (type) {
    case 'text':
      return typeof part.text === 'string' ? part.text.length : { path: '.text', deep: false };
    case 'reasoning':
      if (typeof part.text !== 'string') return { path: '.text', deep: false };
      if (!isOptionalString(part.signature) || !isOptionalString(part.redactedData)) return SHAPE;
      return part.text.length;
    case 'attachment':
      if (part.kind !== 'image' && part.kind !== 'file') return { path: '.kind', deep: false };
      if (typeof part.mediaType !== 'string') return { path: '.mediaType', deep: false };
      if (!isOptionalString(part.filename) || !isOptionalString(part.url)) return SHAPE;
      if (!isOptionalNumber(part.size) || !isOptionalString(part.data)) return SHAPE;
      return top && typeof part.data === 'string' ? part.data.length : 0;
    case 'tool-call':
      if (typeof part.id !== 'string' || typeof part.name !== 'string') return SHAPE;
      if (typeof part.arguments !== 'string') return { path: '.arguments', deep: false };
      return part.arguments.length + part.name.length;
    default: {
      // tool-result
      if (typeof part.callId !== 'string') return { path: '.callId', deep: false };
      if (!isOptionalString(part.toolName) || !isOptionalBoolean(part.isError)) return SHAPE;
      const content = part.content;
      if (!Array.isArray(content)) return { path: '.content', deep: false };
      let size = 0;
      for (let i = 0; i < content.length; i++) {
        const inner = partSize(content[i], false);
        if (typeof inner !== 'number') return under(`.content[${i}]`, inner);
        size += inner;
      }
      return size;
    }
  }
}
