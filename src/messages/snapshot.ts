/**
 * Reading an input once (issue 24 §2, §3). An entry check that reads a caller's object and a
 * conversion that reads it again can see two different things: a `Proxy` or a getter may
 * answer one way to the check and another way to the code after it, so a value checked is not
 * the value used (or stored). {@link snapshotInput} reads every property exactly once into a
 * plain data copy, and everything after the check works on that copy.
 *
 * The copy is also where the size of an input is bounded before any work proportional to a
 * size it only claims: an array's `length` is read once and refused above
 * {@link MAX_ARRAY_LENGTH} before a walk (a sparse array of length 1e9 holds a few entries but
 * would take 1e9 steps), a byte array's length is compared with the caller's limit before any
 * base64 conversion, and the number of values copied is bounded by {@link MAX_INPUT_NODES} (a
 * value shared many times over, `a = { x: a0, y: a0 }` thirty levels deep, is a billion
 * values to anything that walks it as JSON).
 *
 * Anything a getter or a proxy trap throws while it is read becomes `E_INVALID_MESSAGE` naming
 * the path, so only `ChatfoldError`s leave the converters and the entry check.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { ENVELOPE_DEPTH, MAX_NESTING_DEPTH, nestingError } from './json-depth.ts';

/**
 * Longest array chatfold walks (messages in a request, parts, JSON arrays). An array's
 * `length` is refused above it before the first element is read.
 */
export const MAX_ARRAY_LENGTH = 1_000_000;

/**
 * Most values (objects, arrays and their entries, shared ones counted each time they are
 * reached) one input may hold; walking more than this as JSON is refused before it starts.
 */
export const MAX_INPUT_NODES = 8_000_000;

/** Options of {@link snapshotInput}. */
export interface SnapshotOptions {
  /** Where paths start in errors: `messages`, `messages[3]`, `` for a request object. */
  readonly root: string;
  /** Deepest nesting copied; deeper (or cyclic) input is `E_NESTING_TOO_DEEP`. */
  readonly maxDepth?: number;
  /** Largest byte array (`Uint8Array`, `ArrayBuffer`) accepted, checked by its length before any copy. */
  readonly maxBinaryBytes?: number;
  /** Freeze every object of the copy (a copy chatfold hands out and trusts from then on). */
  readonly freeze?: boolean;
  /** The public function being called, named in errors. */
  readonly fn?: string;
  /**
   * An earlier copy of the same input (issue 19 §2: a history resent with new messages). Every
   * property is still read once, but where what is read equals this copy, its objects are
   * returned instead of new ones, so `===` says what is unchanged and nothing is allocated for
   * it. With `freeze`, only a copy frozen throughout (a checked message): its objects are
   * handed out as they are.
   */
  readonly previous?: unknown;
}

/** No earlier copy at this place. */
const NO_PREVIOUS: object = Object.freeze({});

/** Whether an earlier copy holds the same bytes (or URL) as a new copy of a byte array or URL. */
function isSameBinary(copy: Uint8Array | ArrayBuffer | URL, previous: unknown): boolean {
  if (typeof previous !== 'object' || previous === null) return false;
  if (Object.getPrototypeOf(previous) !== Object.getPrototypeOf(copy)) return false;
  if (copy instanceof URL) return copy.href === (previous as URL).href;
  const bytes = copy instanceof Uint8Array ? copy : new Uint8Array(copy);
  const earlier = previous instanceof Uint8Array ? previous : new Uint8Array(previous as ArrayBuffer);
  if (bytes.length !== earlier.length) return false;
  for (let index = 0; index < bytes.length; index++) if (bytes[index] !== earlier[index]) return false;
  return true;
}

/** Sets `key` as data: a `__proto__` key too (defineProperty, as JSON.parse makes it). */
function define(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  } else object[key] = value;
}

/** A new object for the copy of a plain object, or of one that is not plain. */
const create = (plain: boolean): Record<string, unknown> => (plain ? {} : Object.create(NOT_PLAIN));

/**
 * A prototype for copies of objects that are not plain (class instances, `Date`s, `Map`s…):
 * their own enumerable keys are copied, and the copy stays non-plain, so checks that accept
 * only plain objects refuse it as they refused the original.
 */
const NOT_PLAIN: object = Object.freeze(Object.create(null));

// Intrinsic getters, captured before any caller code runs: they read internal slots, so an own
// `byteLength` property or a proxy cannot make a byte array claim another size.
const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayTag = Object.getOwnPropertyDescriptor(typedArrayPrototype, Symbol.toStringTag)?.get;
const typedArrayByteLength = Object.getOwnPropertyDescriptor(typedArrayPrototype, 'byteLength')?.get;
const arrayBufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')?.get;
const urlHref = Object.getOwnPropertyDescriptor(URL.prototype, 'href')?.get;

