export type { ExtractiveSummaryOptions } from './extractive.ts';
export { extractiveSummary } from './extractive.ts';
export { DEFAULT_LEDGER_CAPS, EMPTY_LEDGER, extractLedger } from './ledger.ts';
export type { SummaryPromptOptions } from './prompts.ts';
export { buildSummaryPrompt } from './prompts.ts';
export type { RecentFile } from './recent-files.ts';
export { recentFiles } from './recent-files.ts';
export { summarizeSpan } from './summarize-span.ts';
export { formatLedger, formatSummaryMessage, parseSummaryMessage } from './summary-message.ts';
export type {
  FactLedger,
  Summarizer,
  SummarizeSpanOptions,
  SummaryRequest,
  SummaryResult,
  SummaryWithLedger,
} from './types.ts';
