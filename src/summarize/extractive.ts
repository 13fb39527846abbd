import type { Message } from '../messages/types.ts';
import { clipText } from '../projection/clip-text.ts';
import type { TokenCounter } from '../tokens/types.ts';
import type { SummaryWithLedger } from './types.ts';

/** Newest assistant conclusions the extractive summary quotes. */
const CONCLUSIONS = 6;
/** Newest user requests of the span the extractive summary quotes. */
const REQUESTS = 4;
const SHORT = 40;

function textOf(message: Message): string {
  return message.parts
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n')
    .trim();
}

/** Options of {@link extractiveSummary}. */
export interface ExtractiveSummaryOptions {
  readonly messages: readonly Message[];
  readonly previousSummary?: SummaryWithLedger;
  readonly goal?: string;
  readonly maxTokens: number;
  readonly counter: TokenCounter;
}

/**
 * The offline summarizer and RT-4 fallback (SUM-4): the goal, the earlier summary carried
 * forward, the user's requests in the span and the assistant's latest conclusions — no LLM,
 * deterministic. The fact ledger is attached separately by the summary message. Fits
 * `maxTokens` by clipping the quoted texts, oldest material first.
 */
export function extractiveSummary({
  messages,
  previousSummary,
  goal,
  maxTokens,
  counter,
}: ExtractiveSummaryOptions): string {
  // The newest few of each, read from the end (a long span costs what these cost).
  const newest = (role: Message['role'], keep: (text: string) => boolean, count: number): string[] => {
    const found: string[] = [];
    for (let i = messages.length - 1; i >= 0 && found.length < count; i--) {
      const message = messages[i] as Message;
      if (message.role !== role) continue;
      const text = textOf(message);
      if (keep(text)) found.push(text);
    }
    return found.reverse();
  };
  const requests = newest('user', (text) => text.length > 0, REQUESTS);
  const conclusions = newest('assistant', (text) => text.length >= SHORT, CONCLUSIONS);
  let toolCalls = 0;
  for (const message of messages)
    for (const part of message.parts) if (part.type === 'tool-call') toolCalls++;
  const render = (share: number): string => {
    const clip = (text: string, chars: number): string =>
      clipText(text, Math.max(80, Math.floor(chars * share)), 'summary');
    const lines: string[] = [
      `Extractive summary (no model was used): ${messages.length} messages with ${toolCalls} tool calls were condensed; exact facts are in the ledger below.`,
    ];
    if (goal !== undefined && goal !== '') lines.push(`\nGoal: ${clip(goal, 600)}`);
    if (previousSummary !== undefined && previousSummary.text !== '') {
      lines.push(`\nEarlier summary:\n${clip(previousSummary.text, 3000)}`);
    }
    if (requests.length)
      lines.push(`\nUser requests in this part:\n${requests.map((t) => `- ${clip(t, 400)}`).join('\n')}`);
    if (conclusions.length) {
      lines.push(
        `\nLatest assistant conclusions:\n${conclusions.map((t) => `- ${clip(t, 500)}`).join('\n')}`,
      );
    }
    return lines.join('\n');
  };
  let share = 1;
  let text = render(share);
  for (let i = 0; i < 6 && counter.countText(text) > maxTokens; i++) {
    share /= 2;
    text = render(share);
  }
  return text;
}
