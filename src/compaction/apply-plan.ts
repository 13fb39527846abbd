import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message } from '../messages/types.ts';
import { describeRecordIssue } from '../options/parse-record.ts';
import { applyPlanEdits } from '../projection/edits.ts';
import { compactionPlanSchema } from '../projection/plan-schema.ts';
import type { CompactionPlan } from './types.ts';

const FN = 'applyCompactionPlan';

/**
 * Turns a plan into the projection to send (pure): drops, replaces and inserts what the
 * plan says. `messages` is the list the plan was computed for, or that list with newer
 * messages after it (a history only grows): those pass through unchanged. A plan read back
 * from JSON applies the same way.
 *
 * Plans travel through stores and queues, so the plan is checked like any input: its shape
 * (the plan's schema), that it was made for `messages`, that every id it names is one of
 * them, that replacements and insertions are valid messages, and that what it drops leaves
 * no tool call or tool result without its partner.
 *
 * @param messages The input of `planCompaction`, possibly extended.
 * @param plan A plan from `planCompaction` (or its JSON).
 * @returns The projection.
 * @throws ChatfoldError `E_INVALID_PLAN` naming the field (`details.where`, e.g. `dropped[3]`,
 *   `replaced[0].message`, `input`) when the plan is not a plan for these messages.
 *
 * @example
 * const plan = await planCompaction(history, { model: 'gpt-4o', mode: 'manual' });
 * const projection = applyCompactionPlan(history, plan);
 */
export function applyCompactionPlan(messages: readonly Message[], plan: CompactionPlan): Message[] {
  const checked = parsePlan(plan, messages.length);
  const { input } = checked;
  if (
    messages.length < input.count ||
    (input.count > 0 && (messages[0]?.id !== input.firstId || messages[input.count - 1]?.id !== input.lastId))
  ) {
    throw invalid(
      'input',
      `the plan was made for ${input.count} message(s) from ${input.firstId ?? '(none)'} to ${input.lastId ?? '(none)'}; the list given (${messages.length} message(s) from ${messages[0]?.id ?? '(none)'}) does not start with them`,
      { expected: input, received: { count: messages.length, firstId: messages[0]?.id } },
    );
  }
  if (!checked.compacted) return [...messages];
  const projection = applyPlanEdits(messages, checked);
  checkIds(messages, checked, projection);
  checkToolPairs(messages, projection, checked);
  return projection;
}

type CheckedPlan = Pick<CompactionPlan, 'compacted' | 'input' | 'dropped' | 'replaced' | 'inserted'>;

function invalid(where: string, problem: string, details: Record<string, unknown> = {}): ChatfoldError {
  return new ChatfoldError('E_INVALID_PLAN', `${FN}: ${problem === '' ? where : `${where}: ${problem}`}`, {
    ...details,
    where,
  });
}

/** The plan's fields through its schema; anything that cannot be read is `E_INVALID_PLAN` too. */
function parsePlan(plan: unknown, count: number): CheckedPlan {
  let result: ReturnType<typeof compactionPlanSchema.safeParse>;
  try {
    checkLengths(plan, count);
    result = compactionPlanSchema.safeParse(plan);
  } catch (cause) {
    if (ChatfoldError.isInstance(cause)) throw cause;
    // A getter that throws, a revoked Proxy: the plan cannot be read.
    throw new ChatfoldError('E_INVALID_PLAN', `${FN}: the plan could not be read: ${String(cause)}`, {
      where: 'plan',
    });
  }
  if (!result.success) {
    const { where, message } = describeRecordIssue(result.error, plan, 'plan');
    throw new ChatfoldError('E_INVALID_PLAN', `${FN}: ${message}`, { where });
  }
  return result.data as CheckedPlan;
}

/**
 * Lists longer than any plan for `count` messages can have are refused before they are read
 * (a sparse array of length 1e9 would take minutes to walk).
 */
function checkLengths(plan: unknown, count: number): void {
  if (typeof plan === 'object' && plan !== null && !Array.isArray(plan)) {
    const record = plan as Record<string, unknown>;
    // Dropped and replaced ids are input messages; insertions are a summary plus at most one
    // marker per message left out. Stages, fallbacks and warnings are a handful each.
    const limits: Record<string, number> = {
      dropped: count,
      replaced: count,
      inserted: count + 1,
      stages: 1000,
      fallbacks: 1000,
      warnings: 1000,
    };
    for (const [key, limit] of Object.entries(limits)) {
      const list = record[key];
      if (Array.isArray(list) && list.length > limit)
        throw invalid(
          key,
          `${list.length} entries, more than a plan for ${count} message(s) can have (${limit})`,
        );
    }
  }
}

/**
 * Every id the plan names is an input message, replacements keep their id and insertions
 * bring ids of their own. Read from the projection (short after a compaction) and the lists'
 * lengths: every replacement and insertion placed, the input shorter by exactly the drops,
 * no inserted id twice. Only when that does not add up is the input read to name the entry.
 */
