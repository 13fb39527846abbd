/**
 * The entry check for neutral messages (MSG-4): every public function that takes `Message`s
 * calls {@link assertMessages} (or {@link assertMessage} per message) first, so malformed input
 * — `null` messages or parts, wrong types, unknown roles, metadata that is not JSON, nesting
 * deeper than {@link MAX_NESTING_DEPTH}, a message over {@link DEFAULT_MAX_MESSAGE_CHARS} —
 * becomes one `ChatfoldError` naming the path (`messages[3].parts[0].text: expected string,
 * received number`) instead of a `TypeError` deep inside.
 *
 * The rules are {@link messageSchema}'s. Each message is first read once into a frozen plain
 * copy (issue 24 §2: a proxy or getter cannot answer the check one way and the code after it
 * another), and the copy is checked by a hand-written pass (zod would cost 4–16 µs a message
 * on every call). A checked copy carries its size in a private field, so handing it back costs
 * nothing; given an {@link EngineCache}, the caller's object is remembered there with its copy
 * (token counts are cached by object), so a warm call costs one `WeakMap` lookup per message.
 * The schema words the error when a message fails.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { cacheOption, cacheTable, type EngineCache } from './engine-cache.ts';
import { ENVELOPE_DEPTH, isPlainObject, MAX_NESTING_DEPTH, nestingError } from './json-depth.ts';
import { messageInputSchema, messageSchema } from './message-schema.ts';
import { parseProviderInput } from './provider-input.ts';
import { MAX_ARRAY_LENGTH, snapshotInput } from './snapshot.ts';
import { type Message, ROLES } from './types.ts';

/** Largest message chatfold accepts by default, in UTF-16 code units of its text (MSG-4). */
export const DEFAULT_MAX_MESSAGE_CHARS = 16 * 1024 * 1024;

/**
 * Most parts one message may hold, and most content items one tool result may hold (issue 24
 * §3). Real messages have a handful; a message of 200,000 one-character parts is refused where
 * it enters, not accepted and then too large for every prompt made from it.
 */
export const MAX_MESSAGE_PARTS = 10_000;

/** Most messages one call reads; a longer (or sparse) array is refused by its length. */
export const MAX_MESSAGES = MAX_ARRAY_LENGTH;

/** Options of {@link assertMessages}. */
export interface AssertMessagesOptions {
  /** Largest total text of one message. Default {@link DEFAULT_MAX_MESSAGE_CHARS}. */
  readonly maxMessageChars?: number;
  /** Remember the messages that passed here, and skip those it remembers. */
  readonly cache?: EngineCache | undefined;
}

/**
 * The caller's message objects that passed the check, each with the checked copy made of it,
 * so a warm call returns the same copy (counts and caches are keyed by object).
 */
const CHECKED = cacheTable('messages.checked', () => new WeakMap<object, Message>());

/**
 * Marks the frozen copies this module made (and `normalizeMessages` output) with their size: a
 * private field, which a proxy cannot fake (`#size in value` consults no trap), so a proxy
 * wrapped around a checked message is read and checked like any other input.
 */
