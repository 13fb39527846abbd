import type { Message } from '../messages/types.ts';
import type { PlanInsertion, PlanReplacement, StrategyEdits } from './types.ts';

/** Edits relative to one list, as lookups. */
interface EditIndex {
  readonly dropped: ReadonlySet<string>;
  readonly replaced: ReadonlyMap<string, Message>;
  readonly before: ReadonlyMap<string, readonly Message[]>;
  readonly atEnd: readonly Message[];
}

function indexEdits(
  dropped: Iterable<string>,
  replaced: Iterable<PlanReplacement>,
  inserted: Iterable<PlanInsertion>,
): EditIndex {
  const before = new Map<string, Message[]>();
  const atEnd: Message[] = [];
  for (const { beforeId, message } of inserted) {
    if (beforeId === null) atEnd.push(message);
    else {
      const list = before.get(beforeId);
      if (list === undefined) before.set(beforeId, [message]);
      else list.push(message);
    }
  }
  return {
    dropped: new Set(dropped),
    replaced: new Map([...replaced].map(({ id, message }) => [id, message])),
    before,
    atEnd,
  };
}

/** `endAfter`: the last message of the list the edits were made for ("at the end" means after it). */
function applyIndex(messages: readonly Message[], index: EditIndex, endAfter?: string): Message[] {
  const out: Message[] = [];
  let ended = index.atEnd.length === 0;
  for (const message of messages) {
    const inserts = index.before.get(message.id);
    if (inserts !== undefined) out.push(...inserts);
    if (!index.dropped.has(message.id)) out.push(index.replaced.get(message.id) ?? message);
    if (!ended && message.id === endAfter) {
      out.push(...index.atEnd);
      ended = true;
    }
  }
  if (!ended) out.push(...index.atEnd);
  return out;
}

/** Whether a strategy's edits change anything. */
export function hasEdits(edits: StrategyEdits): boolean {
  return (edits.drop?.length ?? 0) + (edits.replace?.length ?? 0) + (edits.insert?.length ?? 0) > 0;
}

/** Applies one strategy's edits to the list they were computed for (pure). */
export function applyEdits(messages: readonly Message[], edits: StrategyEdits): Message[] {
  return applyIndex(messages, indexEdits(edits.drop ?? [], edits.replace ?? [], edits.insert ?? []));
}

/**
 * The edits of several stages folded into one set relative to the ORIGINAL input, so the
 * plan says what changes against what the caller passed (and the store holds), however many
 * stages touched a message. A later stage may drop or replace a message an earlier one
 * inserted (a summary merged into a new one, a marker widened); then the insertion itself
 * changes.
 */
export class PlanEdits {
  readonly #original: ReadonlySet<string>;
  readonly #dropped = new Set<string>();
  readonly #replaced = new Map<string, Message>();
  /** Insertions in projection order; `anchor` is an original id or null (end). */
  #inserted: { anchor: string | null; message: Message }[] = [];

  constructor(input: readonly Message[]) {
    this.#original = new Set(input.map((message) => message.id));
  }

  /** Folds a stage's edits (relative to the stage's input) into the plan. */
  add(edits: StrategyEdits): void {
    // Insertions first: one may stand before a message this stage drops (a marker that merges
    // an earlier one is placed before it), and takes that message's anchor and place.
    for (const { beforeId, message } of edits.insert ?? []) {
      if (beforeId !== null && !this.#original.has(beforeId)) {
        // Before a message an earlier stage inserted: same anchor, just ahead of it.
        const at = this.#inserted.findIndex((entry) => entry.message.id === beforeId);
        if (at >= 0) {
          this.#inserted.splice(at, 0, { anchor: this.#inserted[at]?.anchor ?? null, message });
          continue;
        }
      }
      // Before an original message: after the insertions already anchored there (they precede it).
      let at = this.#inserted.length;
      if (beforeId !== null) {
        const last = this.#inserted.findLastIndex((entry) => entry.anchor === beforeId);
        at = last >= 0 ? last + 1 : this.#inserted.length;
      }
      this.#inserted.splice(at, 0, { anchor: beforeId, message });
    }
    for (const id of edits.drop ?? []) {
      if (this.#original.has(id)) {
        this.#dropped.add(id);
        this.#replaced.delete(id);
      } else {
        this.#inserted = this.#inserted.filter((entry) => entry.message.id !== id);
      }
    }
    for (const { id, message } of edits.replace ?? []) {
      if (this.#original.has(id)) this.#replaced.set(id, message);
      else {
        const entry = this.#inserted.find((item) => item.message.id === id);
        if (entry !== undefined) entry.message = message;
      }
    }
  }

  /** Whether the plan drops this message of the original input. */
  drops(id: string): boolean {
    return this.#dropped.has(id);
  }

  get dropped(): readonly string[] {
    return [...this.#dropped];
  }

  get replaced(): readonly PlanReplacement[] {
    return [...this.#replaced].map(([id, message]) => ({ id, message }));
  }

  get inserted(): readonly PlanInsertion[] {
    return this.#inserted.map(({ anchor, message }) => ({ beforeId: anchor, message }));
  }
}

/**
 * Applies a plan's edits to the input it was computed for, or to a list that extends it
 * (the history only grows): messages after the planned input pass through unchanged (pure).
 */
export function applyPlanEdits(
  messages: readonly Message[],
  plan: {
    readonly dropped: readonly string[];
    readonly replaced: readonly PlanReplacement[];
    readonly inserted: readonly PlanInsertion[];
    readonly input: { readonly lastId?: string };
  },
): Message[] {
  return applyIndex(messages, indexEdits(plan.dropped, plan.replaced, plan.inserted), plan.input.lastId);
}
