import { DEFAULTS } from '../defaults.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';

/**
 * One AND-group of conditions (TRG-2): it fires when every condition it sets holds.
 * - `fraction`: tokens ≥ fraction × budget
 * - `tokens`: tokens ≥ this absolute count (seed 004: 128,000)
 * - `messages`: messages since the last compaction ≥ this count (seed 004: 30)
 */
export interface TriggerGroup {
  readonly fraction?: number;
  readonly tokens?: number;
  readonly messages?: number;
}

/** Triggers fire when ANY group fires (OR of AND-groups, TRG-2). */
export type Triggers = readonly TriggerGroup[];

/** What the triggers are measured against. */
export interface TriggerInput {
  readonly tokens: number;
  readonly budget: number;
  readonly messagesSinceCompaction: number;
}

/** Result of {@link evaluateTriggers}. */
export interface TriggerDecision {
  /** True when a trigger fired or the prompt is over budget. */
  readonly shouldCompact: boolean;
  /** `overflow` when over budget (cannot be cancelled), `auto` when a trigger fired. */
  readonly trigger?: 'auto' | 'overflow';
  /** Human-readable reason, e.g. `tokens 41,200 ≥ 80 % of budget 50,000`. */
  readonly reason: string;
}

/** Checks triggers for shape errors once, at the boundary. */
export function checkTriggers(triggers: Triggers): Triggers {
  if (!Array.isArray(triggers) || triggers.length === 0) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      'triggers: expected a non-empty array of trigger groups',
      {},
    );
  }
  triggers.forEach((group, index) => {
    const keys = Object.keys(group).filter((key) => group[key as keyof TriggerGroup] !== undefined);
    if (keys.length === 0) {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `triggers[${index}]: a group needs fraction, tokens or messages`,
        {
          index,
        },
      );
    }
    for (const key of keys) {
      const value = group[key as keyof TriggerGroup];
      const valid =
        key === 'fraction'
          ? typeof value === 'number' && value > 0 && value <= 1
          : key === 'tokens' || key === 'messages'
            ? Number.isInteger(value) && (value as number) > 0
            : false;
      if (!valid) {
        throw new ChatfoldError(
          'E_INVALID_OPTIONS',
          `triggers[${index}].${key}: expected ${key === 'fraction' ? 'a number in (0, 1]' : key === 'tokens' || key === 'messages' ? 'a positive integer' : 'no such key (fraction, tokens or messages)'}, received ${JSON.stringify(value)}`,
          { index, key },
        );
      }
    }
  });
  return triggers;
}

const format = (n: number): string => n.toLocaleString('en-US');

/**
 * Decides whether to compact (TRG-2, TRG-3). Over budget always fires (`overflow`); below
 * the floor nothing auto-fires.
 */
export function evaluateTriggers(
  input: TriggerInput,
  { triggers = DEFAULTS.triggers, floor = DEFAULTS.floor }: { triggers?: Triggers; floor?: number } = {},
): TriggerDecision {
  const { tokens, budget, messagesSinceCompaction } = input;
  if (tokens > budget) {
    return {
      shouldCompact: true,
      trigger: 'overflow',
      reason: `tokens ${format(tokens)} > budget ${format(budget)}`,
    };
  }
  if (tokens < floor) {
    return { shouldCompact: false, reason: `tokens ${format(tokens)} below floor ${format(floor)}` };
  }
  for (const group of triggers) {
    const reasons: string[] = [];
    let fires = true;
    if (group.fraction !== undefined) {
      const ok = tokens >= group.fraction * budget;
      fires &&= ok;
      reasons.push(
        `tokens ${format(tokens)} ≥ ${Math.round(group.fraction * 100)} % of budget ${format(budget)}`,
      );
    }
    if (group.tokens !== undefined) {
      fires &&= tokens >= group.tokens;
      reasons.push(`tokens ${format(tokens)} ≥ ${format(group.tokens)}`);
    }
    if (group.messages !== undefined) {
      fires &&= messagesSinceCompaction >= group.messages;
      reasons.push(`${messagesSinceCompaction} messages since last compaction ≥ ${group.messages}`);
    }
    if (fires) return { shouldCompact: true, trigger: 'auto', reason: reasons.join(' and ') };
  }
  return { shouldCompact: false, reason: 'no trigger fired' };
}
