import type { Context } from 'hono';
import type { Agent, AgentEvent } from '../../agent/types.ts';
import { streamAgentEvents } from './stream-events.ts';
import type { WebDeps } from './web-deps.ts';

/**
 * Runs one turn, summary or regeneration of a session as an event stream: marks the session
 * busy (409 `E_BUSY` for a second one), gets its agent, streams the run, and frees the
 * session when the stream ends — or at once when the run could not start.
 */
export async function streamSessionRun(
  context: Context,
  deps: WebDeps,
  sessionId: string,
  run: (agent: Agent, signal: AbortSignal) => AsyncIterable<AgentEvent>,
): Promise<Response> {
  const release = deps.pool.begin(sessionId);
  try {
    const agent = await deps.pool.agent(sessionId);
    return streamAgentEvents(context, {
      run: (signal) => run(agent, signal),
      gauge: () => deps.gauge(sessionId),
      redact: deps.redact,
      onEnd: release,
    });
  } catch (error) {
    release();
    throw error;
  }
}
