import type { CallEffect } from './call-effect.ts';
import type { ResultEvent } from './result-events.ts';

/** Names of the built-in supersession rules, as stubs and `metadata.chatfold.rule` give them. */
export type BuiltInSupersedeRule =
  | 'file-content'
  | 'file-range'
  | 'directory-listing'
  | 'identical-call'
  | 'repeated-command';

/** An earlier result made stale, the later result that holds newer content, and the rule. */
export interface Supersession {
  readonly event: ResultEvent;
  readonly by: ResultEvent;
  readonly rule: string;
}

type ListEffect = Extract<CallEffect, { kind: 'list' }>;

/** A later listing covers an earlier one: shows at least as much, and is no narrower. */
function covers(later: ListEffect, earlier: ListEffect): boolean {
  return (
    earlier.shows.every((feature) => later.shows.includes(feature)) &&
    (later.filter === undefined || later.filter === earlier.filter)
  );
}

const exactListing = (effect: ListEffect): string =>
  `${effect.path}\u0000${effect.shows.join(',')}\u0000${effect.filter ?? ''}`;

/**
 * Which results a later one made stale (STR-1), found in one backward pass that remembers,
 * per path / listing / observation key, the NEWEST later result holding content — so a stub
 * names the output the model should look at, never an intermediate one that is itself stale.
 *
 * - file-content: a later whole-file view (full read with complete output, write, edit that
 *   returns the full file) supersedes earlier reads, writes and edits of the path;
 * - file-range: a later partial read of the same range supersedes an earlier one;
 * - directory-listing: a later complete listing of the same directory that covers it;
 * - identical-call / repeated-command / custom: a later observation with the same key.
 *
 * Only results in a later message that hold content supersede: not errors, not "file unchanged" back-references,
 * not stubs. Stubs themselves are never listed again (idempotence).
 *
 * @param events - every result with its call's effect, oldest first
 * @returns the superseded results by message index, then part index
 */
export function findSuperseded(events: readonly ResultEvent[]): Map<number, Map<number, Supersession>> {
  const whole = new Map<string, ResultEvent>();
  const ranges = new Map<string, ResultEvent>();
  const listings = new Map<string, ResultEvent[]>();
  const newestListing = new Set<string>();
  const truncatedListings = new Map<string, ResultEvent>();
  const observations = new Map<string, ResultEvent>();
  const truncatedObservations = new Map<string, ResultEvent>();
  const found = new Map<number, Map<number, Supersession>>();
  const remember = (map: Map<string, ResultEvent>, key: string, event: ResultEvent): void => {
    if (!map.has(key)) map.set(key, event);
  };
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as ResultEvent;
    if (event.isStub) continue;
    const { effect } = event;
    let hit: { by: ResultEvent; rule: string } | undefined;
    if (effect?.kind === 'read' || effect?.kind === 'write' || effect?.kind === 'edit') {
      const newer = whole.get(effect.path);
      const sameRange =
        effect.kind === 'read' && effect.range !== undefined
          ? ranges.get(`${effect.path}\u0000${effect.range}`)
          : undefined;
      if (newer !== undefined) hit = { by: newer, rule: 'file-content' };
      else if (sameRange !== undefined) hit = { by: sameRange, rule: 'file-range' };
    } else if (effect?.kind === 'list') {
      const newer = listings.get(effect.path)?.find((later) => covers(later.effect as ListEffect, effect));
      const same = event.isTruncated ? truncatedListings.get(exactListing(effect)) : undefined;
      const by = newer ?? same;
      if (by !== undefined) hit = { by, rule: 'directory-listing' };
    }
    if (hit === undefined && event.observation !== undefined) {
      const same =
        observations.get(event.observation) ??
        (event.isTruncated ? truncatedObservations.get(event.observation) : undefined);
      if (same !== undefined) hit = { by: same, rule: event.observationRule };
    }
    // Parallel results in one message are simultaneous: only a later message supersedes.
    if (hit !== undefined && hit.by.message > event.message) {
      const inMessage = found.get(event.message) ?? new Map<number, Supersession>();
      found.set(event.message, inMessage);
      inMessage.set(event.part, { event, ...hit });
    }
    if (!event.holdsContent) continue;
    if (effect?.kind === 'write' || (effect?.kind === 'edit' && effect.fullContent === true)) {
      remember(whole, effect.path, event);
    } else if (effect?.kind === 'read') {
      if (effect.range === undefined) remember(whole, effect.path, event);
      else remember(ranges, `${effect.path}\u0000${effect.range}`, event);
    } else if (effect?.kind === 'list') {
      if (event.isTruncated) remember(truncatedListings, exactListing(effect), event);
      else if (!newestListing.has(exactListing(effect))) {
        // One (the newest) per exact listing: an older identical one is never found before
        // it, and the list stays as short as the distinct ways a path was listed (a session
        // that runs `ls` a thousand times would otherwise make this pass quadratic).
        newestListing.add(exactListing(effect));
        const newer = listings.get(effect.path);
        if (newer === undefined) listings.set(effect.path, [event]);
        else newer.push(event);
      }
    }
    if (event.observation !== undefined) {
      // A cut output stands only for another cut output of the same call.
      remember(event.isTruncated ? truncatedObservations : observations, event.observation, event);
    }
  }
  return found;
}
