import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { ClipOptions } from './clip.ts';
import { clip } from './clip.ts';
import type { ImportanceOptions } from './importance.ts';
import { importance } from './importance.ts';
import type { MaskOptions } from './mask.ts';
import { mask } from './mask.ts';
import type { SummarizeStrategyOptions } from './summarize.ts';
import { summarize } from './summarize.ts';
import type { SupersedeOptions } from './supersede/index.ts';
import { supersede } from './supersede/index.ts';
import type { TruncateOptions } from './truncate.ts';
import { truncate } from './truncate.ts';
import type { Strategy } from './types.ts';

/** Options of every built-in strategy, by name. */
export interface StrategyOptions {
  readonly clip?: ClipOptions;
  readonly supersede?: SupersedeOptions;
  readonly mask?: MaskOptions;
  readonly summarize?: SummarizeStrategyOptions;
  readonly importance?: ImportanceOptions;
  readonly truncate?: TruncateOptions;
}

/** Builds a strategy from the per-strategy options. */
export type StrategyFactory = (options: StrategyOptions) => Strategy | readonly Strategy[];

/** The stages of the default pipeline (STR-7). */
export const HYBRID_STAGES = ['clip', 'supersede', 'mask', 'summarize', 'truncate'] as const;

const BUILT_IN: Readonly<Record<string, StrategyFactory>> = {
  clip: (options) => clip(options.clip),
  supersede: (options) => supersede(options.supersede),
  mask: (options) => mask(options.mask),
  summarize: (options) => summarize(options.summarize),
  importance: (options) => importance(options.importance),
  truncate: (options) => truncate(options.truncate),
  hybrid: (options) => HYBRID_STAGES.map((name) => BUILT_IN[name]?.(options) as Strategy),
  // Deterministic pipeline with no summary: what `replay --strategy deterministic` compares against.
  deterministic: (options) =>
    ['clip', 'supersede', 'mask', 'truncate'].map((name) => BUILT_IN[name]?.(options) as Strategy),
};

/** A name → strategy table that starts with the built-ins and accepts custom strategies. */
export interface StrategyRegistry {
  /** Adds or replaces a strategy (or a pipeline: a factory returning several). */
  register(name: string, factory: StrategyFactory): StrategyRegistry;
  /** Names known, built-ins first. */
  names(): string[];
  /** The stages for a name, a strategy object, or a list of either. */
  resolve(spec: StrategySpec, options?: StrategyOptions): Strategy[];
}

/** The built-in strategy and pipeline names (editors complete them; registered names work too). */
export type BuiltInStrategyName =
  | 'clip'
  | 'supersede'
  | 'mask'
  | 'summarize'
  | 'importance'
  | 'truncate'
  | 'hybrid'
  | 'deterministic';

/** A strategy name: a built-in one, or one you registered (`string & {}` keeps the built-in names in completions). */
export type StrategyName = BuiltInStrategyName | (string & {});

/** How callers name what to run: `'hybrid'`, a custom `Strategy`, or a list to run in order. */
export type StrategySpec = StrategyName | Strategy | readonly (StrategyName | Strategy)[];

/** Creates a strategy registry holding the built-ins (STR-1..7) plus anything you register. */
export function createStrategyRegistry(): StrategyRegistry {
  const factories = new Map<string, StrategyFactory>(Object.entries(BUILT_IN));
  const registry: StrategyRegistry = {
    register(name, factory) {
      if (typeof name !== 'string' || name.length === 0 || typeof factory !== 'function') {
        throw new ChatfoldError(
          'E_INVALID_OPTIONS',
          'register(name, factory): expected a non-empty name and a function',
          {
            name,
          },
        );
      }
      factories.set(name, factory);
      return registry;
    },
    names: () => [...factories.keys()],
    resolve(spec, options = {}) {
      const items = typeof spec === 'string' || !Array.isArray(spec) ? [spec as string | Strategy] : spec;
      return items.flatMap((item): Strategy[] => {
        if (typeof item !== 'string') {
          if (typeof item?.apply !== 'function' || typeof item.name !== 'string') {
            throw new ChatfoldError(
              'E_INVALID_OPTIONS',
              'strategy: expected a name or an object with name and apply()',
              {},
            );
          }
          return [item];
        }
        const factory = factories.get(item);
        if (factory === undefined) {
          throw new ChatfoldError(
            'E_UNKNOWN_STRATEGY',
            `unknown strategy ${JSON.stringify(item)}; known: ${[...factories.keys()].join(', ')}`,
            { strategy: item, known: [...factories.keys()] },
          );
        }
        const built = factory(options);
        return Array.isArray(built) ? [...built] : [built as Strategy];
      });
    },
  };
  return registry;
}
