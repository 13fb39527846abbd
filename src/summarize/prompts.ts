import type { Message } from '../messages/types.ts';
import { formatLedger } from './summary-message.ts';
import { renderTranscript } from './transcript.ts';
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
  /** Longest transcript in characters; the summarizer's own window is finite. Default 400,000. */
  readonly maxTranscriptChars?: number;
}

/**
 * Builds the summarization prompt (SUM-2, SUM-3): a structured template (code-focused variant
 * for agent runs), the fact ledger so exact paths and commands are kept, an UPDATE prompt that
 * merges an earlier summary instead of replacing it, and custom instructions last.
 */
export function buildSummaryPrompt({
  messages,
  previousSummary,
  ledger,
  goal,
  instructions,
  variant,
  maxTokens,
  maxTranscriptChars = 400_000,
}: SummaryPromptOptions): { system: string; user: string } {
  const sections = variant === 'code' ? CODE_SECTIONS : GENERAL_SECTIONS;
  const parts: string[] = [];
  if (goal !== undefined) parts.push(`The user's original request:\n<goal>\n${goal}\n</goal>`);
  if (previousSummary !== undefined) {
    parts.push(
      `UPDATE an existing summary. Below is the summary of everything before the new messages. Keep all of its content that is still true (merge, do not drop earlier facts, decisions or file paths), then add what the new messages contribute.\n<previous-summary>\n${previousSummary.text}\n</previous-summary>`,
    );
  }
  parts.push(
    `<new-messages>\n${renderTranscript(messages, { maxChars: maxTranscriptChars })}\n</new-messages>`,
  );
  const ledgerText = formatLedger(ledger);
  if (ledgerText) {
    parts.push(
      `Facts extracted mechanically from these messages (they are attached to your summary automatically; refer to them by exact name where relevant):\n${ledgerText}`,
    );
  }
  parts.push(
    `Write the ${previousSummary ? 'updated ' : ''}summary with these sections (omit a section only when it would be empty):\n${sections}\n\nUse at most about ${maxTokens} tokens. Output only the summary.`,
  );
  if (instructions !== undefined && instructions.trim() !== '')
    parts.push(`Additional instructions:\n${instructions.trim()}`);
  return { system: SYSTEM, user: parts.join('\n\n') };
}
