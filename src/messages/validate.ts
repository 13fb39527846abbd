/**
 * The structural validator (MSG-3). Pure and O(n): one pass over the messages, plus one more
 * over the tool calls only when a result without its call turns up (to tell a result that
 * comes before its call from a true orphan). Compaction runs it after every pipeline stage.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { assertMessages } from './check-messages.ts';
import { cacheTable, type EngineCache } from './engine-cache.ts';
import { MAX_NESTING_DEPTH } from './json-depth.ts';
import { toolArgumentsFault } from './tool-arguments.ts';
import type { Message, Part, Provider, Role } from './types.ts';

/** Kinds of structural problems `validate` reports (MSG-3). Stable strings: callers branch on them. */
export type ValidationProblemKind =
  | 'orphan-tool-result'
  | 'result-before-call'
  | 'missing-tool-result'
  | 'duplicate-id'
  | 'empty-message'
  | 'illegal-role-order'
  | 'invalid-part'
  | 'invalid-tool-arguments';

/** Every {@link ValidationProblemKind}, in documentation order. */
export const VALIDATION_PROBLEM_KINDS: readonly ValidationProblemKind[] = [
  'orphan-tool-result',
  'result-before-call',
  'missing-tool-result',
  'duplicate-id',
  'empty-message',
  'illegal-role-order',
  'invalid-part',
  'invalid-tool-arguments',
];

/** One problem, located by message index and id. */
export interface ValidationProblem {
  readonly kind: ValidationProblemKind;
  /** Index in the validated array of the message at fault (for a missing result: the call's message). */
  readonly index: number;
  readonly messageId: string;
  /** What is wrong, what was expected, and how to fix it. */
  readonly message: string;
  /** The tool call id concerned, for call/result problems. */
  readonly callId?: string;
}

/** Options of {@link validate} and {@link assertValid}. */
export interface ValidateOptions {
  /**
   * Also check the structural rules of this provider's API. Without it, only the rules every
   * provider shares are checked (call/result pairing, ids, empty messages, parts per role).
   */
  readonly provider?: Provider;
  /**
   * Accept tool calls of the last assistant turn that have no result yet (a call in flight).
   * Default `false`.
   */
  readonly allowPendingToolCalls?: boolean;
  /** Problem kinds not to report. */
  readonly ignore?: readonly ValidationProblemKind[];
  /** Remembers checked messages and parsed tool arguments between calls (a session's, a compaction's). */
  readonly cache?: EngineCache | undefined;
}

const ALLOWED_PARTS: ReadonlyMap<string, ReadonlySet<Part['type']>> = new Map<
  Role,
  ReadonlySet<Part['type']>
>([
  ['system', new Set(['text'])],
  ['user', new Set(['text', 'attachment'])],
  ['assistant', new Set(['text', 'reasoning', 'tool-call', 'attachment'])],
  ['tool', new Set(['tool-result'])],
]);

const ALLOWED_LIST: Readonly<Record<Role, string>> = {
  system: 'text',
  user: 'text and attachment',
  assistant: 'text, reasoning, tool-call and attachment',
  tool: 'tool-result',
};

const VISIBLE = /\S/;

/** True when no part carries content: no parts at all, or only blank text / blank reasoning. */
function isEmpty(parts: readonly Part[]): boolean {
  for (const part of parts) {
    if (part.type === 'text') {
      // /\S/ stops at the first visible character; trim() would copy every long text.
      if (VISIBLE.test(part.text)) return false;
    } else if (part.type === 'reasoning') {
      if (VISIBLE.test(part.text) || part.signature !== undefined || part.redactedData !== undefined) {
        return false;
      }
    } else return false;
  }
  return true;
}

/** Every message index at which each tool call id is made (built only when a problem needs it). */
function callPositions(messages: readonly Message[]): Map<string, number[]> {
  const at = new Map<string, number[]>();
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) {
      if (part.type !== 'tool-call') continue;
      const list = at.get(part.id);
      if (list === undefined) at.set(part.id, [index]);
      else if (list.at(-1) !== index) list.push(index);
    }
  }
  return at;
}

/** Index of the first message with each id (built only when a duplicate turns up). */
function firstIndexes(messages: readonly Message[]): Map<string, number> {
  const at = new Map<string, number>();
  for (let index = messages.length - 1; index >= 0; index--) {
    at.set((messages[index] as Message).id, index);
  }
  return at;
}

