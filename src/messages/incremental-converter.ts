/**
 * Converting a resent history once per message, not once per call (issue 19 §2). Apps built on
 * the AI SDK or the OpenAI SDK resend their whole history on every call, and a conversion
 * hashes every message (derived ids) and reads every character (text checks): O(history) per
 * turn. An incremental converter remembers, per conversation, the last input it read (its
 * snapshot) and what it made of it; a call whose messages start with the same content reuses
 * those messages — the same frozen objects — and converts only the rest, resuming the state a
 * conversion carries from message to message (identical-message counts of derived ids, the
 * last timestamp, a format's own state such as tool names by call id, indexes in error paths).
 *
 * The result is a whole conversion's: same ids, parts and errors (a property test checks it on
 * histories that grow, are edited and branch). One difference: a message without a timestamp
 * keeps the one it got when first converted, where a new conversion would stamp it anew (the
 * new messages get the clock's time of this call, as in a whole conversion). Pure: the memory
 * is the converter object's own.
 */
import type { NormalizeOptions } from './normalize.ts';
import { normalizeConvertedFrom } from './normalize.ts';
import type { Message, MessageInput } from './types.ts';

/**
 * How one provider format converts, message by message (what {@link createIncrementalConverter}
 * needs of `fromAiSdk`, `fromOpenAI`).
 */
export interface ConversionFormat<State> {
  /**
   * Reads the caller's input once into plain data, throwing as the whole conversion does; where
   * it equals `previous` (an earlier read), it returns the earlier read's objects.
   */
  read(input: unknown, options: NormalizeOptions, previous?: unknown): unknown;
  /** Whether these messages of a read input are well-formed (the schema); errors are `convertAll`'s. */
  accepts(messages: readonly unknown[]): boolean;
  /** The state before the first message (tool names by call id, …). */
  start(): State;
  /** A copy of `state` that the next conversion may change. */
  copy(state: State): State;
  /** One accepted message at `index` of the input, before normalizing; may update `state`. */
  convert(message: unknown, index: number, state: State): MessageInput;
  /** The whole conversion of a read input: its result, or the error a conversion throws. */
  convertAll(read: unknown, options: NormalizeOptions): Message[];
}

/** Options of {@link createIncrementalConverter}. */
export interface IncrementalConverterOptions extends NormalizeOptions {
  /** Conversations remembered (the most recently converted); default 16. */
  readonly conversations?: number;
}

/** Converts lists of provider messages, resuming from the conversation a list extends. */
export interface IncrementalConverter {
  /** The neutral messages of `input`, as the format's whole conversion gives them. */
  convert(input: unknown): Message[];
  /** Messages of the input converted anew by the last call (tests, benchmarks). */
  readonly lastConverted: number;
}

interface Remembered<State> {
  /** The input as read (plain data this converter owns). */
  readonly read: unknown[];
  readonly messages: Message[];
  /** Derived base id of each message (`normalizeConvertedFrom`'s `bases`). */
  readonly bases: (string | undefined)[];
  /** The timestamp each message came with (`normalizeConvertedFrom`'s `given`). */
  readonly given: (string | undefined)[];
  /** The format's state after the last message. */
  readonly state: State;
}

/** Default of {@link IncrementalConverterOptions.conversations}. */
export const DEFAULT_REMEMBERED_CONVERSIONS = 16;

/**
 * Creates an incremental converter for `format`.
 *
 * @param format How the provider format reads, checks and converts one message.
 * @param options Normalize options of every conversion, and how many conversations to remember.
 * @returns A converter; its memory is its own (bounded by `conversations` histories).
 * @example
 * const converter = createIncrementalConverter(aiSdkConversion);
 * const messages = converter.convert(prompt); // next call: only the new messages are converted
 */
