// chatfold/agent (AG-3): one agent runtime — the tool loop over the Vercel AI SDK bound to a
// chatfold session, typed events, hooks, abort — plus agent files (AG-1) and workspace tools (AG-2).
// The terminal agent (`chatfold chat`) and the web app are thin layers over this.

export { agentFileJsonSchema } from './agent-file/agent-file-json-schema.ts';
export type { AgentFile } from './agent-file/agent-file-schema.ts';
export {
  AGENT_HISTORY_STRATEGIES,
  AGENT_PROVIDERS,
  agentFileSchema,
} from './agent-file/agent-file-schema.ts';
export type { AgentFileEntry, AgentSearchOptions, LoadedAgentFile } from './agent-file/find-agents.ts';
export { agentFolders, listAgentFiles, loadAgentFile } from './agent-file/find-agents.ts';
export type { AgentFileProblem } from './agent-file/parse-agent-file.ts';
export { parseAgentFile } from './agent-file/parse-agent-file.ts';
export type { AgentCompactionOptions } from './context-options.ts';
export { contextToChatfoldOptions } from './context-options.ts';
export { createAgent, DEFAULT_MAX_STEPS, newSessionId } from './create-agent.ts';
export { createLanguageModel, PROVIDER_KEYS, parseModelSpec } from './language-model.ts';
export type { AgentWarning, UnknownModelWarning } from './model-warnings.ts';
export type { RecallToolInput } from './recall-tool.ts';
export { recallAgentTool } from './recall-tool.ts';
export { ABORTED_TOOL_RESULT } from './run-loop.ts';
export {
  deleteSession,
  isDeletedSession,
  MAX_SESSION_TITLE,
  renameSession,
  SESSION_DELETED_AT_KEY,
  SESSION_TITLE_KEY,
  sessionTitle,
} from './session-metadata.ts';
export type {
  Agent,
  AgentCompactionMode,
  AgentContextOptions,
  AgentEvent,
  AgentEventType,
  AgentModelSpec,
  AgentOptions,
  AgentProvider,
  AgentTool,
  AgentToolOutput,
  AgentTurnLeaseOptions,
  CompactionEndEvent,
  CompactionErrorEvent,
  CompactionFallbackEvent,
  CompactionProgressEvent,
  CompactionStartEvent,
  DoneEvent,
  DoneReason,
  ErrorEvent,
  MessageEvent,
  PreviewOptions,
  ReasoningDeltaEvent,
  RunOptions,
  StepStartEvent,
  SummarizeOptions,
  SummaryPreview,
  TextDeltaEvent,
  ToolCallEvent,
  ToolResultEvent,
  UsageEvent,
  UsageUnderReportedEvent,
} from './types.ts';
export type { WorkspaceLimits } from './workspace/bounded-output.ts';
export { WORKSPACE_LIMITS } from './workspace/bounded-output.ts';
export { WORKSPACE_IDEMPOTENT_TOOLS, WORKSPACE_TOOL_MAPPINGS } from './workspace/tool-mappings.ts';
export type { WorkspaceRefusalReason } from './workspace/workspace-refusal.ts';
export { WORKSPACE_REFUSAL_REASONS } from './workspace/workspace-refusal.ts';
export type { WorkspacePath, WorkspaceRoot } from './workspace/workspace-root.ts';
export { openWorkspaceRoot } from './workspace/workspace-root.ts';
export type { WorkspaceToolName, WorkspaceToolsOptions } from './workspace/workspace-tools.ts';
export { WORKSPACE_TOOL_NAMES, workspaceTools } from './workspace/workspace-tools.ts';
export { userConfigDir, userDataDir } from './xdg-paths.ts';
