import type { CompactionReport } from '../compaction/types.ts';
import type { SessionEvent } from '../session/types.ts';
import type { AgentCompactionMode, AgentEvent } from './types.ts';

const MODES: readonly string[] = ['auto', 'manual', 'overflow'];

const modeOf = (value: unknown): AgentCompactionMode =>
  (typeof value === 'string' && MODES.includes(value) ? value : 'auto') as AgentCompactionMode;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Translates a session event into the agent's vocabulary (HK-3). Snapshot bookkeeping and the
 * summarizer back-off are not user-visible events (the failure itself is a `compaction-fallback`).
 */
export function agentEventOf(event: SessionEvent): AgentEvent | undefined {
  const record = event as unknown as Record<string, unknown>;
  switch (event.type as string) {
    case 'compaction-start':
      return {
        type: 'compaction-start',
        mode: modeOf(record.mode ?? record.trigger),
        tokens: Number(record.tokens),
        target: Number(record.target),
        messages: Number(record.messages),
      };
    case 'compaction-progress':
      return {
        type: 'compaction-progress',
        stage: String(record.stage ?? ''),
        delta: typeof record.delta === 'string' ? record.delta : undefined,
      };
    case 'compaction-end': {
      const report = record.report as CompactionReport & { trigger?: unknown };
      return {
        type: 'compaction-end',
        mode: modeOf((report as unknown as Record<string, unknown>).mode ?? report.trigger),
        report,
        durationMs: Number(record.durationMs),
      };
    }
    case 'compaction-error':
      return {
        type: 'compaction-error',
        message: messageOf(record.error),
        durationMs: Number(record.durationMs),
      };
    case 'compaction-fallback':
      return {
        type: 'compaction-fallback',
        source: record.source === 'stage' ? 'stage' : 'summarizer',
        fallback: String(record.fallback ?? 'extractive'),
        reason: String(record.reason ?? ''),
      };
    case 'usage-under-reported':
      return {
        type: 'usage-under-reported',
        reason: record.reason === 'tools-excluded' ? 'tools-excluded' : 'fresh-only',
        reported: Number(record.reported),
        estimate: Number(record.estimate),
      };
    default:
      return undefined;
  }
}
