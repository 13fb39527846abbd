import { normalizeMessages } from '../../src/messages/normalize.ts';
import type { Message, MessageInput } from '../../src/messages/types.ts';
import type { PrepareOptions, Session, SessionUsage } from '../../src/session/types.ts';
import type { StoredMessage } from '../../src/stores/types.ts';

/** A `Session` double for the integrations' unit tests: what was appended, prepared and recorded. */
export interface RecordingSession extends Session {
  /** Stored rows; ids are `r0`, `r1`, … in append order. */
  readonly rows: StoredMessage[];
  /** One entry per `append` call. */
  readonly appended: Message[][];
  readonly prepared: PrepareOptions[];
  readonly usage: SessionUsage[];
}

/**
 * A session that stores what is appended and prepares all of it, uncompacted (compaction is the
 * real session's business; these tests check what the integration hands it).
 */
export function createRecordingSession(id = 's1'): RecordingSession {
  const rows: StoredMessage[] = [];
  const appended: Message[][] = [];
  const prepared: PrepareOptions[] = [];
  const usage: SessionUsage[] = [];
  return {
    id,
    rows,
    appended,
    prepared,
    usage,
    async append(input: MessageInput | readonly MessageInput[]) {
      const list = (Array.isArray(input) ? input : [input]) as MessageInput[];
      const messages = normalizeMessages(
        list.map((message, i) => ({ ...message, id: `r${rows.length + i}` })),
      );
      for (const message of messages)
        rows.push({ sessionId: id, seq: rows.length + 1, message, storedAt: '' });
      appended.push(messages);
      return messages;
    },
    async prepare(options = {}) {
      prepared.push(options);
      return {
        messages: rows.map((row) => row.message),
        report: {} as never,
        tokens: 0,
        cachedPrefixTokens: 0,
      };
    },
    async recordUsage(recorded) {
      usage.push(recorded);
    },
    compact: async () => ({}) as never,
    status: async () => ({}) as never,
    history: async () => rows.map((row) => ({ ...row, status: 'in-context' as const })),
    compactions: async () => [],
    precompact: async () => ({}) as never,
    on: () => () => undefined,
  };
}
