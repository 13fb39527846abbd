import { ChatfoldError } from '../errors/chatfold-error.ts';
import { contentHash } from './content-hash.ts';
import type { Message, MessageInput, Part, Role } from './types.ts';
import { ROLES } from './types.ts';

/** Largest message chatfold accepts by default, in UTF-16 code units (MSG-4). */
export const DEFAULT_MAX_MESSAGE_CHARS = 16 * 1024 * 1024;

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
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Checks a role string; throws `E_UNKNOWN_ROLE` for anything else. */
export function checkRole(role: unknown, where: string): Role {
  if (typeof role === 'string' && (ROLES as readonly string[]).includes(role)) return role as Role;
  throw new ChatfoldError(
    'E_UNKNOWN_ROLE',
    `${where}: unknown role ${JSON.stringify(role)}; expected one of ${ROLES.join(', ')}`,
    { where, role: typeof role === 'string' ? role : describe(role) },
  );
}

/** Checks that tool-call arguments are JSON text; throws `E_INVALID_TOOL_ARGUMENTS` otherwise. */
export function checkToolArguments(text: string, where: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch (cause) {
    const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    throw new ChatfoldError(
      'E_INVALID_TOOL_ARGUMENTS',
      `${where}: tool call arguments are not valid JSON (received ${JSON.stringify(preview)})`,
      { where, arguments: preview },
      { cause },
    );
  }
}

/** Total characters of text a message carries (text, reasoning, arguments, results). */
export function messageChars(parts: readonly Part[]): number {
  let total = 0;
  for (const part of parts) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        total += part.text.length;
        break;
      case 'tool-call':
        total += part.arguments.length + part.name.length;
        break;
      case 'tool-result':
        for (const inner of part.content) if (inner.type === 'text') total += inner.text.length;
        break;
      case 'attachment':
        total += part.data?.length ?? 0;
        break;
    }
  }
  return total;
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
 * Fills in ids and timestamps, checks roles and sizes, and cleans text (MSG-1, MSG-4).
 * Returns new objects; the input is not mutated. Converters call this on their output.
 */
export function normalizeMessages(input: readonly MessageInput[], options: NormalizeOptions = {}): Message[] {
  if (!Array.isArray(input)) {
    throw new ChatfoldError(
      'E_INVALID_MESSAGES',
      `expected an array of messages, received ${describe(input)}`,
      {},
    );
  }
  const maxChars = options.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
  const now = options.now ?? (() => new Date());
  const seen = new Map<string, number>();
  let stamp: string | undefined;
  return input.map((message, index) => {
    const where = `messages[${index}]`;
    if (typeof message !== 'object' || message === null) {
      throw new ChatfoldError(
        'E_INVALID_MESSAGE',
        `${where}: expected a message object, received ${describe(message)}`,
        {
          index,
        },
      );
    }
    const role = checkRole(message.role, `${where}.role`);
    const rawParts: unknown = message.parts;
    if (!Array.isArray(rawParts)) {
      throw new ChatfoldError(
        'E_INVALID_MESSAGE',
        `${where}.parts: expected an array, received ${describe(rawParts)}`,
        {
          index,
        },
      );
    }
    const parts = (rawParts as readonly Part[]).map((part, partIndex) =>
      cleanPart(part, `${where}.parts[${partIndex}]`, options),
    );
    const chars = messageChars(parts);
    if (chars > maxChars) {
      throw new ChatfoldError(
        'E_MESSAGE_TOO_LARGE',
        `${where}: message has ${chars} characters, more than the limit of ${maxChars}; raise maxMessageChars or clip the content before adding it`,
        { index, actual: chars, limit: maxChars },
      );
    }
    let id = message.id;
    if (id === undefined) {
      const base = deriveMessageId(
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
    if (message.id === undefined) derivedIds.add(normalized);
    return normalized;
  });
}

const derivedIds = new WeakSet<Message>();

/**
 * True when `message` (the very object `normalizeMessages` or a converter returned) got its id
 * from its content because the source had none. Such ids are the same for the same content, so
 * a session gives these messages ids of their own when they are appended: two identical
 * replies stay two messages.
 */
export function hasDerivedId(message: Message): boolean {
  return derivedIds.has(message);
}

function cleanPart(part: Part, where: string, options: NormalizeOptions): Part {
  if (typeof part !== 'object' || part === null) {
    throw new ChatfoldError(
      'E_INVALID_MESSAGE',
      `${where}: expected a part object, received ${describe(part)}`,
      { where },
    );
  }
  switch (part.type) {
    case 'text':
      return { ...part, text: cleanText(part.text, `${where}.text`, options) };
    case 'reasoning':
      return { ...part, text: cleanText(part.text, `${where}.text`, options) };
    case 'tool-call':
      return {
        ...part,
        name: cleanText(part.name, `${where}.name`, options),
        arguments: checkToolArguments(cleanText(part.arguments, `${where}.arguments`, options), where),
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
    default:
      throw new ChatfoldError(
        'E_INVALID_MESSAGE',
        `${where}.type: unknown part type ${JSON.stringify((part as { type: unknown }).type)}; expected text, attachment, tool-call, tool-result or reasoning`,
        { where },
      );
  }
}
