/**
 * `chatfold_recall` (issue 21): compaction the model can undo. Offered as a tool, it answers
 * from a session's full history — which keeps every message, also the ones summarized, masked,
 * superseded or left out of the prompt — by the ids a stub, placeholder, marker or summary
 * names (one id, or a span `first..last`), or by a text query. The gateway answers it itself;
 * `createAgent({ recall: true })` offers it; library users offer the definition and call
 * {@link answerRecall} with the model's arguments.
 */
import type { Message, ToolDefinition } from '../messages/types.ts';
import { ID_SPAN_SEPARATOR, parseIdSpan } from '../projection/id-span.ts';
import type { HistoryEntry, Session } from './types.ts';

/** The tool's name. */
export const RECALL_TOOL_NAME = 'chatfold_recall';

/** Limits of one recall answer. */
export const RECALL_LIMITS = Object.freeze({
  /** Messages returned at most. */
  maxMessages: 20,
  /** Characters of the answer at most (about 3,000 tokens): a recall must not overflow the window itself. */
  maxChars: 12_000,
  /** Characters of one message at most. */
  maxMessageChars: 4_000,
  /** Spans named in a "more" note at most. */
  maxContinuation: 20,
});

/** The tool in neutral form (JSON Schema parameters). */
export const recallToolDefinition: ToolDefinition = Object.freeze({
  name: RECALL_TOOL_NAME,
  description:
    'Look up earlier messages of this conversation that were summarized, shortened or left out to fit the context window. Give the ids a summary, marker or placeholder names (one id, or a span "first..last" as written), or a text query to search the full history. Returns the original messages, oldest first; when more remain, the answer says which ids to ask for next.',
  parameters: {
    type: 'object',
    properties: {
      ids: {
        type: 'array',
        items: { type: 'string' },
        description: 'Message ids or spans ("first..last") named in a summary, marker or placeholder.',
      },
      query: { type: 'string', description: 'Words to find in earlier messages (case-insensitive).' },
      limit: { type: 'integer', minimum: 1, maximum: RECALL_LIMITS.maxMessages },
    },
    additionalProperties: false,
  },
});

/** What a recall reads: a session, or anything with its `history`. */
export type RecallSource = Pick<Session, 'history'>;

/** What the model may send. */
interface RecallArguments {
  readonly ids: readonly string[];
  readonly query: string | undefined;
  readonly limit: number;
}

function readArguments(input: unknown): RecallArguments | string {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input === '' ? '{}' : input);
    } catch {
      return 'chatfold_recall: the arguments are not JSON; send {"ids": [...]} or {"query": "..."}';
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'chatfold_recall: expected an object {"ids": [...]} or {"query": "..."}';
  }
  const { ids, query, limit } = value as { ids?: unknown; query?: unknown; limit?: unknown };
  // One id given as a string is taken as a list of one.
  const idList = (typeof ids === 'string' ? [ids] : Array.isArray(ids) ? ids : [])
    .filter((id): id is string => typeof id === 'string')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const text = typeof query === 'string' && query.trim() !== '' ? query.trim() : undefined;
  if (idList.length === 0 && text === undefined) {
    return 'chatfold_recall: give "ids" (from a summary, marker or placeholder) or a "query" to search the history';
  }
  const count =
    typeof limit === 'number' && Number.isInteger(limit) && limit > 0
      ? Math.min(limit, RECALL_LIMITS.maxMessages)
      : RECALL_LIMITS.maxMessages;
  return { ids: idList, query: text, limit: count };
}

/** A message's content as text: its words, tool calls as `name(arguments)`, tool results. */
function messageText(message: Message): string {
  const pieces: string[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') pieces.push(part.text);
    else if (part.type === 'tool-call') pieces.push(`→ ${part.name}(${part.arguments}) [call ${part.id}]`);
    else if (part.type === 'tool-result') {
      const content = part.content.map((inner) =>
        inner.type === 'text' ? inner.text : `[${inner.kind} ${inner.filename ?? inner.mediaType}]`,
      );
      pieces.push(
        `[result of ${part.toolName ?? 'call'} ${part.callId}${part.isError === true ? ', error' : ''}] ${content.join('\n')}`,
      );
    } else if (part.type === 'attachment') pieces.push(`[${part.kind} ${part.filename ?? part.mediaType}]`);
  }
  return pieces.join('\n');
}

