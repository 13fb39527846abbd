export { OVERFLOW_SHRINK } from '../policy/overflow-window.ts';
export { createChatfold } from './create-chatfold.ts';
export { SUMMARIZER_RETRY_BASE_MS, SUMMARIZER_RETRY_MAX_MS } from './session.ts';
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
