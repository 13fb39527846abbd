// chatfold/summarize — the toolkit for writing summarizers and reading summaries (SUM-*).
export type { ExtractiveSummaryOptions } from './extractive.ts';
export { extractiveSummary } from './extractive.ts';
export { extractLedger } from './ledger.ts';
export type { SummaryPromptOptions } from './prompts.ts';
export { buildSummaryPrompt } from './prompts.ts';
export type { RecentFile } from './recent-files.ts';
export { recentFiles } from './recent-files.ts';
export { summarizeSpan } from './summarize-span.ts';
export { formatLedger, formatSummaryMessage } from './summary-message.ts';
export type {
  FactLedger,
  Summarizer,
  SummarizerOutput,
  SummarizeSpanOptions,
  SummaryRequest,
  SummaryResult,
  SummaryWithLedger,
} from './types.ts';
