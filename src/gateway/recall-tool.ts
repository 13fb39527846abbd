/**
 * `chatfold_recall` (issue 21): compaction the model can undo. Offered as a tool, it answers
 * from the session's full history — which keeps every message, also the ones summarized,
 * masked or dropped from the prompt — by message ids or by a text query. The gateway answers it
 * itself, without a round trip to the client; library users can offer the same tool.
 */
import type { Message, ToolDefinition } from '../messages/types.ts';
import type { HistoryEntry, Session } from '../session/types.ts';

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
});

/** The tool in neutral form. */
export const recallToolDefinition: ToolDefinition = Object.freeze({
  name: RECALL_TOOL_NAME,
  description:
    'Look up earlier messages of this conversation that were summarized, shortened or left out to fit the context window. Give the ids a summary or placeholder names, or a text query to search the full history. Returns the original messages.',
  parameters: {
    type: 'object',
    properties: {
      ids: {
        type: 'array',
        items: { type: 'string' },
        description: 'Message ids named in a summary or placeholder.',
      },
      query: { type: 'string', description: 'Words to find in earlier messages (case-insensitive).' },
      limit: { type: 'integer', minimum: 1, maximum: RECALL_LIMITS.maxMessages },
    },
    additionalProperties: false,
  },
});

/** The tool as an OpenAI Chat Completions `tools[]` entry. */
export const openAIRecallTool = Object.freeze({
  type: 'function' as const,
  function: {
    name: recallToolDefinition.name,
    description: recallToolDefinition.description as string,
    parameters: recallToolDefinition.parameters,
  },
});

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
  const idList = Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  const text = typeof query === 'string' && query.trim() !== '' ? query.trim() : undefined;
  if (idList.length === 0 && text === undefined) {
    return 'chatfold_recall: give "ids" (from a summary or placeholder) or a "query" to search the history';
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

/**
 * Answers one `chatfold_recall` call from a session's full history.
 *
 * @param session The conversation's session.
 * @param input The call's arguments (JSON text or an object).
 * @returns The tool result text: the messages found (oldest first), or why none were.
 */
export async function answerRecall(session: Session, input: unknown): Promise<string> {
  const args = readArguments(input);
  if (typeof args === 'string') return args;
  const found = new Map<number, HistoryEntry>();
  if (args.ids.length > 0) {
    const wanted = new Set(args.ids);
    for (const entry of await session.history())
      if (wanted.has(entry.message.id)) found.set(entry.seq, entry);
  }
  if (args.query !== undefined) {
    for (const entry of await session.history({ text: args.query, limit: args.limit }))
      found.set(entry.seq, entry);
  }
  const entries = [...found.values()].sort((a, b) => a.seq - b.seq).slice(-args.limit);
  if (entries.length === 0) {
    return `chatfold_recall: nothing found for ${JSON.stringify(args.ids.length > 0 ? { ids: args.ids } : { query: args.query })}`;
  }
  const parts: string[] = [];
  let size = 0;
  for (const entry of entries) {
    const piece = render(entry);
    if (size + piece.length > RECALL_LIMITS.maxChars) {
      parts.push(
        `[${entries.length - parts.length} more messages not shown: narrow the query or ask for fewer ids]`,
      );
      break;
    }
    parts.push(piece);
    size += piece.length;
  }
  return parts.join('\n\n');
}
