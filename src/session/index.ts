export { createChatfold } from './create-chatfold.ts';
export type { RecallSource } from './recall.ts';
export { answerRecall, RECALL_LIMITS, RECALL_TOOL_NAME, recallToolDefinition } from './recall.ts';
export type { SessionSnapshotContent } from './snapshot-content.ts';
export type {
  Chatfold,
  ChatfoldOptions,
  CompactionRecord,
  ContextBreakdown,
  HistoryEntry,
  HistoryQuery,
  HistoryStatus,
  PreparedPrompt,
  PrepareOptions,
  Session,
  SessionCompactOptions,
  SessionEvent,
  SessionStatus,
  SessionUsage,
} from './types.ts';