/**
 * Checks a conversation's structure (MSG-3) in one O(n) pass.
 *
 * Always: every tool result answers a call of the assistant turn directly before it (a run of
 * consecutive assistant messages is one turn; its results follow as tool messages before any
 * user or system message), every call gets exactly one result (parallel calls included),
 * message ids are unique, tool-call ids are unique within a turn, no message is empty (an
 * assistant message with only tool calls is fine), parts suit their role, and tool-call
 * arguments are JSON nested at most `MAX_NESTING_DEPTH` levels (`invalid-tool-arguments`: the
 * converters would have to refuse them).
 *
 * With `provider`:
 * - `'openai'`: tool messages directly follow the assistant message that holds the calls (no
 *   other assistant message between a call and its result); system messages may appear
 *   anywhere and the conversation may start with any role; call ids may repeat across turns
 *   (the API accepts it).
 * - `'anthropic'`: the system prompt only at the start (it is a separate field); the first
 *   non-empty turn is a user turn; tool-call ids unique in the whole request. Consecutive
 *   same-role messages merge into one turn, so they are allowed. Empty and whitespace-only
 *   text parts are not problems: Anthropic forbids them but they mean nothing, so
 *   `toAnthropic` leaves them out, and leaves out a turn left with nothing (an empty message
 *   is still reported as `empty-message`).
 * - `'gemini'`: the system instruction only at the start; the first turn is a user turn
 *   (a function-call turn must follow a user or function-response turn).
 *
 * @param messages The conversation, oldest first.
 * @param options Provider rules, pending calls, kinds to ignore.
 * @returns The problems, ordered by message index; empty when the conversation is valid.
 * @throws ChatfoldError for input that is not neutral messages at all (see `assertMessages`):
 *   `E_INVALID_MESSAGES`, `E_INVALID_MESSAGE`, `E_UNKNOWN_ROLE`, `E_NESTING_TOO_DEEP`,
 *   `E_MESSAGE_TOO_LARGE`.
 *
 * @example
 * const problems = validate(messages, { provider: 'anthropic', allowPendingToolCalls: true });
 * for (const p of problems) console.warn(`${p.kind} at ${p.index}: ${p.message}`);
 */
export function validate(messages: readonly Message[], options: ValidateOptions = {}): ValidationProblem[] {
  return problemsOf(messages, options, 'validate');
}

/**
 * {@link validate} for messages this package checked already (its own projections during a
 * compaction: the stages' inputs are checked copies and their new messages are checked by the
 * pipeline): the structural rules without a second entry check. Internal, not exported.
 */
export function validateChecked(
  messages: readonly Message[],
  options: ValidateOptions = {},
): ValidationProblem[] {
  return problemsOf(messages, options, 'validate', true);
}

function problemsOf(
  input: readonly Message[],
  options: ValidateOptions,
  fn: string,
  isChecked = false,
): ValidationProblem[] {
  const { provider, allowPendingToolCalls = false, ignore = [], cache } = options;
  // The checked copy from here on (issue 24 §2): the caller's objects are read once.
  const messages = isChecked ? input : assertMessages(input, fn, { cache });
  // The same frozen messages again with the same rules (a repeated compaction, a preview then
  // the compaction): the problems found last time for a list ending at this message object.
  const memos = cache?.table(VALIDATED);
  const last = messages.at(-1);
  const rules = `${provider ?? ''}\u0000${allowPendingToolCalls}\u0000${[...ignore].join(',')}`;
  const memo = last === undefined ? undefined : memos?.get(last);
  if (memo !== undefined && memo.rules === rules && sameList(memo.messages, messages))
    return memo.problems.map((problem) => ({ ...problem }));
  const found = findProblems(messages, provider, allowPendingToolCalls, ignore, cache);
  // Only frozen messages (checked copies, chatfold's own) cannot change under the memo.
  if (memos !== undefined && last !== undefined && messages.every((message) => Object.isFrozen(message)))
    memos.set(last, { messages: [...messages], rules, problems: found.map((problem) => ({ ...problem })) });
  return found;
}

/** The problems last found in a list ending at a message object, and the rules they were found for. */
interface ValidationMemo {
  readonly messages: readonly Message[];
  readonly rules: string;
  readonly problems: readonly ValidationProblem[];
}
const VALIDATED = cacheTable('messages.validated', () => new WeakMap<Message, ValidationMemo>());

