import { createAgent } from '../agent/create-agent.ts';
import type { AgentOptions } from '../agent/types.ts';
import type { CompactionQueueEvent } from '../background/queue-events.ts';
import type { CompactionQueue } from '../background/types.ts';
import type { Session } from '../session/types.ts';
import type { Store } from '../stores/types.ts';
import { AgentPool } from '../web/server/agent-pool.ts';
import { readWebSettings } from '../web/server/web-settings.ts';
import { asWebStore } from '../web/server/web-store.ts';
import { describeQueueEvent } from './open-queue.ts';

/** Options of {@link backgroundSessions}. */
export interface BackgroundSessionsOptions {
  readonly store: Store;
  /** The agent `chatfold serve` runs: the same model, window, tools and summarizer. */
  readonly agent: Omit<AgentOptions, 'store' | 'session'>;
  readonly modelId: string;
  readonly queue: CompactionQueue;
}

/**
 * Sessions as the web app configures them (agent definition plus the settings saved in the
 * store: threshold per model, retention, summarizer model, per-session auto-compaction), for a
 * compaction worker: the plan a worker stores must be the one `prepare()` in `chatfold serve`
 * would make. A pool of its own, so a running summary never holds a session the app serves.
 */
export function backgroundSessions({ store, agent, modelId, queue }: BackgroundSessionsOptions): {
  session(id: string): Promise<Session>;
} {
  const webStore = asWebStore(store);
  const pool = new AgentPool({
    store: webStore,
    agent: { ...agent, background: { queue } },
    modelId,
    createAgent,
    settings: () => readWebSettings(webStore),
  });
  return { session: async (id) => (await pool.agent(id)).session };
}

/** Prints job events worth an operator's attention (failures, retries, dead letters) to stderr. */
export function logQueueEvent(event: CompactionQueueEvent): void {
  const line = describeQueueEvent(event);
  if (line !== undefined) process.stderr.write(`${line}\n`);
}
