import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { valueAt } from '../messages/provider-input.ts';
import { didYouMean } from './did-you-mean.ts';

/** A value zod cannot describe but we can check: a function, an object with methods. */
export const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === 'function', { message: `expected ${what} (a function)` });

/** An object that has every listed method. */
export const withMethods = <T>(what: string, methods: readonly string[]) =>
  z.custom<T>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      methods.every((name) => typeof (value as Record<string, unknown>)[name] === 'function'),
    { message: `expected ${what} (an object with ${methods.join(', ')})` },
  );

/**
 * A schema whose value is described by a type defined elsewhere (a `ToolDefinition`, a preset
 * name union): zod checks the shape at run time, the type names what it is.
 */
export const typed = <T>(schema: z.ZodType) => schema as unknown as z.ZodType<T>;

/**
 * The type of an options object from the schemas of its keys: every key optional and
 * read-only, and absent rather than `undefined` (`exactOptionalPropertyTypes`). Run time still
 * accepts a key given as `undefined`, as JavaScript callers spread them. Doc comments on the
 * shape's keys are the options' docs.
 */
export type OptionsOf<S extends Record<string, z.ZodType>> = {
  readonly [K in keyof S]?: Exclude<z.output<S[K]>, undefined>;
};

/** A strict object schema of options (unknown keys fail) whose value type is {@link OptionsOf} its shape. */
export const optionsObject = <S extends Record<string, z.ZodType>>(shape: S) =>
  typed<OptionsOf<S>>(z.strictObject(shape));

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

/** The keys an object schema accepts at `path` (through optional, nullable and default wrappers). */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const unwrap = (type: z.ZodType | undefined): z.ZodType | undefined => {
    let current = type;
    for (let depth = 0; depth < 5 && current !== undefined; depth++) {
      const inner = (current as { unwrap?: () => z.ZodType }).unwrap;
      if (typeof inner !== 'function') break;
      current = inner.call(current);
    }
    return current;
  };
  let current = unwrap(schema);
  for (const key of path) {
    current = unwrap((current as { shape?: Record<string, z.ZodType> } | undefined)?.shape?.[String(key)]);
  }
  return Object.keys((current as { shape?: Record<string, unknown> } | undefined)?.shape ?? {});
}

/**
 * Checks options when they are given (bad configuration fails loudly, at construction):
 * throws `E_INVALID_OPTIONS` naming the option, what was expected and what was received.
 * Returns the input itself (the schemas only check).
 *
 * @param where the function the options belong to, e.g. `compact`
 */
export function parseOptions<T>(schema: z.ZodType, input: unknown, where: string): T {
  if (input === undefined) return {} as T;
  const result = schema.safeParse(input);
  if (result.success) return input as T;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  const path = issue.path.map(String).join('.');
  let message: string;
  if (issue.code === 'unrecognized_keys') {
    const known = keysAt(schema, issue.path);
    message = `unknown option${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"${didYouMean(key, known)}`).join(', ')}${path === '' ? '' : ` in ${path}`}`;
  } else {
    const value = valueAt(input, issue.path);
    message = `${path === '' ? 'options' : path}: ${issue.message.replace(/^Invalid input: /, '').replace(/, received [^,]*$/, '')}, received ${value === undefined ? 'nothing' : describe(value)}`;
  }
  throw new ChatfoldError('E_INVALID_OPTIONS', `${where}: ${message}`, {
    option: path,
    where,
  });
}
