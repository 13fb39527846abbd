import { ChatfoldError } from '../errors/chatfold-error.ts';
import { type AiSdkMessage, fromAiSdk } from '../messages/ai-sdk.ts';
import { type AnthropicRequest, fromAnthropic } from '../messages/anthropic.ts';
import { importClaudeCode } from '../messages/claude-code.ts';
import { fromGemini, type GeminiRequest } from '../messages/gemini.ts';
import { normalizeMessages } from '../messages/normalize.ts';
import { fromOpenAI, type OpenAIMessage } from '../messages/openai.ts';
import { fromSweAgentTrajectory, type SweAgentTrajectory } from '../messages/swe-agent.ts';
import type { Message, MessageInput } from '../messages/types.ts';
import { readTextFile } from './read-text-file.ts';

/** Conversation file formats the CLI reads. */
export const CONVERSATION_FORMATS = [
  'openai',
  'anthropic',
  'gemini',
  'ai-sdk',
  'chatfold',
  'claude-code',
  'swe-agent',
] as const;
export type ConversationFormat = (typeof CONVERSATION_FORMATS)[number];

const CLAUDE_CODE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'progress',
  'file-history-snapshot',
  'queue-operation',
  'summary',
]);

function firstLineObject(text: string): Record<string, unknown> | undefined {
  const end = text.indexOf('\n');
  if (end < 0) return undefined;
  try {
    const value = JSON.parse(text.slice(0, end)) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Guesses the format of a conversation file from its content (JSON Lines first, then JSON). */
export function detectFormat(text: string): ConversationFormat {
  const trimmed = text.trim();
  if (trimmed === '') throw new ChatfoldError('E_INVALID_FORMAT', 'the file is empty', {});
  const line = firstLineObject(trimmed);
  if (line !== undefined) {
    if (typeof line.type === 'string' && CLAUDE_CODE_TYPES.has(line.type)) return 'claude-code';
    if ('parts' in line && 'role' in line) return 'chatfold';
  }
  const value = JSON.parse(trimmed) as unknown;
  const isChatfold = (items: unknown[]): boolean =>
    items.length > 0 && items.every((item) => typeof item === 'object' && item !== null && 'parts' in item);
  if (Array.isArray(value)) {
    if (isChatfold(value)) return 'chatfold';
    const aiSdkParts = new Set(['tool-call', 'tool-result', 'image', 'file', 'reasoning']);
    const isAiSdk = (value as { content?: unknown }[]).some(
      (m) =>
        Array.isArray(m.content) &&
        (m.content as { type?: string }[]).some((part) => aiSdkParts.has(part.type ?? '')),
    );
    return isAiSdk ? 'ai-sdk' : 'openai';
  }
  if (typeof value !== 'object' || value === null) throw unrecognised();
  if (Array.isArray((value as { contents?: unknown }).contents)) return 'gemini';
  if (Array.isArray((value as { history?: unknown }).history)) return 'swe-agent';
  const messages = (value as { messages?: unknown }).messages;
  if (Array.isArray(messages)) {
    if (isChatfold(messages)) return 'chatfold';
    const list = messages as Record<string, unknown>[];
    const hasBlocks = list.some(
      (m) =>
        Array.isArray(m.content) &&
        (m.content as { type?: string }[]).some((b) =>
          ['tool_use', 'tool_result', 'thinking'].includes(b.type ?? ''),
        ),
    );
    const hasOpenAIRoles = list.some(
      (m) => m.role === 'tool' || m.role === 'system' || m.role === 'developer' || 'tool_calls' in m,
    );
    return ('system' in (value as object) || hasBlocks) && !hasOpenAIRoles ? 'anthropic' : 'openai';
  }
  throw unrecognised();
}

const unrecognised = (): ChatfoldError =>
  new ChatfoldError(
    'E_INVALID_FORMAT',
    'could not recognise the conversation format; expected OpenAI messages ([...] or { messages }), Anthropic { system, messages }, Gemini { contents }, AI SDK messages, chatfold messages (JSON or JSONL), a Claude Code session (JSONL) or a SWE-agent trajectory ({ history }); pass --format to force one',
    {},
  );

/** A loaded conversation and what the loader noticed. */
export interface LoadedConversation {
  readonly format: ConversationFormat;
  readonly messages: Message[];
}

/** Parses conversation text in a given or detected format into neutral messages. */
export function parseConversation(text: string, format?: ConversationFormat): LoadedConversation {
  let resolved: ConversationFormat;
  try {
    resolved = format ?? detectFormat(text);
  } catch (cause) {
    if (ChatfoldError.isInstance(cause)) throw cause;
    throw new ChatfoldError(
      'E_INVALID_FORMAT',
      `not valid JSON or JSONL: ${(cause as Error).message}`,
      {},
      { cause },
    );
  }
  const json = (): unknown => {
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw new ChatfoldError(
        'E_INVALID_FORMAT',
        `not valid JSON: ${(cause as Error).message}`,
        {},
        { cause },
      );
    }
  };
  switch (resolved) {
    case 'claude-code':
      return { format: resolved, messages: importClaudeCode(text).messages };
    case 'openai':
      return { format: resolved, messages: fromOpenAI(json() as OpenAIMessage[]) };
    case 'anthropic':
      return { format: resolved, messages: fromAnthropic(json() as AnthropicRequest) };
    case 'ai-sdk':
      return { format: resolved, messages: fromAiSdk(json() as AiSdkMessage[]) };
    case 'gemini':
      return { format: resolved, messages: fromGemini(json() as GeminiRequest) };
    case 'swe-agent':
      return { format: resolved, messages: fromSweAgentTrajectory(json() as SweAgentTrajectory) };
    case 'chatfold': {
      const trimmed = text.trimStart();
      const items: unknown = trimmed.startsWith('[')
        ? json()
        : firstLineObject(trimmed) === undefined
          ? (json() as { messages?: unknown }).messages
          : text
              .split('\n')
              .filter((line) => line.trim() !== '')
              .map((line, i) => {
                try {
                  return JSON.parse(line) as unknown;
                } catch (cause) {
                  throw new ChatfoldError(
                    'E_INVALID_FORMAT',
                    `line ${i + 1}: not JSON`,
                    { line: i + 1 },
                    { cause },
                  );
                }
              });
      return { format: resolved, messages: normalizeMessages(items as MessageInput[]) };
    }
  }
}

/** Reads and parses a conversation file. */
export async function loadConversation(
  path: string,
  format?: ConversationFormat,
): Promise<LoadedConversation> {
  return parseConversation(await readTextFile(path), format);
}
