/**
 * Which messages of a caller's prompt a session has not stored yet (RT-2). Apps built on the AI
 * SDK or the OpenAI SDK resend their whole history on every call; a session must store each
 * message once. Messages are matched by content — role, name, parts without provider markers —
 * and occurrence (the second identical "yes" is a new message), not by converter ids: a reply the
 * wrapper stored from the response can come back rebuilt by the app with other provider details
 * (a streamed reply has no `refusal: null`), and must still be recognised.
 */
import { contentHash } from '../messages/content-hash.ts';
import { hasDerivedId } from '../messages/normalize.ts';
import type { Message, Part } from '../messages/types.ts';
import type { Session } from '../session/types.ts';

function contentOf(part: Part): unknown {
  const { providerMetadata: _markers, ...rest } = part;
  if (rest.type !== 'tool-result') return rest;
  return { ...rest, content: rest.content.map((inner) => contentOf(inner)) };
}

/** The content key of one message, before its occurrence is counted. */
function contentBase(message: Message): string {
  const parts = message.parts
    .filter((part) => !(part.type === 'text' && part.text === ''))
    .map((part) => contentOf(part));
  return contentHash(JSON.stringify([message.role, message.name ?? '', parts]));
}

/**
 * Content keys of a list, counted on: `seen` holds how many times each base occurred before
 * (and is updated), so a longer list can be keyed from where a shorter one stopped.
 */
function keysOf(messages: readonly Message[], seen: Map<string, number>): string[] {
  return messages.map((message) => {
    const base = contentBase(message);
    const occurrence = seen.get(base) ?? 0;
    seen.set(base, occurrence + 1);
    return `${base}:${occurrence}`;
  });
}

/** One key per message: its content and how many identical messages came before it. */
export function contentKeys(messages: readonly Message[]): string[] {
  return keysOf(messages, new Map());
}

/** Remembers what a session holds, read once from its history and kept up to date by this process. */
export interface HistoryTracker {
  /** The messages of `prompt` (the caller's full history, in order) the session does not hold. */
  unseen(prompt: readonly Message[]): Promise<Message[]>;
  /** Appends `messages` to the session and remembers them. */
  append(messages: readonly Message[]): Promise<readonly Message[]>;
  /** Appends `reply` as the message that follows `prompt`, unless the session holds it already. */
  appendReply(prompt: readonly Message[], reply: Message): Promise<Message | undefined>;
  /**
   * `append(await unseen(prompt))` in one step: concurrent calls with the same history store
   * each message once.
   */
  appendUnseen(prompt: readonly Message[]): Promise<readonly Message[]>;
}

/**
 * A tracker for `session`. Messages another process appends to the same session after the
 * first call are not seen; one writer per session is assumed for the integrations' dedup.
 */
export function createHistoryTracker(session: Session): HistoryTracker {
  let loaded = false;
  // What the session holds: each key once, and how often each content occurred (for the next key).
  const keys = new Set<string>();
  const heldCounts = new Map<string, number>();
  const load = async (): Promise<void> => {
    if (loaded) return;
    const held = (await session.history()).map((row) => row.message);
    for (const key of keysOf(held, heldCounts)) keys.add(key);
    loaded = true;
  };
  // Issue 19 §2: apps resend the whole history; the keys of the part sent last time are reused
  // when the new prompt starts with the same messages (converters derive ids from content, so
  // equal ids in order are the same content), and only the new messages are hashed.
  let last: { ids: string[]; keys: string[]; seen: Map<string, number> } = {
    ids: [],
    keys: [],
    seen: new Map(),
  };
  const promptKeys = (prompt: readonly Message[]): string[] => {
    let reused = 0;
    const limit = Math.min(prompt.length, last.ids.length);
    while (
      reused < limit &&
      hasDerivedId(prompt[reused] as Message) &&
      prompt[reused]?.id === last.ids[reused]
    )
      reused++;
    if (reused < last.ids.length) {
      // Not an extension of the last prompt (edited, or another conversation): key it whole.
      const seen = new Map<string, number>();
      last = { ids: prompt.map((message) => message.id), keys: keysOf(prompt, seen), seen };
      return last.keys;
    }
    const added = prompt.slice(reused);
    last.ids.push(...added.map((message) => message.id));
    last.keys.push(...keysOf(added, last.seen));
    return last.keys;
  };
  // Look-up and append are one step per call, one call at a time: two calls that both found a
  // message unseen would both store it.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };
  const unseen = async (prompt: readonly Message[]): Promise<Message[]> => {
    await load();
    const keyed = promptKeys(prompt);
    return prompt.filter((_message, i) => !keys.has(keyed[i] ?? ''));
  };
  const append = async (messages: readonly Message[]): Promise<readonly Message[]> => {
    if (messages.length === 0) return [];
    await load();
    // The session gives each its own id: converter ids are per conversion, not per session.
    const stored = await session.append(messages.map(({ id: _id, ...message }) => message));
    for (const key of keysOf(stored, heldCounts)) keys.add(key);
    return stored;
  };
  return {
    unseen: (prompt) => exclusive(() => unseen(prompt)),
    append: (messages) => exclusive(() => append(messages)),
    appendUnseen: (prompt) => exclusive(async () => append(await unseen(prompt))),
    appendReply: (prompt, reply) =>
      exclusive(async () => {
        await load();
        // The reply's occurrence counts the identical messages of the prompt before it.
        promptKeys(prompt);
        const base = contentBase(reply);
        if (keys.has(`${base}:${last.seen.get(base) ?? 0}`)) return undefined;
        return (await append([reply]))[0];
      }),
  };
}
