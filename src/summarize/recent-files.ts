import type { EngineCache } from '../messages/engine-cache.ts';
import { toolArguments } from '../messages/tool-arguments.ts';
import type { Message, ToolResultPart } from '../messages/types.ts';
import { chatfoldMetadata, toolResultText } from '../projection/chatfold-metadata.ts';

/** A recently used file and, when known, its latest full content (SUM-8). */
export interface RecentFile {
  readonly path: string;
  /** Message holding the latest content (a read result or a write call). */
  readonly messageId: string;
  /** Latest full content; undefined when only partial views or edits are known. */
  readonly content?: string;
}

const PATH_KEYS = ['file_path', 'filePath', 'path', 'target_file', 'filename'];
const CONTENT_KEYS = ['content', 'file_text', 'text'];
const PARTIAL_KEYS = ['offset', 'limit', 'view_range', 'start_line', 'end_line', 'line_range'];
const WRITE_TOOL = /write|create/i;
const READ_TOOL = /read|view|open|cat/i;

/** Where an event happened: message index and part index, comparable as one number. */
const position = (message: number, part: number): number => message * 1_000_000 + part;

/**
 * The `limit` most recently read or written files, newest first, with the latest full
 * content chatfold saw for each (a full read's output or a full write's content).
 *
 * A file's latest event is a call naming it (a write carries its content) or, later, a full
 * read's result. The messages are read newest first and reading stops once `limit` files have
 * an event later than any result still waiting for its call, so a summary of a long span
 * costs what its recent files cost. A result pairs with the latest earlier call of its id.
 * `cache` keeps the parsed tool arguments between compactions.
 */
export function recentFiles(
  messages: readonly Message[],
  { limit = 10, cache }: { limit?: number; cache?: EngineCache | undefined } = {},
): RecentFile[] {
  if (limit <= 0) return [];
  /** Non-error results whose call is not reached yet: the latest per call id. */
  const pending = new Map<
    string,
    { at: number; messageId: string; part: ToolResultPart; isMasked: boolean }
  >();
  const best = new Map<string, { at: number; file: RecentFile }>();
  const settled = (): boolean => {
    if (best.size < limit) return false;
    let waiting = -1;
    for (const result of pending.values()) waiting = Math.max(waiting, result.at);
    let later = 0;
    for (const { at } of best.values()) if (at > waiting) later++;
    return later >= limit;
  };
  for (let m = messages.length - 1; m >= 0; m--) {
    const message = messages[m] as Message;
    for (let p = message.parts.length - 1; p >= 0; p--) {
      const part = message.parts[p] as Message['parts'][number];
      if (part.type === 'tool-result') {
        if (part.isError !== true && !pending.has(part.callId))
          pending.set(part.callId, {
            at: position(m, p),
            messageId: message.id,
            part,
            // A masked output is a placeholder, not the file.
            isMasked: chatfoldMetadata(message)?.transform === 'masked',
          });
        continue;
      }
      if (part.type !== 'tool-call') continue;
      const result = pending.get(part.id);
      pending.delete(part.id);
      const args = toolArguments(part, cache);
      const path = args && PATH_KEYS.map((key) => args[key]).find((v): v is string => typeof v === 'string');
      if (args === undefined || path === undefined) continue;
      const isRead = READ_TOOL.test(part.name) || args.command === 'view';
      const isPartial = PARTIAL_KEYS.some((key) => args[key] !== undefined);
      let event: { at: number; file: RecentFile };
      if (result !== undefined && isRead && !isPartial) {
        event = {
          at: result.at,
          file: {
            path,
            messageId: result.messageId,
            ...(result.isMasked ? {} : { content: toolResultText(result.part) }),
          },
        };
      } else {
        const content = CONTENT_KEYS.map((key) => args[key]).find((v): v is string => typeof v === 'string');
        // A call whose inputs `mask` shrank holds a marker, not the file: only the path is known.
        const isFullWrite =
          (WRITE_TOOL.test(part.name) || args.command === 'create') &&
          chatfoldMetadata(message)?.transform !== 'masked';
        event = {
          at: position(m, p),
          file: { path, messageId: message.id, ...(isFullWrite && content !== undefined ? { content } : {}) },
        };
      }
      const known = best.get(path);
      if (known === undefined || known.at < event.at) best.set(path, event);
    }
    if (settled()) break;
  }
  return [...best.values()]
    .sort((a, b) => b.at - a.at)
    .slice(0, limit)
    .map(({ file }) => file);
}