/** Objects a reader tracks in a list (a linear search) before it indexes them in a `Map`. */
const LINEAR_SEEN = 32;
/** Marks, in a reader's sizes, an object whose copy is being made (reaching it again is a cycle). */
const IN_PROGRESS = -1;

/**
 * A plain data copy of `value`, reading every property once. Strings, numbers, booleans,
 * `null` and `undefined` are kept; arrays and objects are copied (own enumerable string keys,
 * `__proto__` kept as data); a `Uint8Array`, `ArrayBuffer` or `URL` is copied through its
 * internal slots; anything else (functions, symbols) is kept as it is for the caller's schema
 * to refuse. A value reached twice is copied once and shared in the copy.
 *
 * @param value The caller's input.
 * @param options Where paths start, depth and byte limits, whether to freeze.
 * @returns The copy.
 * @throws ChatfoldError `E_NESTING_TOO_DEEP` (deeper than the limit, or cyclic),
 *   `E_MESSAGE_TOO_LARGE` (an array longer than {@link MAX_ARRAY_LENGTH}, a byte array over
 *   `maxBinaryBytes`, more than {@link MAX_INPUT_NODES} values), `E_INVALID_MESSAGE` (reading a
 *   property threw).
 */
export function snapshotInput(value: unknown, options: SnapshotOptions): unknown {
  // One reader serves call after call (issue 19 §3: a rebuilt 100k-message list made 100k
  // readers, each with its own table); a getter that calls chatfold while a read is under way
  // finds the spare taken and gets a reader of its own.
  const reader = spare ?? new SnapshotReader();
  spare = undefined;
  try {
    return reader.snapshot(value, options);
  } finally {
    reader.clear();
    spare = reader;
  }
}

let spare: SnapshotReader | undefined;

class SnapshotReader {
  #options: SnapshotOptions = { root: '' };
  #maxDepth = MAX_NESTING_DEPTH + ENVELOPE_DEPTH;
  #freeze = false;
  /** Where the read is: on a throw it still names the property being read (no pop ran). */
  readonly #path: (string | number)[] = [];
  #nodes = 0;
  // The objects reached so far, each with its copy and the values counted under it (shared
  // values are copied once, counted each time): parallel lists searched linearly while short
  // (a message holds about ten objects), indexed by a `Map` once longer.
  readonly #seen: object[] = [];
  readonly #copies: unknown[] = [];
  readonly #sizes: number[] = [];
  #seenCount = 0;
  #index: Map<object, number> | undefined;

  /** Sets the options of a read (a reader made for {@link readOnce} keeps them). */
  start(options: SnapshotOptions): this {
    this.#options = options;
    this.#maxDepth = options.maxDepth ?? MAX_NESTING_DEPTH + ENVELOPE_DEPTH;
    this.#freeze = options.freeze === true;
    return this;
  }

  /** The copy of `value` under `options` (see {@link snapshotInput}). */
  snapshot(value: unknown, options: SnapshotOptions): unknown {
    this.start(options);
    const previous = options.previous === undefined ? NO_PREVIOUS : options.previous;
    try {
      return this.copy(value, 1, previous);
    } catch (error) {
      throw this.#typed(error);
    }
  }

  /** Forgets the last read (its objects are the caller's: nothing is kept alive by a spare reader). */
  clear(): void {
    const seen = this.#seen;
    const copies = this.#copies;
    for (let index = 0; index < this.#seenCount; index++) {
      seen[index] = NO_PREVIOUS;
      copies[index] = undefined;
    }
    this.#seenCount = 0;
    this.#index = undefined;
    this.#path.length = 0;
    this.#nodes = 0;
    this.#options = { root: '' };
  }

