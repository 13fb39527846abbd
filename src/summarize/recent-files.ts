import { toolArguments } from '../messages/tool-arguments.ts';
import type { JsonValue, Message } from '../messages/types.ts';

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

/**
 * The `limit` most recently read or written files, newest first, with the latest full
 * content chatfold saw for each (a full read's output or a full write's content).
 */
export function recentFiles(
  messages: readonly Message[],
  { limit = 10 }: { limit?: number } = {},
): RecentFile[] {
  const calls = new Map<string, { path: string; name: string; args: Readonly<Record<string, JsonValue>> }>();
  const latest = new Map<string, RecentFile>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'tool-call') {
        const args = toolArguments(part);
        const path =
          args && PATH_KEYS.map((key) => args[key]).find((v): v is string => typeof v === 'string');
        if (args === undefined || path === undefined) continue;
        calls.set(part.id, { path, name: part.name, args });
        const content = CONTENT_KEYS.map((key) => args[key]).find((v): v is string => typeof v === 'string');
        latest.delete(path);
        const isFullWrite = WRITE_TOOL.test(part.name) || args.command === 'create';
        latest.set(path, {
          path,
          messageId: message.id,
          ...(isFullWrite && content !== undefined ? { content } : {}),
        });
      } else if (part.type === 'tool-result' && part.isError !== true) {
        const call = calls.get(part.callId);
        if (call === undefined) continue;
        const isRead = READ_TOOL.test(call.name) || call.args.command === 'view';
        const isPartial = PARTIAL_KEYS.some((key) => call.args[key] !== undefined);
        if (!isRead || isPartial) continue;
        const text = part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join('');
        latest.delete(call.path);
        latest.set(call.path, { path: call.path, messageId: message.id, content: text });
      }
    }
  }
  return [...latest.values()].reverse().slice(0, limit);
}