/** One stored message as the model reads it back. */
function render(entry: HistoryEntry): string {
  const text = messageText(entry.message);
  const clipped =
    text.length > RECALL_LIMITS.maxMessageChars
      ? `${text.slice(0, RECALL_LIMITS.maxMessageChars)}… [${text.length - RECALL_LIMITS.maxMessageChars} more characters]`
      : text;
  return `[#${entry.seq} ${entry.message.role} id=${entry.message.id} ${entry.status}]\n${clipped}`;
}

/** The positions (in history order) an id or span names; undefined when an end is unknown. */
function positionsOf(reference: string, indexOf: ReadonlyMap<string, number>): number[] | undefined {
  const exact = indexOf.get(reference);
  if (exact !== undefined) return [exact];
  if (!reference.includes(ID_SPAN_SEPARATOR)) return undefined;
  const { firstId, lastId } = parseIdSpan(reference);
  const from = indexOf.get(firstId);
  const to = indexOf.get(lastId);
  if (from === undefined || to === undefined) return undefined;
  const [low, high] = from <= to ? [from, to] : [to, from];
  return Array.from({ length: high - low + 1 }, (_, i) => low + i);
}

/**
 * The entries not shown, as ids and spans of consecutive messages (what to ask for next); past
 * {@link RECALL_LIMITS}`.maxContinuation` spans, the last one runs to the end (it may include
 * messages between the matches, but nothing is out of reach).
 */
function continuation(rest: readonly number[], history: readonly HistoryEntry[]): string[] {
  const runs: [number, number][] = [];
  for (const position of rest) {
    const last = runs.at(-1);
    if (last !== undefined && last[1] === position - 1) last[1] = position;
    else runs.push([position, position]);
  }
  const max = RECALL_LIMITS.maxContinuation;
  if (runs.length > max)
    runs.splice(max - 1, runs.length, [(runs[max - 1] as [number, number])[0], rest.at(-1) as number]);
  const idAt = (position: number): string => (history[position] as HistoryEntry).message.id;
  return runs.map(([from, to]) =>
    from === to ? idAt(from) : `${idAt(from)}${ID_SPAN_SEPARATOR}${idAt(to)}`,
  );
}

/**
 * Answers one `chatfold_recall` call from a session's full history: the messages the ids and
 * spans name and those the query finds, oldest first, at most `limit` and
 * {@link RECALL_LIMITS}`.maxChars`; when more remain, a last line names their ids, so asking
 * again with them reaches every message.
 *
 * @param session The conversation's session (or anything with its `history`).
 * @param input The call's arguments (JSON text or an object): `{ ids?, query?, limit? }`.
 * @returns The tool result text: the messages found, or why none were.
 *
 * @example
 * const text = await answerRecall(session, { ids: ['gw-1a2b..gw-9f8e'] });
 */
export async function answerRecall(session: RecallSource, input: unknown): Promise<string> {
  const args = readArguments(input);
  if (typeof args === 'string') return args;
  const history = await session.history();
  const indexOf = new Map(history.map((entry, index) => [entry.message.id, index]));
  const found = new Set<number>();
  const unknown: string[] = [];
  for (const reference of args.ids) {
    const positions = positionsOf(reference, indexOf);
    if (positions === undefined) unknown.push(reference);
    else for (const position of positions) found.add(position);
  }
  if (args.query !== undefined) {
    for (const entry of await session.history({ text: args.query })) {
      const position = indexOf.get(entry.message.id);
      if (position !== undefined) found.add(position);
    }
  }
  const notFound = unknown.length === 0 ? '' : `[not in this conversation's history: ${unknown.join(', ')}]`;
  const positions = [...found].sort((a, b) => a - b);
  if (positions.length === 0) {
    const asked = args.ids.length > 0 ? { ids: args.ids } : { query: args.query };
    return `chatfold_recall: nothing found for ${JSON.stringify(args.ids.length > 0 && args.query !== undefined ? { ...asked, query: args.query } : asked)}`;
  }
  const parts: string[] = [];
  let size = 0;
  let shown = 0;
  for (const position of positions) {
    if (shown >= args.limit) break;
    const piece = render(history[position] as HistoryEntry);
    // The first message is always shown (clipped to maxMessageChars), so asking again progresses.
    if (shown > 0 && size + piece.length > RECALL_LIMITS.maxChars) break;
    parts.push(piece);
    size += piece.length;
    shown++;
  }
  const rest = positions.slice(shown);
  if (rest.length > 0) {
    parts.push(
      `[${rest.length} more message${rest.length === 1 ? '' : 's'} not shown: ask for ids ${JSON.stringify(continuation(rest, history))}]`,
    );
  }
  if (notFound !== '') parts.push(notFound);
  return parts.join('\n\n');
}
