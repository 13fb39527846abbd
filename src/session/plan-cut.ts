import type { CompactionPlan } from '../compaction/types.ts';
import type { Message } from '../messages/types.ts';

/** Where a snapshot for a plan cuts the stored history, and the head it stores. */
export interface PlanCut {
  readonly cutoffSeq: number;
  readonly cutoffId: string;
  /** The oldest stored message the plan changed or removed. */
  readonly firstId: string;
  /** The projection up to the cutoff (what resuming puts before the stored tail). */
  readonly head: readonly Message[];
}

/**
 * The snapshot cut for a plan (ST-4, ST-6), from the plan's ids alone (no object diffing).
 * Resuming reads the stored originals after the cutoff, so the cutoff covers every stored
 * message the plan dropped or replaced, and every stored message placed before a message
 * the plan inserted. Undefined when the plan touches no stored message.
 *
 * @param plan the applied plan
 * @param projection the projection after applying it
 * @param seqOf `seq` of a stored message still in the projection's input, by id
 * @param previousCutoff the cutoff of the snapshot the input started from (0: none)
 */
export function planCut(
  plan: CompactionPlan,
  projection: readonly Message[],
  seqOf: (id: string) => number | undefined,
  previousCutoff: number,
): PlanCut | undefined {
  let cutoffSeq = previousCutoff;
  let first: { seq: number; id: string } | undefined;
  const cover = (seq: number): void => {
    if (seq > cutoffSeq) cutoffSeq = seq;
  };
  for (const id of [...plan.dropped, ...plan.replaced.map((replacement) => replacement.id)]) {
    const seq = seqOf(id);
    if (seq === undefined) continue;
    cover(seq);
    if (first === undefined || seq < first.seq) first = { seq, id };
  }
  for (const { beforeId } of plan.inserted) {
    const anchor = beforeId ?? plan.input.lastId;
    const seq = anchor === undefined ? undefined : seqOf(anchor);
    if (seq !== undefined) cover(beforeId === null ? seq : seq - 1);
  }
  if (first === undefined || cutoffSeq === 0) return undefined;
  // The head ends before the first stored message after the cutoff.
  let boundary = projection.length;
  let cutoffId: string | undefined;
  for (let index = 0; index < projection.length; index++) {
    const id = (projection[index] as Message).id;
    const seq = seqOf(id);
    if (seq === undefined) continue;
    if (seq > cutoffSeq) {
      boundary = index;
      break;
    }
    if (seq === cutoffSeq) cutoffId = id;
  }
  cutoffId ??= idWithSeq(plan, cutoffSeq, seqOf);
  if (cutoffId === undefined) return undefined;
  return { cutoffSeq, cutoffId, firstId: first.id, head: projection.slice(0, boundary) };
}

/** The id of the stored message at `seq` among the ids the plan mentions. */
function idWithSeq(
  plan: CompactionPlan,
  seq: number,
  seqOf: (id: string) => number | undefined,
): string | undefined {
  for (const id of plan.dropped) if (seqOf(id) === seq) return id;
  for (const { id } of plan.replaced) if (seqOf(id) === seq) return id;
  return undefined;
}