  /** The slot of `value` among the objects reached, or -1. */
  #find(value: object): number {
    if (this.#index !== undefined) return this.#index.get(value) ?? -1;
    const seen = this.#seen;
    for (let index = 0; index < this.#seenCount; index++) if (seen[index] === value) return index;
    return -1;
  }

  /** A new slot for `value`, marked in progress. */
  #enter(value: object): number {
    const slot = this.#seenCount++;
    this.#seen[slot] = value;
    this.#copies[slot] = undefined;
    this.#sizes[slot] = IN_PROGRESS;
    if (this.#index !== undefined) this.#index.set(value, slot);
    else if (this.#seenCount > LINEAR_SEEN) {
      const index = new Map<object, number>();
      for (let at = 0; at < this.#seenCount; at++) index.set(this.#seen[at] as object, at);
      this.#index = index;
    }
    return slot;
  }

  /**
   * The copy of one value. Called inside {@link snapshot}: a getter or trap that throws anywhere
   * below becomes a typed error at the path it was reading.
   */
  copy(value: unknown, depth: number, previous: unknown = NO_PREVIOUS): unknown {
    if (typeof value !== 'object' || value === null) {
      this.#count(1);
      return value;
    }
    const found = this.#find(value);
    if (found !== -1) {
      const nodes = this.#sizes[found] as number;
      // Reached again while its own copy is being made: a cycle, which JSON cannot hold.
      if (nodes === IN_PROGRESS) throw nestingError(this.#where(), this.#options.fn);
      this.#count(nodes);
      return this.#copies[found];
    }
    if (depth > this.#maxDepth) throw nestingError(this.#where(), this.#options.fn);
    const before = this.#nodes;
    const slot = this.#enter(value);
    let copy: unknown;
    if (Array.isArray(value)) copy = this.#array(value, depth, previous);
    else {
      const prototype = Object.getPrototypeOf(value) as unknown;
      if (prototype === Object.prototype || prototype === null)
        copy = this.#object(value, depth, true, previous);
      else {
        const binary = this.#binary(value);
        if (binary !== undefined) {
          const kept = isSameBinary(binary, previous) ? previous : binary;
          this.#copies[slot] = kept;
          this.#sizes[slot] = 1;
          this.#count(1);
          return kept;
        }
        copy = this.#object(value, depth, false, previous);
      }
    }
    // An earlier copy handed back is frozen already (with `freeze`, only a frozen one is given).
    if (this.#freeze && copy !== previous) Object.freeze(copy);
    this.#count(1);
    this.#copies[slot] = copy;
    this.#sizes[slot] = this.#nodes - before;
    return copy;
  }

  #array(value: readonly unknown[], depth: number, previous: unknown): unknown[] {
    const length: unknown = value.length;
    // Only a proxy's length can be anything but a safe integer; compared as it is, an array
    // would be converted to text (and a deep one would overflow the stack doing it).
    if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
      throw new TypeError('its length is not a whole number');
    }
    if (length > MAX_ARRAY_LENGTH) {
      throw this.#tooLarge(
        `array of length ${length}, longer than the ${MAX_ARRAY_LENGTH} chatfold reads`,
        length,
        MAX_ARRAY_LENGTH,
      );
    }
    const path = this.#path;
    if (previous === NO_PREVIOUS) {
      const out: unknown[] = new Array(length);
      for (let index = 0; index < length; index++) {
        path.push(index);
        out[index] = this.copy(value[index], depth + 1);
        path.pop();
      }
      return out;
    }
    // The earlier copy's entries stand in for equal ones; the array itself only when all are.
    const earlier = Array.isArray(previous) ? (previous as unknown[]) : undefined;
    let out: unknown[] | undefined = earlier?.length === length ? undefined : new Array(length);
    for (let index = 0; index < length; index++) {
      path.push(index);
      const before = earlier !== undefined && index < earlier.length ? earlier[index] : NO_PREVIOUS;
      const copy = this.copy(value[index], depth + 1, before);
      if (out === undefined && !Object.is(copy, before)) out = (earlier as unknown[]).slice(0, index);
      if (out !== undefined) out[index] = copy;
      path.pop();
    }
    return out ?? (earlier as unknown[]);
  }

  #object(value: object, depth: number, plain: boolean, previous: unknown): Record<string, unknown> {
    const keys = Object.keys(value);
    if (keys.length > MAX_ARRAY_LENGTH) {
      throw this.#tooLarge(
        `object with ${keys.length} keys, more than the ${MAX_ARRAY_LENGTH} chatfold reads`,
        keys.length,
        MAX_ARRAY_LENGTH,
      );
    }
    const path = this.#path;
    if (previous === NO_PREVIOUS) {
      // No earlier copy (every entry check): a new object, key by key.
      const out = create(plain);
      for (let index = 0; index < keys.length; index++) {
        const key = keys[index] as string;
        path.push(key);
        define(out, key, this.copy((value as Record<string, unknown>)[key], depth + 1));
        path.pop();
      }
      return out;
    }
    // The earlier copy stands in when it is of the same kind with the same keys in the same
    // order and equal values (its objects, or equal primitives).
    const earlier =
      typeof previous === 'object' &&
      previous !== null &&
      !Array.isArray(previous) &&
      Object.getPrototypeOf(previous) === (plain ? Object.prototype : NOT_PLAIN)
        ? (previous as Record<string, unknown>)
        : undefined;
    const earlierKeys = earlier === undefined ? undefined : Object.keys(earlier);
    let out = earlierKeys?.length === keys.length ? undefined : create(plain);
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      path.push(key);
      const before = earlier !== undefined && earlierKeys?.[index] === key ? earlier[key] : NO_PREVIOUS;
      const copy = this.copy((value as Record<string, unknown>)[key], depth + 1, before);
      if (out === undefined && !Object.is(copy, before)) {
        out = create(plain);
        for (const kept of keys.slice(0, index))
          define(out, kept, (earlier as Record<string, unknown>)[kept]);
      }
      if (out !== undefined) define(out, key, copy);
      path.pop();
    }
    return out ?? (earlier as Record<string, unknown>);
  }

  /** A copy of a real byte array or URL (checked through internal slots), or undefined. */
  #binary(value: object): Uint8Array | ArrayBuffer | URL | undefined {
    const tag = attempt(() => typedArrayTag?.call(value));
    if (tag === 'Uint8Array') {
      const bytes = typedArrayByteLength?.call(value) as number;
      this.#checkBytes(bytes);
      // The constructor copies a typed array through its internal slots, reading no property.
      return new Uint8Array(value as Uint8Array);
    }
    const bufferBytes = attempt(() => arrayBufferByteLength?.call(value) as number | undefined);
    if (typeof bufferBytes === 'number') {
      this.#checkBytes(bufferBytes);
      const copy = new ArrayBuffer(bufferBytes);
      new Uint8Array(copy).set(new Uint8Array(value as ArrayBuffer));
      return copy;
    }
    const href = attempt(() => urlHref?.call(value) as string | undefined);
    return typeof href === 'string' ? new URL(href) : undefined;
  }

  #checkBytes(bytes: number): void {
    const limit = this.#options.maxBinaryBytes;
    if (limit !== undefined && bytes > limit) {
      throw this.#tooLarge(
        `${bytes} bytes of binary data, more than the limit of ${limit} bytes; send a URL or a smaller file`,
        bytes,
        limit,
      );
    }
  }

  #count(nodes: number): void {
    this.#nodes += nodes;
    if (this.#nodes > MAX_INPUT_NODES) {
      throw this.#tooLarge(
        `more than ${MAX_INPUT_NODES} values (objects, arrays and their entries) to read`,
        this.#nodes,
        MAX_INPUT_NODES,
      );
    }
  }

  /** Runs reads of the caller's value; whatever they throw becomes a typed error at the path. */
  read<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      throw this.#typed(error);
    }
  }

  /** A `ChatfoldError` as it is; anything else a getter or trap threw as `E_INVALID_MESSAGE` at the path. */
  #typed(error: unknown): unknown {
    if (ChatfoldError.isInstance(error)) return error;
    const where = this.#where();
    const fn = this.#options.fn;
    return new ChatfoldError(
      'E_INVALID_MESSAGE',
      `${fn === undefined ? '' : `${fn}: `}${where}: could not be read (${describeThrown(error)}); pass plain data`,
      { where, ...(fn === undefined ? {} : { function: fn }) },
    );
  }

  #tooLarge(what: string, actual: number, limit: number): ChatfoldError {
    const where = this.#where();
    const fn = this.#options.fn;
    return new ChatfoldError('E_MESSAGE_TOO_LARGE', `${fn === undefined ? '' : `${fn}: `}${where}: ${what}`, {
      where,
      actual,
      limit,
      ...(fn === undefined ? {} : { function: fn }),
    });
  }

  #where(): string {
    let out = this.#options.root;
    for (const key of this.#path) {
      out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${key}`;
      if (out.length > 200) return `${out.slice(0, 200)}…`;
    }
    return out === '' ? 'request' : out;
  }
}

/**
 * One read of a caller's value outside a snapshot (picking `messages` out of a request object):
 * whatever it throws becomes `E_INVALID_MESSAGE` at `where`.
 */
export function readOnce<T>(read: () => T, where: string, fn?: string): T {
  return new SnapshotReader().start({ root: where, ...(fn === undefined ? {} : { fn }) }).read(read);
}

/** `Array.isArray`, false for a revoked proxy (where `Array.isArray` itself throws). */
export function isArray(value: unknown): value is readonly unknown[] {
  return attempt(() => Array.isArray(value)) === true;
}

/** The result of `read`, or undefined when it throws (brand checks on foreign values). */
function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** A few words about a thrown value, without running the thrower's code again where avoidable. */
function describeThrown(error: unknown): string {
  const text = attempt(() => (error instanceof Error ? `${error.name}: ${error.message}` : typeof error));
  return typeof text === 'string' ? text.slice(0, 200) : 'an exception';
}