function checkIds(messages: readonly Message[], plan: CheckedPlan, projection: readonly Message[]): void {
  plan.replaced.forEach(({ id, message }, i) => {
    if (message.id !== id)
      throw invalid(
        `replaced[${i}].message.id`,
        `a replacement keeps the id of the message it replaces (${JSON.stringify(id)}), received ${JSON.stringify(message.id)}`,
      );
  });
  const inserted = new Map(plan.inserted.map(({ message }) => [message.id, 0]));
  if (inserted.size < plan.inserted.length) {
    const ids = plan.inserted.map(({ message }) => message.id);
    const i = ids.findIndex((id, at) => ids.indexOf(id) !== at);
    throw duplicateInsertion(i, ids[i] as string);
  }
  const replacements = new Set(plan.replaced.map(({ message }) => message));
  let placed = 0;
  let replacedFound = 0;
  for (const message of projection) {
    const seen = inserted.get(message.id);
    if (seen !== undefined) inserted.set(message.id, seen + 1);
    if (replacements.size > 0 && replacements.has(message)) replacedFound++;
  }
  for (const [id, count] of inserted) {
    if (count > 1)
      throw duplicateInsertion(
        plan.inserted.findIndex((entry) => entry.message.id === id),
        id,
      );
    placed += count;
  }
  const adds = projection.length === messages.length - plan.dropped.length + placed;
  if (adds && placed === plan.inserted.length && replacedFound === replacements.size) return;
  const ids = new Set(messages.map((message) => message.id));
  const missing = (id: string): string => `no input message has id ${JSON.stringify(id)}`;
  plan.dropped.forEach((id, i) => {
    if (!ids.has(id)) throw invalid(`dropped[${i}]`, missing(id));
  });
  plan.replaced.forEach(({ id }, i) => {
    if (!ids.has(id)) throw invalid(`replaced[${i}].id`, missing(id));
  });
  plan.inserted.forEach(({ beforeId }, i) => {
    if (beforeId !== null && !ids.has(beforeId)) throw invalid(`inserted[${i}].beforeId`, missing(beforeId));
  });
  // What remains is harmless: an id dropped twice, a replacement of a message also dropped.
}

function duplicateInsertion(index: number, id: string): ChatfoldError {
  return invalid(
    `inserted[${index}].message.id`,
    `id ${JSON.stringify(id)} is already in the projection; an inserted message needs an id of its own`,
  );
}

/**
 * What the plan drops, replaces or inserts leaves every tool call with its result and every
 * result with its call, unless the input already lacked the partner (a call still in flight).
 * The projection is read once; the input only when the projection has an unpaired id, to
 * tell an orphan the plan made from one the input already had.
 */
function checkToolPairs(
  messages: readonly Message[],
  projection: readonly Message[],
  plan: CheckedPlan,
): void {
  const after = pairing(projection);
  const unpaired = [...after].filter(([, { call, result }]) => call !== result);
  if (unpaired.length === 0) return;
  const before = pairing(messages, new Set(unpaired.map(([id]) => id)));
  for (const [id, now] of unpaired) {
    const was = before.get(id) ?? NEITHER;
    if (was.call === now.call && was.result === now.result) continue;
    throw invalid(
      sourceOf(id, now.result ? 'call' : 'result', messages, plan),
      now.result
        ? `leaves the tool result of call ${JSON.stringify(id)} without its tool call`
        : `leaves tool call ${JSON.stringify(id)} without its tool result`,
      { callId: id },
    );
  }
}

/**
 * The plan field that made tool call `id` unpaired: the drop or replacement that took its
 * `missing` part away, else the insertion or replacement that brought the other part in.
 */
function sourceOf(
  id: string,
  missing: 'call' | 'result',
  messages: readonly Message[],
  plan: CheckedPlan,
): string {
  const holds = (message: Message | undefined, kind: 'call' | 'result'): boolean =>
    message?.parts.some((part) =>
      kind === 'call'
        ? part.type === 'tool-call' && part.id === id
        : part.type === 'tool-result' && part.callId === id,
    ) ?? false;
  const present = missing === 'call' ? 'result' : 'call';
  const byId = new Map(messages.map((message) => [message.id, message]));
  if (plan.dropped.some((dropped) => holds(byId.get(dropped), missing))) return 'dropped';
  const removed = plan.replaced.findIndex(
    ({ id: replacedId, message }) => holds(byId.get(replacedId), missing) && !holds(message, missing),
  );
  if (removed >= 0) return `replaced[${removed}].message`;
  const inserted = plan.inserted.findIndex(({ message }) => holds(message, present));
  if (inserted >= 0) return `inserted[${inserted}].message`;
  const replaced = plan.replaced.findIndex(({ message }) => holds(message, present));
  return replaced >= 0 ? `replaced[${replaced}].message` : 'plan';
}

interface Pairing {
  readonly call: boolean;
  readonly result: boolean;
}

const NEITHER: Pairing = { call: false, result: false };

/** Whether `messages` hold each tool call id's call and its result (only `ids`, when given). */
function pairing(messages: readonly Message[], ids?: ReadonlySet<string>): Map<string, Pairing> {
  const found = new Map<string, Pairing>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'tool-call') {
        if (ids === undefined || ids.has(part.id))
          found.set(part.id, { call: true, result: found.get(part.id)?.result ?? false });
      } else if (part.type === 'tool-result' && (ids === undefined || ids.has(part.callId))) {
        found.set(part.callId, { call: found.get(part.callId)?.call ?? false, result: true });
      }
    }
  }
  return found;
}