class CheckedStamp {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the stamp is installed on `target` itself.
    return target as CheckedStamp;
  }
}
class CheckedMessage extends CheckedStamp {
  readonly #size: number;
  /** Whose note {@link note} is (the first owner to write one keeps the slot). */
  #noteOwner: object | undefined = undefined;
  #note = 0;
  constructor(target: object, size: number) {
    super(target);
    this.#size = size;
  }
  static sizeOf(value: object): number | undefined {
    return #size in value ? (value as CheckedMessage).#size : undefined;
  }
  static noteOf(value: object, owner: object): number | undefined {
    return #size in value && (value as CheckedMessage).#noteOwner === owner
      ? (value as CheckedMessage).#note
      : undefined;
  }
  static setNote(value: object, owner: object, note: number): boolean {
    if (!(#size in value)) return false;
    const message = value as CheckedMessage;
    if (message.#noteOwner !== undefined && message.#noteOwner !== owner) return false;
    message.#noteOwner = owner;
    message.#note = note;
    return true;
  }
}

/**
 * The number `owner` noted on a checked message (a token counter's count of it, issue 19 §3),
 * or undefined: not a checked copy, nothing noted, or noted by another owner. A field of the
 * copy, not a `WeakMap` entry: a rebuilt 100k-message list counted again made 100k entries.
 *
 * @param message Anything a caller passed as a message (a proxy is never a checked copy).
 * @param owner Whose note (an object private to its owner).
 */
export function checkedNote(message: unknown, owner: object): number | undefined {
  return typeof message === 'object' && message !== null ? CheckedMessage.noteOf(message, owner) : undefined;
}

/**
 * Notes a number for `owner` on a checked message (see {@link checkedNote}).
 *
 * @returns Whether it is noted: false when `message` is not a checked copy or another owner
 *   noted it first (the owner keeps the number elsewhere then).
 */
export function noteChecked(message: object, owner: object, note: number): boolean {
  return CheckedMessage.setNote(message, owner, note);
}

/**
 * Checks that `value` is an array of well-formed neutral messages and returns a checked copy
 * of it (MSG-4, issue 24 §2). Shape only: structural rules (tool-call pairing, role order,
 * duplicate ids, JSON tool arguments) are `validate`'s.
 *
 * Each message is read once into a frozen plain copy and the copy is checked, so a proxy or a
 * getter cannot pass the check with one answer and be used with another: callers work on the
 * returned array, never on `value` again. Copies this module made before (and
 * `normalizeMessages` output) are returned as they are; given a cache, a message object seen
 * before costs one `WeakMap` lookup. O(n) in the messages' real size on first sight.
 *
 * @param value What the caller passed as messages.
 * @param fn The public function being called, named in the error (`'countTokens'`).
 * @param options The size limit (default {@link DEFAULT_MAX_MESSAGE_CHARS}).
 * @returns The checked messages: frozen copies, or the same objects when they are already checked copies.
 * @throws ChatfoldError `E_INVALID_MESSAGES` (not an array), `E_INVALID_MESSAGE` (wrong shape,
 *   `details.where` is the path, or reading it threw), `E_UNKNOWN_ROLE`, `E_NESTING_TOO_DEEP`,
 *   `E_MESSAGE_TOO_LARGE` (too many characters, more than {@link MAX_MESSAGE_PARTS} parts, an
 *   array longer than {@link MAX_MESSAGES}).
 *
 * @example
 * export function planSomething(input: readonly Message[]) {
 *   const messages = assertMessages(input, 'planSomething');
 *   // from here on the types hold, and only `messages` is read
 * }
 */
export function assertMessages(
  value: unknown,
  fn: string,
  options: AssertMessagesOptions = {},
): readonly Message[] {
  return checkMessageList(value, fn, options).messages;
}

/**
 * {@link assertMessages}, also giving the caller's objects as they were read (once), for
 * {@link withCallerObjects}.
 */
export function checkMessageList(
  value: unknown,
  fn: string,
  options: AssertMessagesOptions = {},
): { readonly messages: readonly Message[]; readonly inputs: readonly unknown[] } {
  const inputs = readMessageList(value, fn);
  const limit = options.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
  const checked = cacheOption(options.cache, fn)?.table(CHECKED);
  const messages: Message[] = new Array(inputs.length);
  for (let index = 0; index < inputs.length; index++)
    messages[index] = checkOne(inputs[index], index, fn, limit, checked);
  return { messages, inputs };
}

/**
 * Refuses a list of messages longer than {@link MAX_MESSAGES} by its length alone, for code
 * that walks a list without copying it first (a token counter's recount of a list it saw).
 *
 * @throws ChatfoldError `E_MESSAGE_TOO_LARGE`.
 */
export function checkListLength(list: readonly unknown[], fn: string): void {
  const { length } = list;
  if (length > MAX_MESSAGES) {
    throw new ChatfoldError(
      'E_MESSAGE_TOO_LARGE',
      `${fn}: ${length} messages, more than the ${MAX_MESSAGES} one call reads; send fewer`,
      { function: fn, where: 'messages', actual: length, limit: MAX_MESSAGES },
    );
  }
}

/**
 * The entries of a caller's message array, each read once, after its length is read once and
 * bounded (a sparse array of length 1e9 is refused before a walk).
 *
 * @throws ChatfoldError `E_INVALID_MESSAGES` (not an array, or reading it threw),
 *   `E_MESSAGE_TOO_LARGE` (longer than {@link MAX_MESSAGES}).
 */
export function readMessageList(value: unknown, fn: string): unknown[] {
  const read = <T>(get: () => T): T => {
    try {
      return get();
    } catch (error) {
      if (ChatfoldError.isInstance(error)) throw error;
      throw new ChatfoldError(
        'E_INVALID_MESSAGES',
        `${fn}: the messages could not be read; pass plain data`,
        {
          function: fn,
        },
      );
    }
  };
  if (!read(() => Array.isArray(value))) {
    throw new ChatfoldError(
      'E_INVALID_MESSAGES',
      `${fn}: expected an array of messages, received ${received(value)}`,
      { function: fn },
    );
  }
  const list = value as readonly unknown[];
  const length: unknown = read(() => list.length);
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
    throw new ChatfoldError(
      'E_INVALID_MESSAGES',
      `${fn}: the messages' length is not a whole number; pass plain data`,
      {
        function: fn,
      },
    );
  }
  checkListLength({ length } as readonly unknown[], fn);
  const items: unknown[] = new Array(length);
  // One guarded read of all the entries, not a closure per entry (issue 19: a quarter of a warm
  // pruneMessages call went to reading the list).
  return read(() => {
    for (let index = 0; index < length; index++) items[index] = list[index];
    return items;
  });
}

/**
 * `output` with each message that is one of `checked` (kept as it was) replaced by the
 * caller's object it was copied from, for functions that promise to hand back the caller's
 * objects for the messages they keep (`pruneMessages`, `trimToTokens`). The caller's objects
 * are only handed back here, never read: the work was done on the copies.
 *
 * @param output What the function made from the checked messages.
 * @param list What {@link checkMessageList} returned.
 */
export function withCallerObjects(
  output: readonly Message[],
  { messages, inputs }: ReturnType<typeof checkMessageList>,
): Message[] {
  const original = new Map<Message, Message>();
  for (let index = 0; index < messages.length; index++)
    original.set(messages[index] as Message, inputs[index] as Message);
  return output.map((message) => original.get(message) ?? message);
}

/**
 * Checks one message, for functions that visit only some messages of a list (`trimToTokens`
 * walks back from the end) or take a single one (`TokenCounter.countMessage`).
 *
 * @param value The message.
 * @param index Its index in the caller's list, for the error path; omit for a lone message.
 * @param fn The public function being called.
 * @param options The cache that remembers checked messages.
 * @returns The checked copy (see {@link assertMessages}); callers read it, not `value`.
 * @throws ChatfoldError As {@link assertMessages}.
 */
export function assertMessage(
  value: unknown,
  index: number | undefined,
  fn: string,
  options: AssertMessageOptions = {},
): Message {
  const checked = options.cache?.table(CHECKED);
  const previous = options.previous === undefined ? undefined : checkedCopyOf(options.previous, checked);
  return checkOne(value, index, fn, DEFAULT_MAX_MESSAGE_CHARS, checked, previous);
}

/** Options of {@link assertMessage}. */
export interface AssertMessageOptions extends Pick<AssertMessagesOptions, 'cache'> {
  /**
   * The message at the same place in the last list the caller checked (a caller's object or
   * a checked copy), issue 19 §3: a stateless caller sends its history again as new objects
   * with the same content. `value` is still read once and checked, but read against that
   * message's checked copy, and when it holds the same content the copy itself is returned —
   * no new copy, no second check — so counts and memos kept by the copy apply again.
   */
  readonly previous?: unknown;
}

/** The checked copy of `value` (itself when it is one), or undefined when there is none. */
function checkedCopyOf(value: unknown, checked: WeakMap<object, Message> | undefined): Message | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const known = checked?.get(value) ?? value;
  return CheckedMessage.sizeOf(known) === undefined ? undefined : (known as Message);
}

/**
 * Checks a `MessageInput` (id and timestamp may be missing), as `normalizeMessages` does
 * before it fills them in. `value` must be a snapshot (plain data chatfold copied): it is
 * read again after the check.
 *
 * @returns The message's size in characters.
 */
export function assertMessageInput(
  value: unknown,
  index: number,
  fn: string,
  maxMessageChars: number,
): number {
  const result = messageFault(value, true);
  if (typeof result === 'number') {
    if (result > maxMessageChars) throw tooLarge(fn, index, result, maxMessageChars, true);
    return result;
  }
  throw describeFault(value, index, fn, true, result);
}

/**
 * Marks a message as checked, with its size (`normalizeMessages` output, frozen: already
 * checked, whatever its limit).
 */
export function markChecked(message: Message, size = 0): void {
  new CheckedMessage(message, size);
}

/**
 * A message chatfold made from a checked one (a stub, mask or clip of it: new parts and its
 * chatfold record), marked checked in place and frozen deeply like a checked copy, once it
 * passes the same shape check: it is then counted and validated without being copied (a first
 * compaction makes one per superseded output). Left as it is when `source` is not a checked
 * copy or the check fails: whoever reads it next checks it then.
 *
 * @param message The new message, built by chatfold from `source`'s values and new plain data.
 * @param source The checked message it was made from.
 * @returns `message`.
 */
export function adoptDerived(message: Message, source: Message): Message {
  if (CheckedMessage.sizeOf(source) === undefined || CheckedMessage.sizeOf(message) !== undefined)
    return message;
  const size = messageFault(message, false);
  if (typeof size !== 'number') return message;
  markChecked(message, size);
  freezeDeep(message);
  return message;
}

/** Freezes plain data deeply, down to what is frozen already (a checked copy's values). */
function freezeDeep(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) freezeDeep((value as Record<string, unknown>)[key]);
}

