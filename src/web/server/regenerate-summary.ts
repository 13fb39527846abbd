import type { Agent, AgentEvent } from '../../agent/types.ts';

/** Options of {@link regenerateSummary}. */
export interface RegenerateSummaryOptions {
  /** The session's agent (the pool's: its status and gauge then see the new summary at once). */
  readonly agent: Agent;
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
  agent,
  signal,
  instructions,
}: RegenerateSummaryOptions): AsyncGenerator<AgentEvent> {
  yield* agent.summarize({
    from: 'originals',
    signal,
    ...(instructions === undefined ? {} : { instructions }),
  });
}
