import type { AgentEvent } from '../../agent/types.ts';
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
 * original messages, never from the old summary alone — the engine's
 * `session.compact({ from: 'originals' })`, through the agent runtime so the summary streams
 * like any other. The new summary replaces the old one as the session's next snapshot.
 */
export async function* regenerateSummary({
  deps,
  sessionId,
  signal,
  instructions,
}: RegenerateSummaryOptions): AsyncGenerator<AgentEvent> {
  const agent = await deps.pool.fresh(sessionId, {});
  yield* agent.summarize({
    from: 'originals',
    signal,
    ...(instructions === undefined ? {} : { instructions }),
  });
}
