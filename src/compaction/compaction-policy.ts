import type { ContextPolicy } from '../policy/context-policy.ts';
import { resolvePolicy } from '../policy/presets.ts';
import type { StrategySpec } from '../strategies/registry.ts';
import type { CompactionSettings } from './options.ts';

/**
 * The one complete policy a call runs under: `options.policy` (a preset, a policy, or a preset
 * with overrides; default the `default` preset), then the shorthands, each replacing its
 * field, and the older per-strategy spellings of the same fields (`protect.keepRecent`,
 * `strategyOptions.summarize.retention*`, a `strategy` made of names). What this returns is
 * what reports, `/context` and the settings page show: nothing else decides.
 */
export function compactionPolicy(options: CompactionSettings, where = 'policy'): ContextPolicy {
  const base = resolvePolicy(options.policy, where);
  const summarizeOptions = options.strategyOptions?.summarize;
  const names = strategyNames(options.strategy);
  const retention = {
    ...base.retention,
    ...(summarizeOptions?.retentionTokens === undefined ? {} : { tokens: summarizeOptions.retentionTokens }),
    ...(summarizeOptions?.retentionMessages === undefined
      ? {}
      : { messages: summarizeOptions.retentionMessages }),
  };
  const changed =
    options.triggers !== undefined ||
    options.floor !== undefined ||
    options.target !== undefined ||
    options.responseReserve !== undefined ||
    options.safetyMargin !== undefined ||
    options.protect?.keepRecent !== undefined ||
    summarizeOptions?.retentionTokens !== undefined ||
    summarizeOptions?.retentionMessages !== undefined ||
    names !== undefined;
  if (!changed) return base;
  return {
    ...base,
    name:
      base.name === 'custom' || base.name.endsWith('(customized)') ? base.name : `${base.name} (customized)`,
    ...(options.triggers === undefined ? {} : { triggers: options.triggers.map((group) => ({ ...group })) }),
    ...(options.floor === undefined ? {} : { floor: { ...base.floor, tokens: options.floor } }),
    ...(options.target === undefined ? {} : { target: { fraction: options.target } }),
    ...(options.responseReserve === undefined ? {} : { responseReserve: options.responseReserve }),
    ...(options.safetyMargin === undefined ? {} : { safetyMargin: options.safetyMargin }),
    ...(options.protect?.keepRecent === undefined
      ? {}
      : { protect: { ...base.protect, recentMessages: options.protect.keepRecent } }),
    retention,
    ...(names === undefined ? {} : { pipeline: names }),
  };
}

/** The names of a strategy spec made only of names (`'hybrid'` expands to its stages); else undefined. */
function strategyNames(spec: StrategySpec | undefined): string[] | undefined {
  if (spec === undefined) return undefined;
  const items = typeof spec === 'string' || !Array.isArray(spec) ? [spec] : [...spec];
  if (!items.every((item): item is string => typeof item === 'string')) return undefined;
  return items;
}