export function createIncrementalConverter<State>(
  format: ConversionFormat<State>,
  options: IncrementalConverterOptions = {},
): IncrementalConverter {
  const { conversations = DEFAULT_REMEMBERED_CONVERSIONS, ...normalizeOptions } = options;
  const max = Math.max(1, Math.floor(conversations));
  // Most recently converted last.
  let remembered: Remembered<State>[] = [];
  let lastConverted = 0;

  const resume = (read: unknown[]): { from?: Remembered<State>; reused: number } => {
    let from: Remembered<State> | undefined;
    let reused = 0;
    for (let i = remembered.length - 1; i >= 0; i--) {
      const entry = remembered[i] as Remembered<State>;
      if (entry.read.length <= reused) continue;
      const length = sharedPrefix(entry.read, read);
      if (length > reused) {
        from = entry;
        reused = length;
      }
    }
    return from === undefined ? { reused: 0 } : { from, reused };
  };

  const convertNew = (read: unknown[], from: Remembered<State> | undefined, reused: number) => {
    let state: State;
    if (from === undefined) state = format.start();
    else if (reused === from.read.length) state = format.copy(from.state);
    else {
      // A branch or an edit: the format's state is replayed over the shared part (its messages
      // converted again, not normalized: no hashing, no text checks).
      state = format.start();
      for (let index = 0; index < reused; index++) format.convert(read[index], index, state);
    }
    const seen = new Map<string, number>();
    for (let index = 0; index < reused; index++) {
      const base = from?.bases[index];
      if (base !== undefined) seen.set(base, (seen.get(base) ?? 0) + 1);
    }
    const rest = read.slice(reused);
    const converted = rest.map((message, at) => format.convert(message, reused + at, state));
    const given = from === undefined ? [] : from.given.slice(0, reused);
    const progress = {
      offset: reused,
      seen,
      stamp: given.findLast((stamp) => stamp !== undefined),
      bases: from === undefined ? [] : from.bases.slice(0, reused),
      given,
    };
    const messages = normalizeConvertedFrom(converted, normalizeOptions, progress);
    return { messages, bases: progress.bases, given, state };
  };

  const remember = (entry: Remembered<State>, replaced: Remembered<State> | undefined) => {
    remembered = remembered.filter((other) => other !== replaced);
    remembered.push(entry);
    if (remembered.length > max) remembered = remembered.slice(remembered.length - max);
  };

  return {
    convert(input) {
      // Read against the last conversation's read: most calls continue it, and then the part
      // already seen comes back as the same objects (compared by `===`, nothing copied).
      const read = format.read(input, normalizeOptions, remembered.at(-1)?.read);
      if (!Array.isArray(read)) return format.convertAll(read, normalizeOptions);
      const { from, reused } = resume(read);
      // The shared part was accepted when it was converted; only the rest is checked.
      if (!format.accepts(reused === 0 ? read : read.slice(reused))) {
        return format.convertAll(read, normalizeOptions);
      }
      let converted: ReturnType<typeof convertNew>;
      try {
        converted = convertNew(read, from, reused);
      } catch {
        // The error a whole conversion throws, with its path and wording.
        lastConverted = read.length;
        return format.convertAll(read, normalizeOptions);
      }
      lastConverted = read.length - reused;
      const messages =
        from === undefined ? converted.messages : from.messages.slice(0, reused).concat(converted.messages);
      // A history that extends the remembered one replaces it; a branch is remembered beside it.
      remember(
        { read, messages, bases: converted.bases, given: converted.given, state: converted.state },
        from !== undefined && reused === from.read.length ? from : undefined,
      );
      // The caller's array: what it does with it does not touch the remembered one.
      return messages.slice();
    },
    get lastConverted() {
      return lastConverted;
    },
  };
}

/** How many messages at the start of two read inputs are the same data. */
function sharedPrefix(a: readonly unknown[], b: readonly unknown[]): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && isSameData(a[index], b[index])) index++;
  return index;
}

/**
 * Whether two read inputs (plain data from `snapshotInput`: bounded depth and size) hold the
 * same data: same keys in the same order (conversions keep key order), same prototypes, same
 * bytes, `Object.is` for the rest (`0` and `-0` differ).
 */
export function isSameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let index = 0; index < a.length; index++) if (!isSameData(a[index], other[index])) return false;
    return true;
  }
  if (a instanceof Uint8Array) return sameBytes(a, b as Uint8Array);
  if (a instanceof ArrayBuffer) return sameBytes(new Uint8Array(a), new Uint8Array(b as ArrayBuffer));
  if (a instanceof URL) return a.href === (b as URL).href;
  const keys = Object.keys(a);
  const otherKeys = Object.keys(b);
  if (keys.length !== otherKeys.length) return false;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (key !== otherKeys[index]) return false;
    if (!isSameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}
