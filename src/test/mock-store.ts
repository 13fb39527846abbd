import { ChatfoldError } from '../errors/chatfold-error.ts';
import { memoryStore } from '../stores/memory/index.ts';
import type { Store } from '../stores/types.ts';
import { answerer, type MockAnswer } from './mock-answer.ts';

/** The names of a store's methods (`append`, `writeSnapshot`, … and its capabilities'). */
export type StoreMethod<S extends Store> = {
  [K in keyof S]-?: S[K] extends (...args: never[]) => unknown ? K : never;
}[keyof S] &
  string;

/** The arguments a store method was called with. */
export type StoreMethodArgs<S extends Store, K extends StoreMethod<S>> = S[K] extends (
  ...args: infer A
) => unknown
  ? A
  : never;

/** Calls of a {@link MockStore}, by method: each entry is one call's arguments. */
export type MockStoreCalls<S extends Store> = {
  readonly [K in StoreMethod<S>]: StoreMethodArgs<S, K>[];
};

/**
 * Failures to inject, per method, as a {@link MockAnswer} of `Error | undefined`: an `Error`
 * for every call, a function of the call's arguments, or one entry per call (`undefined`: the
 * call goes through; past the end of the array every call goes through). A function may also
 * return a promise to hold the call back first (e.g. to line up two racing writers).
 */
export type MockStoreFailures<S extends Store> = {
  readonly [K in StoreMethod<S>]?: MockAnswer<StoreMethodArgs<S, K>, undefined>;
};

/** Options of {@link createMockStore}. */
export interface MockStoreOptions<S extends Store> {
  /** The store that does the work. Default: a new `memoryStore()`. */
  readonly store?: S;
  /** Errors to throw instead of calling the store (it is not called when a call fails). */
  readonly fail?: MockStoreFailures<S>;
}

/** A store that records its calls: the wrapped store's behaviour, plus `calls` and `callOrder`. */
export type MockStore<S extends Store> = S & {
  /** Every call's arguments, by method (including calls that were made to fail). */
  readonly calls: MockStoreCalls<S>;
  /** Method names in call order, across methods. */
  readonly callOrder: StoreMethod<S>[];
};

/** Own and inherited method names of an object (class instances keep theirs on the prototype). */
function methodNames(object: object): string[] {
  const names = new Set<string>();
  for (let proto: object | null = object; proto !== null && proto !== Object.prototype; ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof (object as Record<string, unknown>)[name] === 'function') {
        names.add(name);
      }
    }
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return [...names];
}

/**
 * A store test double (ST-1): a real store (default `memoryStore()`, so appends, snapshots'
 * compare-and-set and reads behave as in production) that records every method call and can
 * fail chosen calls, to test how a session reacts to a store that errors or races.
 *
 * @param options The store to wrap and the failures to inject.
 * @returns A store with the wrapped store's methods, plus `calls` by method and `callOrder`.
 * @example
 * const store = createMockStore({ fail: { getSetting: [new Error('connection reset')] } });
 * const chatfold = createChatfold({ model: 'gpt-4o', store });
 * await expect(chatfold.session('s')).rejects.toThrow('connection reset'); // the first read fails
 * await chatfold.session('s'); // the next one goes through
 * expect(store.calls.getSetting).toHaveLength(2);
 */
export function createMockStore<S extends Store = ReturnType<typeof memoryStore>>(
  options: MockStoreOptions<S> = {},
): MockStore<S> {
  const inner = options.store ?? (memoryStore() as Store as S);
  const failures = (options.fail ?? {}) as Record<string, MockAnswer<unknown[], undefined>>;
  const calls: Record<string, unknown[][]> = {};
  const callOrder: string[] = [];
  const mock: Record<string, unknown> = {};
  const methods = methodNames(inner);
  for (const name of Object.keys(failures)) {
    if (!methods.includes(name)) {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `createMockStore: fail.${name} names no method of the ${inner.kind} store; expected one of ${methods.join(', ')}`,
        { option: `fail.${name}`, where: 'createMockStore' },
      );
    }
  }
  // Data properties (`kind`) read through, so the mock says what it wraps.
  for (const name of Object.keys(inner)) {
    if (methods.includes(name)) continue;
    Object.defineProperty(mock, name, {
      enumerable: true,
      get: () => (inner as Record<string, unknown>)[name],
    });
  }
  for (const name of methods) {
    const method = (inner as unknown as Record<string, (...args: unknown[]) => unknown>)[name];
    const failure = failures[name];
    const fail =
      failure === undefined
        ? undefined
        : answerer(failure, `createMockStore fail.${name}`, { value: undefined });
    const list: unknown[][] = [];
    calls[name] = list;
    mock[name] = async (...args: unknown[]) => {
      list.push(args);
      callOrder.push(name);
      await fail?.next(args);
      return method?.apply(inner, args);
    };
  }
  return Object.assign(mock, { calls, callOrder }) as unknown as MockStore<S>;
}
