/**
 * The recorded Claude Code sessions replayed turn by turn as an app would (Claude Sonnet 4.5's
 * tokenizer, answer reserve and prices), shared by the policy and landing benches.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { ReplayOptions, ReplayResult } from '../src/evaluation/replay.ts';
import { replayConversation } from '../src/evaluation/replay.ts';
import { importClaudeCode } from '../src/messages/claude-code.ts';
import type { Message } from '../src/messages/types.ts';
import { resolveModel } from '../src/models/resolve-model.ts';
import { counterFor } from '../src/tokens/count-tokens.ts';

const root = new URL('../test/fixtures/claude-code/', import.meta.url).pathname;

/** Every recorded Claude Code session (subagents included), in file order. */
export function recordedAgentSessions(): Message[][] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.jsonl'))
    .sort()
    .map((file) => importClaudeCode(readFileSync(`${root}${file}`, 'utf8')).messages);
}

const model = resolveModel('claude-sonnet-4.5');

/** One session replayed at `window` (a fresh counter), with the policy given, else the default. */
export function replayAgentSession(
  messages: readonly Message[],
  window: number,
  policy?: ReplayOptions['policy'],
): Promise<ReplayResult> {
  return replayConversation(messages, {
    counter: counterFor(model.tokenizer),
    window,
    maxOutputTokens: model.maxOutputTokens,
    pricing: model.pricing,
    provider: 'anthropic',
    ...(policy === undefined ? {} : { policy }),
  });
}
