import type { Message } from '../messages/types.ts';
import { clipText } from '../projection/clip-text.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { formatLedger } from './summary-message.ts';
import { renderTranscript, renderTranscriptMessage, TRANSCRIPT_SEPARATOR } from './transcript.ts';
import type { FactLedger, SummaryWithLedger } from './types.ts';

const SYSTEM = `You compress the earlier part of a conversation between a user and an AI assistant into a summary that replaces it in the assistant's context window. The assistant will continue the work from your summary alone, so keep every fact it needs and drop chatter. Write in the conversation's language. Never invent facts.`;

const GENERAL_SECTIONS = `## Context and goal
## Key points
## Technical details
## Decisions
## Open questions and next steps`;

const CODE_SECTIONS = `## Goal and context
## Files and changes (exact paths; what changed and why)
## Commands and results (exact commands; outcome)
## Errors and fixes
## Decisions
## Current state
## Next steps`;

/** Options of {@link buildSummaryPrompt}. */
export interface SummaryPromptOptions {
  readonly messages: readonly Message[];
  readonly previousSummary?: SummaryWithLedger;
  readonly ledger: FactLedger;
  readonly goal?: string;
  readonly instructions?: string;
  readonly variant: 'general' | 'code';
  readonly maxTokens: number;
  /**
   * Largest prompt (system and user text) in tokens of `counter`: the summarizer's window less
   * the answer it may write. The oldest messages give way first (the prompt says how many);
   * the earlier summary, the ledger and the instructions stay. Default: no bound.
   */
  readonly maxPromptTokens?: number;
  /** Counts for `maxPromptTokens`: the summarizer model's tokenizer. Without it there is no bound. */
  readonly counter?: TokenCounter;
}

/** The prompt a summarizer receives, and how many of the span's oldest messages it leaves out. */
export interface SummaryPrompt {
  readonly system: string;
  readonly user: string;
  /** Oldest messages of the span not in the prompt (they did not fit the summarizer's window). */
  readonly leftOutMessages: number;
}

/** Text of the parts around the transcript; each may be shortened when even they do not fit. */
interface PromptParts {
  goal?: string | undefined;
  previous?: string | undefined;
  ledger: string;
}

function leftOutNote(count: number): string {
  return `[${count.toLocaleString('en-US')} earlier message${count === 1 ? ' was' : 's were'} left out here: they do not fit the summarizer's window. Their paths, commands and errors are in the extracted facts below; the summary before them is above.]`;
}

/**
 * Builds the summarization prompt (SUM-2, SUM-3): a structured template (code-focused variant
 * for agent runs), the fact ledger so exact paths and commands are kept, an UPDATE prompt that
 * merges an earlier summary instead of replacing it, and custom instructions last. With
 * `maxPromptTokens`, the transcript is cut to the summarizer's own window by its tokens,
 * newest messages kept (read newest first, so a long span costs what fits, not its whole text).
 */
export function buildSummaryPrompt({
  messages,
  previousSummary,
  ledger,
  goal,
  instructions,
  variant,
  maxTokens,
  maxPromptTokens,
  counter,
}: SummaryPromptOptions): SummaryPrompt {
  const sections = variant === 'code' ? CODE_SECTIONS : GENERAL_SECTIONS;
  const assemble = (parts: PromptParts, transcript: string): string => {
    const out: string[] = [];
    if (parts.goal !== undefined) out.push(`The user's original request:\n<goal>\n${parts.goal}\n</goal>`);
    if (parts.previous !== undefined) {
      out.push(
        `UPDATE an existing summary. Below is the summary of everything before the new messages. Keep all of its content that is still true (merge, do not drop earlier facts, decisions or file paths), then add what the new messages contribute.\n<previous-summary>\n${parts.previous}\n</previous-summary>`,
      );
    }
    out.push(`<new-messages>\n${transcript}\n</new-messages>`);
    if (parts.ledger) {
      out.push(
        `Facts extracted mechanically from these messages (they are attached to your summary automatically; refer to them by exact name where relevant):\n${parts.ledger}`,
      );
    }
    out.push(
      `Write the ${previousSummary ? 'updated ' : ''}summary with these sections (omit a section only when it would be empty):\n${sections}\n\nUse at most about ${maxTokens} tokens. Output only the summary.`,
    );
    if (instructions !== undefined && instructions.trim() !== '')
      out.push(`Additional instructions:\n${instructions.trim()}`);
    return out.join('\n\n');
  };
  const parts: PromptParts = { goal, previous: previousSummary?.text, ledger: formatLedger(ledger) };
  if (maxPromptTokens === undefined || counter === undefined) {
    return { system: SYSTEM, user: assemble(parts, renderTranscript(messages)), leftOutMessages: 0 };
  }
  const promptTokens = (user: string): number => counter.countText(SYSTEM) + counter.countText(user);
  // What must stay comes first; when even that is over the window, the ledger the summary
  // carries anyway is shortened first, then the goal, and the earlier summary last.
  const frame = (): number => promptTokens(assemble(parts, leftOutNote(messages.length)));
  for (const key of ['ledger', 'goal', 'previous'] as const) {
    const over = frame() - maxPromptTokens;
    const text = parts[key];
    if (over <= 0) break;
    if (text === undefined || text === '') continue;
    parts[key] = shorten(text, counter.countText(text) - over, counter);
  }
  let room = maxPromptTokens - frame();
  // Newest first, whole messages while they fit; the newest is clipped rather than left out.
  const blocks: string[] = [];
  let first = messages.length;
  for (let i = messages.length - 1; i >= 0 && room > 0; i--) {
    const block = renderTranscriptMessage(messages[i] as Message);
    const tokens = counter.countText(block) + 1;
    if (tokens > room) {
      if (blocks.length === 0) {
        blocks.push(shorten(block, room - 1, counter));
        first = i;
      }
      break;
    }
    blocks.push(block);
    room -= tokens;
    first = i;
  }
  blocks.reverse();
  const render = (): string =>
    assemble(parts, [...(first > 0 ? [leftOutNote(first)] : []), ...blocks].join(TRANSCRIPT_SEPARATOR));
  let user = render();
  // Token counts of pieces do not add up exactly: drop the oldest kept block while over.
  while (promptTokens(user) > maxPromptTokens && blocks.length > 0) {
    blocks.shift();
    first++;
    user = render();
  }
  return { system: SYSTEM, user, leftOutMessages: first };
}

/** `text` cut head+tail to at most `tokens` tokens (a few passes, the clip marker counted). */
function shorten(text: string, tokens: number, counter: TokenCounter): string {
  if (tokens <= 0) return '';
  const total = counter.countText(text);
  if (total <= tokens) return text;
  const charsPerToken = text.length / Math.max(1, total);
  let keep = Math.floor(tokens * charsPerToken);
  let out = text;
  for (let pass = 0; pass < 6; pass++) {
    out = clipText(text, Math.max(0, keep), 'summary-prompt');
    const over = counter.countText(out) - tokens;
    if (over <= 0) return out;
    keep -= Math.ceil(over * charsPerToken) + 1;
    if (keep <= 0) return '';
  }
  return '';
}
