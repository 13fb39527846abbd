import { z } from 'zod';
import type { CompactionQueue } from '../background/types.ts';
import { compactionPolicy } from '../compaction/compaction-policy.ts';
import {
  type CompactionSettings,
  checkCompactionSettings,
  compactionSettingsShape,
} from '../compaction/options.ts';
import { resolveCompactionModel } from '../compaction/resolve-model.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { fn, parseOptions, withMethods } from '../options/parse-options.ts';
import { memoryStore } from '../stores/memory/index.ts';
import { checkSessionId } from '../stores/shared/errors.ts';
import { type FullStore, hasSessionCatalog, hasSettings, type Store } from '../stores/types.ts';
import { createCalibratedTokenCounter } from '../tokens/calibrated-counter.ts';
import { ChatfoldSession, type SessionConfig } from './session.ts';
import type { Chatfold, ChatfoldOptions, Session } from './types.ts';

/** Setting under which learned context limits are kept, per model (RT-3). */
const LEARNED_LIMIT_KEY = 'chatfold.learned-window:';

const chatfoldOptionsSchema = z
  .object({
    ...compactionSettingsShape,
    store: withMethods<Store>('a store', [
      'append',
      'messages',
      'context',
      'writeSnapshot',
      'latestSnapshot',
      'recordUsage',
      'close',
    ]).optional(),
    now: fn<() => Date>('a clock').optional(),
    background: z
      .object({
        queue: withMethods<CompactionQueue>('a compaction queue', ['enqueue', 'work', 'close']),
        threshold: z.number().gt(0).lt(1).optional(),
      })
      .strict()
      .optional(),
    // Tied to the interface: a key in one and not the other does not compile.
  } satisfies Record<keyof ChatfoldOptions, z.ZodType>)
  .strict();

/**
 * Creates chatfold's stateful API (RT-1): sessions persisted in a store, compacted when a
 * trigger fires, resumed with their latest summary (ST-6).
 *
 * @param options The model (or window), the store (default: in memory) and the compaction
 *   options every session uses: the policy (when to compact, what to keep), summarizer, hooks.
 * @returns `session(id)` opens or creates a session.
 *
 * @example
 * const chatfold = createChatfold({ model: 'gpt-4o', store: sqliteStore('chat.db') });
 * const session = await chatfold.session('user-42');
 * await session.append({ role: 'user', parts: [{ type: 'text', text: 'Hello' }] });
 * const { messages } = await session.prepare({ provider: 'openai' });
 */
export function createChatfold<S extends Store = FullStore>(options: ChatfoldOptions<S>): Chatfold<S> {
  if (typeof options !== 'object' || options === null) {
    throw new ChatfoldError('E_INVALID_OPTIONS', 'createChatfold: expected an options object', {});
  }
  parseOptions(chatfoldOptionsSchema, options, 'createChatfold');
  checkCompactionSettings(options as CompactionSettings, 'createChatfold');
  const store = (options.store ?? memoryStore()) as S;
  const model = resolveCompactionModel(options);
  const limitKey = `${LEARNED_LIMIT_KEY}${options.model ?? `window-${model.window}`}`;
  const learnedWindow: { value?: number } = {};
  let learnedLoaded: Promise<void> | undefined;
  const config: SessionConfig = {
    store,
    options: options as unknown as ChatfoldOptions,
    policy: compactionPolicy(options as CompactionSettings, 'createChatfold'),
    window: model.window,
    ...(model.maxOutputTokens === undefined ? {} : { maxOutputTokens: model.maxOutputTokens }),
    now: options.now ?? (() => new Date()),
    learnedWindow,
    onLearnedWindow: async (window) => {
      if (hasSettings(store)) await store.setSetting(limitKey, window);
    },
  };
  const sessions = new Map<string, Promise<ChatfoldSession>>();

  return {
    store,
    session(id: string): Promise<Session> {
      const sessionId = checkSessionId(id);
      let session = sessions.get(sessionId);
      if (session === undefined) {
        learnedLoaded ??= (hasSettings(store) ? store.getSetting(limitKey) : Promise.resolve(undefined)).then(
          (value) => {
            if (typeof value === 'number' && value > 0 && learnedWindow.value === undefined) {
              learnedWindow.value = value;
            }
          },
          (error: unknown) => {
            learnedLoaded = undefined; // read again by the next session() instead of failing forever
            throw error;
          },
        );
        session = (async () => {
          await learnedLoaded;
          if (hasSessionCatalog(store)) await store.ensureSession(sessionId);
          const opened = new ChatfoldSession(sessionId, config, createCalibratedTokenCounter(model.counter));
          await opened.open();
          return opened;
        })();
        sessions.set(sessionId, session);
        session.catch(() => sessions.delete(sessionId));
      }
      return session;
    },
    async close() {
      sessions.clear();
      await store.close();
    },
  };
}
