export { createChatfold } from './create-chatfold.ts';
export { OVERFLOW_SHRINK, SUMMARIZER_RETRY_BASE_MS, SUMMARIZER_RETRY_MAX_MS } from './session.ts';
export type { SessionSnapshotContent } from './snapshot-content.ts';
export type {
  Chatfold,
  ChatfoldOptions,
  HistoryQuery,
  PreparedPrompt,
  PrepareOptions,
  Session,
  SessionCompactOptions,
  SessionEvent,
  SessionStatus,
  SessionUsage,
} from './types.ts';
