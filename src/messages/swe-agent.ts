import { ChatfoldError } from '../errors/chatfold-error.ts';
import { describe, type NormalizeOptions } from './normalize.ts';
import { fromOpenAI, type OpenAIMessage, type OpenAIToolCall } from './openai.ts';
import { isArray, readOnce, snapshotInput } from './snapshot.ts';
import type { Message } from './types.ts';

/** One entry of a SWE-agent trajectory's `history`: an OpenAI message plus SWE-agent's bookkeeping. */
export interface SweAgentHistoryItem {
  readonly role: OpenAIMessage['role'];
  readonly content: OpenAIMessage['content'];
  readonly tool_calls?: readonly OpenAIToolCall[] | null;
  /** The calls an observation answers (SWE-agent's name for `tool_call_id`). */
  readonly tool_call_ids?: readonly string[];
  /** `system_prompt`, `observation`, `action`, `thought`, `demonstration`, … */
  readonly message_type?: string;
  readonly agent?: string;
}

/** A SWE-agent `.traj` file: `history` is what the model saw; `trajectory` the steps; `info` the outcome. */
export interface SweAgentTrajectory {
  readonly history: readonly SweAgentHistoryItem[];
  readonly trajectory?: readonly unknown[];
  readonly info?: Readonly<Record<string, unknown>>;
}

/**
 * Converts a SWE-agent trajectory (`.traj`, MSG-2) into neutral messages: its `history` is
 * OpenAI Chat Completions messages with extra fields, so each item keeps `role`, `content`
 * and `tool_calls`, and an observation's `tool_call_ids` become `tool` messages (one per id).
 *
 * @example
 * const messages = fromSweAgentTrajectory(JSON.parse(readFileSync('run.traj', 'utf8')));
 */
export function fromSweAgentTrajectory(
  trajectory: SweAgentTrajectory,
  options: NormalizeOptions = {},
): Message[] {
  // One read into plain data (issue 24 §2); depth and lengths bounded on the way (§3).
  const history = snapshotInput(
    readOnce(() => (trajectory as { history?: unknown } | null)?.history, 'trajectory.history'),
    { root: 'history' },
  );
  if (!isArray(history)) {
    throw new ChatfoldError(
      'E_INVALID_FORMAT',
      `SWE-agent trajectory: expected { history: [...] }, received ${describe(history === undefined ? trajectory : history)}`,
      {},
    );
  }
  const messages: OpenAIMessage[] = [];
  (history as readonly SweAgentHistoryItem[]).forEach((item, index) => {
    if (typeof item !== 'object' || item === null) {
      throw new ChatfoldError(
        'E_INVALID_MESSAGE',
        `history[${index}]: expected a message object, received ${describe(item)}`,
        { where: `history[${index}]` },
      );
    }
    const base = { role: item.role, content: item.content ?? null };
    if (item.role === 'tool' && Array.isArray(item.tool_call_ids)) {
      for (const id of item.tool_call_ids) messages.push({ ...base, tool_call_id: id } as OpenAIMessage);
      return;
    }
    // History items are validated by fromOpenAI, which names the bad field.
    messages.push(
      (Array.isArray(item.tool_calls) && item.tool_calls.length > 0
        ? { ...base, tool_calls: item.tool_calls }
        : base) as OpenAIMessage,
    );
  });
  return fromOpenAI(messages, options);
}