/**
 * A plain copy of one caller message, read once (issue 24 §2): every later read of the
 * message is a read of this copy.
 */
export function snapshotMessage(
  value: unknown,
  index: number | undefined,
  fn: string,
  freeze: boolean,
  previous?: Message,
): unknown {
  return snapshotInput(value, {
    root: index === undefined ? 'message' : `messages[${index}]`,
    maxDepth: MAX_NESTING_DEPTH + ENVELOPE_DEPTH,
    freeze,
    fn,
    ...(previous === undefined ? {} : { previous }),
  });
}

function checkOne(
  value: unknown,
  index: number | undefined,
  fn: string,
  limit: number,
  checked: WeakMap<object, Message> | undefined,
  previous?: Message,
): Message {
  if (typeof value === 'object' && value !== null) {
    const known = checked?.get(value) ?? value;
    const size = CheckedMessage.sizeOf(known);
    if (size !== undefined) {
      if (size > limit) throw tooLarge(fn, index, size, limit, false);
      return known as Message;
    }
  }
  // Read once into a frozen copy; against `previous` (a checked copy), what equals it comes
  // back as its objects, and a message equal throughout comes back as `previous` itself.
  const copy = snapshotMessage(value, index, fn, true, previous);
  if (previous !== undefined && copy === previous) {
    // The same content as a checked copy passes the same check with the same size, unless its
    // size was not measured (normalizeMessages marks its output with 0: checked under its own
    // limit): then it is checked here like any copy.
    const size = CheckedMessage.sizeOf(previous) as number;
    if (size !== 0) {
      if (size > limit) throw tooLarge(fn, index, size, limit, false);
      if (typeof value === 'object' && value !== null) checked?.set(value, previous);
      return previous;
    }
  }
  const result = messageFault(copy, false);
  if (typeof result !== 'number') throw describeFault(copy, index, fn, false, result);
  if (result > limit) throw tooLarge(fn, index, result, limit, false);
  const message = copy as Message;
  if (message !== previous) markChecked(message, result);
  if (typeof value === 'object' && value !== null) checked?.set(value, message);
  return message;
}

