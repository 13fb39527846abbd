import type { AgentEvent } from '../../agent/types.ts';
import { memoryStore } from '../../stores/memory/index.ts';
import type { WebDeps } from './web-deps.ts';

/** Options of {@link regenerateSummary}. */
export interface RegenerateSummaryOptions {
  readonly deps: WebDeps;
  readonly sessionId: string;
  readonly signal: AbortSignal;
  readonly instructions?: string;
}

/**
 * "Regenerate summary" (WEB-4, seed 001 open question 6): writes a new summary from the
 * original messages, never from the old summary alone. The session's own compaction would
 * fold the previous summary into the next one (multi-level, FR-1.4.2), so the summary is
 * written by a scratch agent of the same definition and settings over a copy of the stored
 * originals (in memory; the summarizer streams as usual), then applied to the real session
 * as a manual compaction whose `beforeCompact` hook supplies that text (HK-1 `customSummary`).
 * Both steps run through the agent runtime; the real session's history is only appended to
 * by the snapshot, as with any compaction.
 */
export async function* regenerateSummary({
  deps,
  sessionId,
  signal,
  instructions,
}: RegenerateSummaryOptions): AsyncGenerator<AgentEvent> {
  const originals = await deps.store.messages(sessionId);
  const scratchStore = memoryStore();
  let text: string | undefined;
  try {
    const scratch = await deps.pool.fresh(sessionId, { store: scratchStore });
    await scratch.session.append(originals.map((row) => row.message));
    for await (const event of scratch.summarize({
      ...(instructions === undefined ? {} : { instructions }),
      signal,
    })) {
      if (event.type === 'compaction-end') {
        text = event.report.summary?.text;
        continue;
      }
      if (event.type === 'done') {
        if (event.reason !== 'stop') {
          yield event;
          return;
        }
        break;
      }
      yield event;
    }
  } finally {
    await scratchStore.close();
  }
  if (text === undefined || text.trim() === '') {
    yield {
      type: 'compaction-error',
      message:
        'the original messages gave no summary: every message is within the recent messages that are always kept',
      durationMs: 0,
    };
    yield {
      type: 'done',
      reason: 'error',
      steps: 0,
      text: '',
      usage: { inputTokens: undefined, outputTokens: undefined },
    };
    return;
  }
  const summary = text;
  const agent = await deps.pool.fresh(sessionId, {
    hooks: { beforeCompact: () => ({ customSummary: summary }) },
  });
  for await (const event of agent.summarize({ signal })) {
    // The scratch run already announced the start and streamed the text.
    if (event.type === 'compaction-start' || event.type === 'compaction-progress') continue;
    if (event.type === 'compaction-end' && !event.report.compacted && !event.report.cancelled) {
      // The session folds only messages older than the ones it always keeps; right after a
      // summary there may be none, and the engine has no "replace the summary text" yet.
      yield {
        ...event,
        report: {
          ...event.report,
          reason:
            'the summary was not replaced, because no message since it is old enough to fold in (the newest messages are always kept); regenerate after a few more turns',
        },
      };
      continue;
    }
    yield event;
  }
}
