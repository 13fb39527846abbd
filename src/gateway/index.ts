/**
 * `chatfold/gateway` (issue 21): context management for any client in any language, by
 * changing one base URL.
 */

export { anthropicRecallTool } from './anthropic-recall.ts';
export { conversationFingerprint, messageKey } from './conversation-key.ts';
export type { Gateway, GatewayOptions } from './create-gateway.ts';
export {
  createGateway,
  DEFAULT_GATEWAY_MAX_BODY_BYTES,
  UPSTREAM_KEY_ENV,
  upstreamAuthFor,
} from './create-gateway.ts';
export type {
  GatewayConfig,
  GatewayConfigProblem,
  GatewayProfile,
  UpstreamKeyMode,
} from './gateway-config.ts';
export { parseGatewayConfig, profileFor } from './gateway-config.ts';
export type { GatewayEvent, GatewayEventListener } from './gateway-events.ts';
export type { GatewayMetrics } from './gateway-metrics.ts';
export { createGatewayMetrics } from './gateway-metrics.ts';
export type { Conversation, ForwardRequest, GatewayRuntime } from './gateway-runtime.ts';
export { DEFAULT_GATEWAY_WINDOW, GATEWAY_HEADERS } from './gateway-runtime.ts';
export { MAX_RECALL_ROUNDS } from './openai-recall.ts';
export {
  answerRecall,
  openAIRecallTool,
  RECALL_LIMITS,
  RECALL_TOOL_NAME,
  recallToolDefinition,
} from './recall-tool.ts';
export type { GatewayServer, StartGatewayOptions } from './start-gateway.ts';
export { DEFAULT_DRAIN_MS, DEFAULT_GATEWAY_PORT, startGateway } from './start-gateway.ts';
export type { UpstreamAuth, UpstreamFormat } from './upstream.ts';
export { UpstreamError } from './upstream.ts';
export type { UpstreamSummarizerOptions } from './upstream-summarizer.ts';
export { upstreamSummarizer } from './upstream-summarizer.ts';