function tooLarge(
  fn: string,
  index: number | undefined,
  size: number,
  limit: number,
  input: boolean,
): ChatfoldError {
  const where = index === undefined ? 'message' : `messages[${index}]`;
  return new ChatfoldError(
    'E_MESSAGE_TOO_LARGE',
    `${fn}: ${where}: message has ${size} characters, more than the limit of ${limit}; clip the content before adding it${input ? ' or raise maxMessageChars' : ''}`,
    { function: fn, ...(index === undefined ? {} : { index }), actual: size, limit },
  );
}

/**
 * Where a message fails the hand-written check (`''` for the message itself), and whether for
 * depth or for holding more parts than {@link MAX_MESSAGE_PARTS} (`parts` is how many).
 */
interface Fault {
  readonly path: string;
  readonly deep: boolean;
  readonly parts?: number;
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
  if (fault.parts !== undefined) {
    const where = `${root}${fault.path}`;
    return new ChatfoldError(
      'E_MESSAGE_TOO_LARGE',
      `${fn}: ${where}: ${fault.parts} parts, more than the limit of ${MAX_MESSAGE_PARTS}; join the text into fewer parts`,
      {
        function: fn,
        where,
        ...(index === undefined ? {} : { index }),
        actual: fault.parts,
        limit: MAX_MESSAGE_PARTS,
      },
    );
  }
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
const under = (key: string, fault: Fault): Fault => ({ ...fault, path: `${key}${fault.path}` });
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
  if (parts.length > MAX_MESSAGE_PARTS) return { path: '.parts', deep: false, parts: parts.length };
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
      if (content.length > MAX_MESSAGE_PARTS) return { path: '.content', deep: false, parts: content.length };
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
