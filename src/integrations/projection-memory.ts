/**
 * What a stateless integration remembers between calls (issue 19 §2): apps resend their whole
 * history on every call, and without memory every call would compact it from scratch — a new
 * LLM summary of the whole history per request. The fitter remembers, per conversation, the
 * history it was given and the projection it sent; a later request whose history starts with
 * the remembered one is answered from that projection plus the new messages, which is then
 * decided on like a session's prompt. A summary is made once and reused until the next
 * compaction is due, and the prefix sent stays byte-stable between compactions.
 */
import { deriveMessageId, hasDerivedId } from '../messages/normalize.ts';
import type { Message } from '../messages/types.ts';
import { INITIAL_LOOP_GUARD, type LoopGuardState } from '../policy/loop-guard.ts';

/**
 * What identifies a message's content: the id a converter derived from it (the integrations'
 * case: provider formats carry no ids), else the caller's id together with a content hash, so
 * an edited message never matches its old self.
 */
function fingerprintOf(message: Message, known: WeakMap<Message, string>): string {
  if (hasDerivedId(message)) return message.id;
  // Messages are immutable values (the counters' per-object caches assume it too): hashed once.
  let fingerprint = known.get(message);
  if (fingerprint === undefined) {
    fingerprint = `${message.id}\u0000${deriveMessageId(message, 0)}`;
    known.set(message, fingerprint);
  }
  return fingerprint;
}

/** A history seen before, extended: the remembered projection followed by the new messages. */
export interface RecalledProjection {
  readonly messages: readonly Message[];
  /** How many messages of the request the remembered projection stands for. */
  readonly covered: number;
  /** The conversation's loop guard (TRG-5), as remembered with the projection. */
  readonly guard: LoopGuardState;
}

/** Remembered projections of one fitter, bounded (no module-level state). */
export interface ProjectionMemory {
  /**
   * The remembered projection of the longest remembered history that `messages` starts with
   * (same ids in the same order), with the messages after it appended; `undefined` when none.
   */
  recall(scope: string, messages: readonly Message[]): RecalledProjection | undefined;
  /**
   * Remembers that `projection` stands for `messages`, with the conversation's loop guard
   * (default: none waiting). Replaces the entry it was recalled from (the same conversation,
   * one turn further); the least recently used entry goes when full.
   */
  remember(
    scope: string,
    messages: readonly Message[],
    projection: readonly Message[],
    recalled?: RecalledProjection,
    guard?: LoopGuardState,
  ): void;
  /**
   * Replaces the loop guard of the entry `recalled` came from, keeping its history and
   * projection (a compaction of its continuation threw: nothing new was sent to remember).
   */
  rememberGuard(recalled: RecalledProjection, guard: LoopGuardState): void;
  /** Entries held now (tests). */
  readonly size: number;
}

interface Entry {
  readonly scope: string;
  /** Fingerprints of the history the projection stands for. */
  readonly ids: readonly string[];
  readonly projection: readonly Message[];
  readonly guard: LoopGuardState;
}

/**
 * Creates a memory of at most `maxConversations` projections. Memory is bounded by that many
 * projections (each at most a window) and their histories' ids.
 *
 * @param maxConversations Conversations remembered; at least 1.
 */
export function createProjectionMemory(maxConversations: number): ProjectionMemory {
  const max = Math.max(1, Math.floor(maxConversations));
  // Insertion order is recency: a recalled entry is moved to the end.
  let entries: Entry[] = [];
  const recalledFrom = new WeakMap<RecalledProjection, Entry>();
  const fingerprints = new WeakMap<Message, string>();
  const fingerprint = (message: Message) => fingerprintOf(message, fingerprints);
  const startsWith = (messages: readonly Message[], ids: readonly string[]): boolean => {
    if (ids.length === 0 || messages.length < ids.length) return false;
    // The last message first: a different conversation almost always differs there.
    const last = messages[ids.length - 1] as Message;
    if (fingerprint(last) !== ids[ids.length - 1]) return false;
    for (let i = 0; i < ids.length - 1; i++) if (fingerprint(messages[i] as Message) !== ids[i]) return false;
    return true;
  };
  return {
    recall(scope, messages) {
      let best: Entry | undefined;
      for (const entry of entries) {
        if (entry.scope !== scope || (best !== undefined && entry.ids.length <= best.ids.length)) continue;
        if (startsWith(messages, entry.ids)) best = entry;
      }
      if (best === undefined) return undefined;
      const found = best;
      entries = [...entries.filter((entry) => entry !== found), found];
      const recalled: RecalledProjection = {
        messages:
          messages.length === found.ids.length
            ? found.projection
            : [...found.projection, ...messages.slice(found.ids.length)],
        covered: found.ids.length,
        guard: found.guard,
      };
      recalledFrom.set(recalled, found);
      return recalled;
    },
    remember(scope, messages, projection, recalled, guard = INITIAL_LOOP_GUARD) {
      const previous = recalled === undefined ? undefined : recalledFrom.get(recalled);
      entries = entries.filter((entry) => entry !== previous);
      entries.push({ scope, ids: messages.map(fingerprint), projection, guard });
      if (entries.length > max) entries = entries.slice(entries.length - max);
    },
    rememberGuard(recalled, guard) {
      const previous = recalledFrom.get(recalled);
      if (previous === undefined) return;
      const updated: Entry = { ...previous, guard };
      entries = entries.map((entry) => (entry === previous ? updated : entry));
      recalledFrom.set(recalled, updated);
    },
    get size() {
      return entries.length;
    },
  };
}
