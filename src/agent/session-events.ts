import type { SessionEvent } from '../session/types.ts';
import type { AgentEvent } from './types.ts';

/**
 * The session events an agent's caller sees (HK-3): the compaction events as they are (one
 * vocabulary, no translation) and the usage under-report. Snapshot bookkeeping and the
 * summarizer back-off are not user-visible events (the failure itself is a `compaction-fallback`).
 */
export function agentEventOf(event: SessionEvent): AgentEvent | undefined {
  switch (event.type) {
    case 'compaction-start':
    case 'compaction-progress':
    case 'compaction-end':
    case 'compaction-error':
    case 'compaction-fallback':
    case 'usage-under-reported':
      return event;
    default:
      return undefined;
  }
}
