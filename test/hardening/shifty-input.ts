/**
 * Inputs that change between reads (issue 24 §2): a value wrapped so that every object in it
 * is a `Proxy` that counts each property read and may answer a later read differently from
 * the first — the shape an attack uses to pass an entry check with one value and have another
 * one converted or stored.
 */

// biome-ignore lint/suspicious/noExplicitAny: the point is to build values the types forbid.
type Loose = any;

/** What a read after the first returns. */
export type Lie =
  | 'honest'
  | 'null'
  | 'number'
  | 'string'
  | 'empty-object'
  | 'empty-array'
  | 'undefined'
  | 'throws'
  | 'deep';

export const LIES: readonly Lie[] = [
  'null',
  'number',
  'string',
  'empty-object',
  'empty-array',
  'undefined',
  'throws',
  'deep',
];

/** Counts of reads, by object and key, across one wrapped value. */
export interface ReadLog {
  /** Most reads of any one property. */
  readonly most: () => number;
  /** All reads. */
  readonly total: () => number;
}

function lieValue(lie: Lie, honest: unknown): unknown {
  switch (lie) {
    case 'honest':
      return honest;
    case 'null':
      return null;
    case 'number':
      return 42;
    case 'string':
      return 'changed';
    case 'empty-object':
      return {};
    case 'empty-array':
      return [];
    case 'undefined':
      return undefined;
    case 'throws':
      throw new TypeError('this property changed its mind');
    case 'deep': {
      let value: Loose = 1;
      for (let i = 0; i < 10_000; i++) value = [value];
      return value;
    }
  }
}

/**
 * `value` with every object and array behind a counting proxy. The first read of each
 * property answers honestly; reads after it answer with `lie` (or honestly for `'honest'`).
 * With `firstLie` set, the `firstLie`-th read overall (counting from 1) lies already, so the
 * very first look at one property is the odd one.
 */
export function shifty(value: unknown, lie: Lie, firstLie?: number): { value: unknown; log: ReadLog } {
  const counts = new Map<object, Map<PropertyKey, number>>();
  let total = 0;
  const wrap = (inner: unknown): unknown => {
    if (typeof inner !== 'object' || inner === null || ArrayBuffer.isView(inner)) return inner;
    const own = new Map<PropertyKey, number>();
    counts.set(inner, own);
    const wrapped = new Map<object, unknown>();
    return new Proxy(inner, {
      get(target, key, receiver) {
        const honest = Reflect.get(target, key, receiver);
        if (typeof key === 'symbol' || typeof honest === 'function') return honest;
        total++;
        const n = (own.get(key) ?? 0) + 1;
        own.set(key, n);
        if (n > 1 || total === firstLie) return lieValue(lie, wrapOnce(honest));
        return wrapOnce(honest);
      },
    });
    function wrapOnce(item: unknown): unknown {
      const key = item as object;
      if (typeof item !== 'object' || item === null) return item;
      if (!wrapped.has(key)) wrapped.set(key, wrap(item));
      return wrapped.get(key);
    }
  };
  return {
    value: wrap(value),
    log: {
      most: () => {
        let most = 0;
        for (const own of counts.values()) for (const n of own.values()) most = Math.max(most, n);
        return most;
      },
      total: () => total,
    },
  };
}

/**
 * An array of length `length` with `entries` at its first indexes and holes after, behind a
 * proxy counting reads of its indexes: a walk over the length shows up in the count.
 */
export function sparse(
  entries: readonly unknown[],
  length: number,
): { value: unknown[]; reads: () => number } {
  const array: unknown[] = [];
  array.length = length;
  entries.forEach((entry, index) => {
    array[index] = entry;
  });
  let reads = 0;
  const value = new Proxy(array, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.has(target, key);
    },
  });
  return { value, reads: () => reads };
}
