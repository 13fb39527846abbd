import { Hono } from 'hono';
import { z } from 'zod';
import type { CompactionPreview } from '../../api-types.ts';
import { manualSummary } from '../manual-summary.ts';
import { parseBody, sessionIdParam } from '../parse-request.ts';
import { regenerateSummary } from '../regenerate-summary.ts';
import { reply } from '../reply.ts';
import { requireSession, toWireCompaction } from '../session-view.ts';
import { streamSessionRun } from '../stream-session-run.ts';
import type { WebDeps } from '../web-deps.ts';

/** Longest custom instruction for the summarizer (SUM-3). */
export const MAX_INSTRUCTIONS_CHARS = 4000;

export const summarizeBody = z.strictObject({
  instructions: z
    .string()
    .trim()
    .max(MAX_INSTRUCTIONS_CHARS, `instructions have at most ${MAX_INSTRUCTIONS_CHARS} characters`)
    .optional(),
  // FR-2.2.2: a custom retention chosen in the dialog, for this summary only.
  retentionTokens: z.number().int().min(0).max(10_000_000).optional(),
});

/** Omits empty instructions (a blank textarea); a custom retention when one was chosen. */
const instructionsOf = (
  body: z.infer<typeof summarizeBody>,
): { instructions?: string; retention?: { tokens: number } } => ({
  ...(body.instructions === undefined || body.instructions === '' ? {} : { instructions: body.instructions }),
  ...(body.retentionTokens === undefined ? {} : { retention: { tokens: body.retentionTokens } }),
});

/**
 * Compactions of a session (WEB-4, WEB-5, WEB-6):
 * - `GET /api/sessions/:id/compactions`: every compaction, newest first (mode, time,
 *   tokens before → after, duration, summarizer model).
 * - `POST …/compactions/preview { instructions? }`: the engine's dry-run plan for the
 *   confirmation dialog — total messages, messages to summarize, estimated tokens after — with
 *   no model call (FR-2.3.2); a warning when there is little to gain (FR-5.4.2).
 * - `POST …/compactions { instructions? }`: "Summarize conversation history" (FR-2.1), streamed
 *   like a turn: compaction start, the summary as it is written, end with the result.
 * - `POST …/compactions/regenerate`: a new summary written from the original messages.
 */
export function compactionRoutes(deps: WebDeps): Hono {
  return new Hono()
    .get('/:id/compactions', async (context) => {
      const sessionId = sessionIdParam(context);
      await requireSession(deps.store, sessionId);
      const agent = await deps.pool.agent(sessionId);
      const records = await agent.session.compactions();
      return reply(context, 'GET /api/sessions/:id/compactions', {
        compactions: [...records].reverse().map(toWireCompaction),
      });
    })
    .post('/:id/compactions/preview', async (context) => {
      const sessionId = sessionIdParam(context);
      const body = await parseBody(context, summarizeBody);
      await requireSession(deps.store, sessionId);
      const agent = await deps.pool.agent(sessionId);
      const plan = await agent.previewSummary(instructionsOf(body));
      // FR-5.4.2: allowed with few tokens, with a warning.
      const warning = !plan.willCompact
        ? `Nothing to summarize now: ${plan.reason}.`
        : plan.floorTokens > 0 && plan.tokensBefore < plan.floorTokens
          ? `The conversation is short (${plan.tokensBefore.toLocaleString('en-US')} tokens, below the ${plan.floorTokens.toLocaleString('en-US')}-token minimum for automatic compaction): summarizing now saves little.`
          : undefined;
      const preview: CompactionPreview = {
        totalMessages: plan.messagesInHistory,
        messagesToSummarize: plan.messagesToSummarize,
        tokensBefore: plan.tokensBefore,
        estimatedTokensAfter: plan.tokensAfter,
        ...(warning === undefined ? {} : { warning }),
      };
      return reply(context, 'POST /api/sessions/:id/compactions/preview', preview);
    })
    .post('/:id/compactions', async (context) => {
      const sessionId = sessionIdParam(context);
      const body = await parseBody(context, summarizeBody);
      await requireSession(deps.store, sessionId);
      return streamSessionRun(context, deps, sessionId, (agent, signal) =>
        manualSummary({
          sessionId,
          mode: 'summarize',
          limits: deps.summaryLimits,
          log: deps.log,
          signal,
          start: (stop) => agent.summarize({ ...instructionsOf(body), signal: stop }),
        }),
      );
    })
    .post('/:id/compactions/regenerate', async (context) => {
      const sessionId = sessionIdParam(context);
      const body = await parseBody(context, summarizeBody);
      await requireSession(deps.store, sessionId);
      return streamSessionRun(context, deps, sessionId, (agent, signal) =>
        manualSummary({
          sessionId,
          mode: 'regenerate',
          limits: deps.summaryLimits,
          log: deps.log,
          signal,
          start: (stop) => regenerateSummary({ agent, signal: stop, ...instructionsOf(body) }),
        }),
      );
    });
}
