import type { Context } from 'hono';
import type { Agent, AgentEvent } from '../../agent/types.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { acquireTurnLease, describeLeaseHolder, type TurnLease } from '../../stores/shared/turn-lease.ts';
import { HttpError } from './http-error.ts';
import { streamAgentEvents } from './stream-events.ts';
import type { WebDeps } from './web-deps.ts';
import type { WebLog } from './web-log.ts';

/**
 * Passes a run's events through and logs every compaction fallback or failure among them as
 * one structured line (FR-5.1.1: never silent), with the session and the compaction's mode.
 */
export async function* logCompactionFaults(
  events: AsyncIterable<AgentEvent>,
  sessionId: string,
  log: WebLog,
): AsyncGenerator<AgentEvent> {
  let mode: string | undefined;
  for await (const event of events) {
    if (event.type === 'compaction-start') mode = event.mode;
    if (event.type === 'compaction-fallback') {
      log({
        level: 'warn',
        event: 'compaction-fallback',
        sessionId,
        mode,
        source: event.source,
        fallback: event.fallback,
        cause: event.reason,
      });
    }
    if (event.type === 'compaction-error') {
      log({ level: 'error', event: 'compaction-failed', sessionId, mode, cause: event.message });
    }
    yield event;
  }
}

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
  const stop = new AbortController();
  const release = deps.pool.begin(sessionId, () =>
    stop.abort(new DOMException('stopped by the user', 'AbortError')),
  );
  let lease: TurnLease | undefined;
  try {
    // Across processes too (issue 24 §5): another `chatfold serve` or a `chatfold chat` on the
    // same store may be running one.
    const held = await acquireTurnLease(deps.store, sessionId, {
      label: 'chatfold serve',
      onLost: (reason) => {
        deps.log({ level: 'warn', event: 'lease-lost', sessionId, cause: errorText(reason) });
        stop.abort(new DOMException('the session was taken over', 'AbortError'));
      },
      onRenewalError: (error) =>
        deps.log({ level: 'warn', event: 'lease-renewal-failed', sessionId, cause: errorText(error) }),
    }).catch((error: unknown) => {
      if (!ChatfoldError.hasCode(error, 'E_BUSY')) throw error;
      throw new HttpError(
        409,
        'E_BUSY',
        `a turn or a summary is already running in this session, in ${error.details.holder === undefined ? 'another process' : describeLeaseHolder(error.details.holder)}; wait for it to finish`,
      );
    });
    lease = held;
    const agent = await deps.pool.agent(sessionId);
    return streamAgentEvents(context, {
      stop: stop.signal,
      run: (signal) => logCompactionFaults(run(agent, signal), sessionId, deps.log),
      gauge: () => deps.gauge(sessionId),
      redact: deps.redact,
      onEnd: async () => {
        release();
        await held.release();
      },
    });
  } catch (error) {
    release();
    await lease?.release();
    throw error;
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