function sameList(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function findProblems(
  messages: readonly Message[],
  provider: Provider | undefined,
  allowPendingToolCalls: boolean,
  ignore: readonly ValidationProblemKind[],
  cache: EngineCache | undefined,
): ValidationProblem[] {
  const ignored = new Set<ValidationProblemKind>(ignore);
  const problems: ValidationProblem[] = [];
  const report = (kind: ValidationProblemKind, index: number, text: string, callId?: string): void => {
    if (ignored.has(kind)) return;
    problems.push({
      kind,
      index,
      messageId: (messages[index] as Message).id,
      message: text,
      ...(callId === undefined ? {} : { callId }),
    });
  };

  // Seen ids as Sets (one hash operation per id); where a duplicate was first used is looked
  // up in maps built on the first problem that needs them.
  const messageIds = new Set<string>();
  let firstIndex: Map<string, number> | undefined;
  const anthropicCallIds = provider === 'anthropic' ? new Set<string>() : undefined;
  let positions: Map<string, number[]> | undefined;
  // The current assistant turn: its unanswered calls (id → message index) and answered ones.
  let phase: 'none' | 'calls' | 'results' = 'none';
  const pending = new Map<string, number>();
  const answered = new Set<string>();
  let turnLastAssistant = -1;
  let orderReported = false;
  let seenTurn = false;

  const closeTurn = (before: number): void => {
    for (const [callId, at] of pending) {
      report(
        'missing-tool-result',
        at,
        `messages[${at}] calls a tool (call id ${callId}) but no result for it follows before ${
          before < messages.length ? `messages[${before}]` : 'the end of the conversation'
        }; add a tool message with its result right after the call, or remove the call`,
        callId,
      );
    }
    if (pending.size > 0) pending.clear();
    if (answered.size > 0) answered.clear();
    orderReported = false;
    phase = 'none';
  };

  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    const { role, parts } = message;
    const allowed = ALLOWED_PARTS.get(role) as ReadonlySet<Part['type']>;

    const known = messageIds.size;
    messageIds.add(message.id);
    if (messageIds.size === known) {
      firstIndex ??= firstIndexes(messages);
      report(
        'duplicate-id',
        index,
        `messages[${index}] reuses id ${JSON.stringify(message.id)} of messages[${firstIndex.get(message.id)}]; message ids must be unique`,
      );
    }

    const empty = isEmpty(parts);
    if (empty) {
      report(
        'empty-message',
        index,
        `messages[${index}] (${role}) has no content (no parts, or only blank text); remove it or give it content`,
      );
    }
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p] as Part;
      if (!allowed.has(part.type)) {
        report(
          'invalid-part',
          index,
          `messages[${index}] (${role}) holds a ${part.type} part; ${role} messages take ${ALLOWED_LIST[role]} parts`,
        );
      }
      if (part.type === 'tool-call') {
        const fault = toolArgumentsFault(part, cache);
        if (fault !== undefined) {
          report(
            'invalid-tool-arguments',
            index,
            fault === 'too-deep'
              ? `messages[${index}].parts[${p}].arguments (call id ${part.id}) nest more than ${MAX_NESTING_DEPTH} levels deep; flatten the arguments`
              : `messages[${index}].parts[${p}].arguments (call id ${part.id}) are not valid JSON; tool call arguments must be JSON text, e.g. JSON.stringify(args)`,
            part.id,
          );
        }
      }
    }

    if (role === 'assistant') {
      if (phase === 'results') closeTurn(index);
      phase = 'calls';
      turnLastAssistant = index;
      for (const part of parts) {
        if (part.type !== 'tool-call') continue;
        if (pending.has(part.id) || answered.has(part.id)) {
          report(
            'duplicate-id',
            index,
            `messages[${index}] repeats tool call id ${part.id} within one assistant turn; call ids must be unique in a turn`,
            part.id,
          );
        } else if (anthropicCallIds !== undefined) {
          const before = anthropicCallIds.size;
          anthropicCallIds.add(part.id);
          if (anthropicCallIds.size === before) {
            positions ??= callPositions(messages);
            report(
              'duplicate-id',
              index,
              `messages[${index}] reuses tool call id ${part.id} of messages[${positions.get(part.id)?.[0]}]; Anthropic requires every tool_use id in a request to be unique`,
              part.id,
            );
          }
        }
        pending.set(part.id, index);
      }
    } else if (role === 'tool') {
      for (const part of parts) {
        if (part.type !== 'tool-result') continue;
        const callId = part.callId;
        const callAt = phase === 'none' ? undefined : pending.get(callId);
        if (callAt !== undefined) {
          pending.delete(callId);
          answered.add(callId);
          if (provider === 'openai' && callAt < turnLastAssistant && !orderReported) {
            // OpenAI: the tool messages must follow the very message with `tool_calls`.
            orderReported = true;
            report(
              'illegal-role-order',
              index,
              `messages[${index}] (tool) answers call id ${callId} of messages[${callAt}], but messages[${turnLastAssistant}] (assistant) comes between them; OpenAI requires the tool messages right after the assistant message with the tool_calls — merge the two assistant messages or move the later one after the results`,
              callId,
            );
          }
        } else if (phase !== 'none' && answered.has(callId)) {
          report(
            'duplicate-id',
            index,
            `messages[${index}] holds a second result for call id ${callId}; each call takes exactly one result, remove one`,
            callId,
          );
        } else {
          positions ??= callPositions(messages);
          const made = positions.get(callId) ?? [];
          const later = made.find((at) => at > index);
          const earlier = made.findLast((at) => at < index);
          if (later !== undefined && earlier === undefined) {
            report(
              'result-before-call',
              index,
              `messages[${index}] holds the result for call id ${callId}, but the call is only made later, at messages[${later}]; move the result right after its call`,
              callId,
            );
          } else {
            report(
              'orphan-tool-result',
              index,
              `messages[${index}] holds a result for call id ${callId}, but the assistant turn right before it made no such call${
                earlier === undefined
                  ? ' (no message makes it)'
                  : ` (it was made at messages[${earlier}]; results must directly follow the turn that made the call)`
              }; remove the result or restore its call`,
              callId,
            );
          }
        }
      }
      if (phase !== 'none') phase = 'results';
    } else if (phase !== 'none') closeTurn(index);

    // Provider role order.
    if (role === 'system') {
      if ((provider === 'anthropic' || provider === 'gemini') && seenTurn) {
        report(
          'illegal-role-order',
          index,
          `messages[${index}] is a system message after the conversation started; ${provider} takes the system prompt separately, so only leading system messages are allowed — fold it into the first system message or send it as user text`,
        );
      }
      continue;
    }
    // toAnthropic leaves empty messages out, so the first turn Anthropic sees is the first
    // non-empty one.
    if (empty && provider === 'anthropic') continue;
    if (!seenTurn && role === 'assistant' && (provider === 'anthropic' || provider === 'gemini')) {
      report(
        'illegal-role-order',
        index,
        `messages[${index}] is an assistant message, but ${provider} conversations must start with a user turn; add a user message before it`,
      );
    }
    seenTurn = true;
  }
  if (pending.size > 0 && !allowPendingToolCalls) closeTurn(messages.length);

  // Missing results are reported when their turn closes, after later messages: restore order.
  return problems.length > 1 ? problems.sort((a, b) => a.index - b.index) : problems;
}

