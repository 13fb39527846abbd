/**
 * Maps a request's full history to a stored session and the messages it does not hold yet
 * (issue 21). The session's content keys are kept per process and caught up from the store with
 * one `seq` range query per request, so a request costs O(new messages) in the store, and
 * several gateway instances on one database see each other's appends.
 */
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { contentHash } from '../messages/content-hash.ts';
import type { Message } from '../messages/types.ts';
import type { Store } from '../stores/types.ts';
import { commonPrefixLength, messageKey } from './conversation-key.ts';

/** Branches followed from one root before a request gets a session of its own. */
export const MAX_BRANCH_DEPTH = 32;

/** Where a request's conversation lives. */
export interface ConversationMatch {
  /** The session to append to and prepare. */
  readonly sessionId: string;
  /** The request's messages the session does not hold yet, in order, with stable ids. */
  readonly newMessages: readonly Message[];
  /** Set when the request's history differs from the session it was first mapped to (an edit, a regenerate). */
  readonly branchedFrom?: string;
  /** The request's content keys (to check the reply's position later). */
  readonly keys: readonly string[];
}

/** Options of {@link createConversationMap}. */
export interface ConversationMapOptions {
  readonly store: Store;
  /** Sessions whose keys are kept in memory. Default 1,000. */
  readonly maxCached?: number;
}

interface KnownSession {
  readonly keys: string[];
}

/** The request-to-session map of one gateway process. */
export interface ConversationMap {
  /**
   * The session whose stored history is a prefix of `messages`, starting at `rootId`: the root
   * itself, or a branch of it (created on first use) where the history diverged.
   */
  match(rootId: string, messages: readonly Message[]): Promise<ConversationMatch>;
  /** The content keys a session holds now (caught up from the store). */
  keys(sessionId: string): Promise<readonly string[]>;
  /** Runs `task` alone among the calls for the same root (one process). */
  exclusive<T>(rootId: string, task: () => Promise<T>): Promise<T>;
}

/**
 * A stable id for the message at `index` of a session: two gateway instances appending the same
 * message at the same place write one row (stores ignore an id they already hold).
 */
export function gatewayMessageId(sessionId: string, index: number, key: string): string {
  return `gw-${contentHash(`${sessionId}\n${index}\n${key}`)}`;
}

/**
 * Creates the map.
 *
 * @param options The store sessions live in.
 * @returns {@link ConversationMap}.
 */
export function createConversationMap({ store, maxCached = 1_000 }: ConversationMapOptions): ConversationMap {
  const cache = new LRUCache<string, KnownSession>({ max: maxCached });
  // A conversation's unchanged messages are the same objects from one request to the next (the
  // history cache reuses them): each is hashed once. Messages are immutable; nothing is kept alive.
  const keyed = new WeakMap<Message, string>();
  const keyOf = (message: Message): string => {
    let key = keyed.get(message);
    if (key === undefined) {
      key = messageKey(message);
      keyed.set(message, key);
    }
    return key;
  };
  const locks = new Map<string, Promise<unknown>>();

  const keysOf = async (sessionId: string): Promise<string[]> => {
    let known = cache.get(sessionId);
    if (known === undefined) {
      known = { keys: [] };
      cache.set(sessionId, known);
    }
    const rows = await store.messages(sessionId, { afterSeq: known.keys.length });
    for (const row of rows) {
      // seq is 1, 2, 3, … without gaps: a row the cache already holds is not added twice.
      if (row.seq === known.keys.length + 1) known.keys.push(messageKey(row.message));
    }
    return known.keys;
  };

  const match = async (rootId: string, messages: readonly Message[]): Promise<ConversationMatch> => {
    const keys = messages.map(keyOf);
    let sessionId = rootId;
    let branchedFrom: string | undefined;
    for (let depth = 0; ; depth++) {
      const held = await keysOf(sessionId);
      const shared = commonPrefixLength(held, keys);
      if (shared === held.length) {
        const newMessages = messages.slice(shared).map((message, offset) => ({
          ...message,
          id: gatewayMessageId(sessionId, shared + offset, keys[shared + offset] ?? ''),
        }));
        return { sessionId, newMessages, keys, ...(branchedFrom === undefined ? {} : { branchedFrom }) };
      }
      branchedFrom ??= sessionId;
      // The branch is named by where it left its parent and what came before, so the next
      // request of the same branch finds it again.
      sessionId =
        depth + 1 >= MAX_BRANCH_DEPTH
          ? `${rootId.slice(0, 128)}~${randomUUID()}`
          : `${rootId.slice(0, 128)}~${contentHash(`${sessionId}\n${shared}\n${keys.slice(0, shared).join(',')}`)}`;
    }
  };

  return {
    match,
    keys: keysOf,
    exclusive: <T>(rootId: string, task: () => Promise<T>): Promise<T> => {
      const previous = locks.get(rootId) ?? Promise.resolve();
      const run = previous.then(task, task);
      const settled = run.catch(() => undefined);
      locks.set(rootId, settled);
      void settled.then(() => {
        if (locks.get(rootId) === settled) locks.delete(rootId);
      });
      return run;
    },
  };
}
