/**
 * Which messages of a caller's prompt a session has not stored yet (RT-2). Apps built on the AI
 * SDK or the OpenAI SDK resend their whole history on every call; a session must store each
 * message once. Messages are matched by content — role, name, parts without provider markers —
 * and occurrence (the second identical "yes" is a new message), not by converter ids: a reply the
 * wrapper stored from the response can come back rebuilt by the app with other provider details
 * (a streamed reply has no `refusal: null`), and must still be recognised.
 */
import { contentHash } from '../messages/content-hash.ts';
import type { Message, Part } from '../messages/types.ts';
import type { Session } from '../session/types.ts';

function contentOf(part: Part): unknown {
  const { providerMetadata: _markers, ...rest } = part;
  if (rest.type !== 'tool-result') return rest;
  return { ...rest, content: rest.content.map((inner) => contentOf(inner)) };
}

/** One key per message: its content and how many identical messages came before it. */
export function contentKeys(messages: readonly Message[]): string[] {
  const seen = new Map<string, number>();
  return messages.map((message) => {
    const parts = message.parts
      .filter((part) => !(part.type === 'text' && part.text === ''))
      .map((part) => contentOf(part));
    const base = contentHash(JSON.stringify([message.role, message.name ?? '', parts]));
    const occurrence = seen.get(base) ?? 0;
    seen.set(base, occurrence + 1);
    return `${base}:${occurrence}`;
  });
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
  let held: Message[] | undefined;
  let keys = new Set<string>();
  const load = async (): Promise<Message[]> => {
    if (held === undefined) {
      held = (await session.history()).map((row) => row.message);
      keys = new Set(contentKeys(held));
    }
    return held;
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
    const promptKeys = contentKeys(prompt);
    return prompt.filter((_message, i) => !keys.has(promptKeys[i] ?? ''));
  };
  const append = async (messages: readonly Message[]): Promise<readonly Message[]> => {
    if (messages.length === 0) return [];
    const history = await load();
    // The session gives each its own id: converter ids are per conversion, not per session.
    const stored = await session.append(messages.map(({ id: _id, ...message }) => message));
    history.push(...stored);
    keys = new Set(contentKeys(history));
    return stored;
  };
  return {
    unseen: (prompt) => exclusive(() => unseen(prompt)),
    append: (messages) => exclusive(() => append(messages)),
    appendUnseen: (prompt) => exclusive(async () => append(await unseen(prompt))),
    appendReply: (prompt, reply) =>
      exclusive(async () => {
        await load();
        const key = contentKeys([...prompt, reply]).at(-1) ?? '';
        if (keys.has(key)) return undefined;
        return (await append([reply]))[0];
      }),
  };
}