/**
 * Throws a `ChatfoldError` with code `E_INVALID_MESSAGES` when {@link validate} finds any
 * problem. `details.problems` holds them all; the message names the first three.
 *
 * @param messages The conversation, oldest first.
 * @param options As for {@link validate}.
 * @throws ChatfoldError `E_INVALID_MESSAGES`
 */
export function assertValid(messages: readonly Message[], options: ValidateOptions = {}): void {
  throwProblems(problemsOf(messages, options, 'assertValid'), options);
}

/** {@link assertValid} for messages this package checked already (internal, not exported). */
export function assertValidChecked(messages: readonly Message[], options: ValidateOptions = {}): void {
  throwProblems(problemsOf(messages, options, 'assertValid', true), options);
}

function throwProblems(problems: ValidationProblem[], options: ValidateOptions): void {
  if (problems.length === 0) return;
  const shown = problems.slice(0, 3).map((problem) => `${problem.kind}: ${problem.message}`);
  const more = problems.length > 3 ? `; and ${problems.length - 3} more in details.problems` : '';
  throw new ChatfoldError(
    'E_INVALID_MESSAGES',
    `invalid conversation (${problems.length} problem${problems.length === 1 ? '' : 's'}${
      options.provider === undefined ? '' : ` for ${options.provider}`
    }): ${shown.join('; ')}${more}`,
    { problems, ...(options.provider === undefined ? {} : { provider: options.provider }) },
  );
}
