// Type tests of the stateless compaction API, as users import it (`chatfold`).
import {
  applyCompactionPlan,
  type CompactionEvent,
  type CompactionMode,
  type CompactionPlan,
  type CompactionReport,
  type CompactOptions,
  type CompactResult,
  type ContextPolicy,
  compact,
  DEFAULTS,
  type JsonValue,
  type Message,
  type PolicySpec,
  planCompaction,
  type Strategy,
  type StrategySpec,
  type ToolDefinition,
} from 'chatfold';
import { describe, expectTypeOf, it } from 'vitest';

declare const messages: Message[];

/** True when a type is plain JSON data: no functions, no class instances with methods. */
type IsJson<T> = T extends JsonValue
  ? true
  : T extends (...args: never[]) => unknown
    ? false
    : T extends readonly (infer Item)[]
      ? IsJson<Item>
      : T extends object
        ? { [K in keyof T]-?: IsJson<Exclude<T[K], undefined>> }[keyof T] extends true
          ? true
          : false
        : false;

describe('compact() and planCompaction()', () => {
  it('compact resolves to { messages, plan }', () => {
    expectTypeOf(compact).returns.resolves.toEqualTypeOf<CompactResult>();
    expectTypeOf<CompactResult>().toEqualTypeOf<{
      readonly messages: readonly Message[];
      readonly plan: CompactionPlan;
    }>();
  });

  it('planCompaction resolves to a CompactionPlan, which applyCompactionPlan turns into messages', () => {
    expectTypeOf(planCompaction).returns.resolves.toEqualTypeOf<CompactionPlan>();
    expectTypeOf(applyCompactionPlan).toBeCallableWith(messages, {} as CompactionPlan);
    expectTypeOf(applyCompactionPlan).returns.toEqualTypeOf<Message[]>();
    expectTypeOf(planCompaction).parameter(1).toEqualTypeOf<CompactOptions | undefined>();
  });

  it('a plan is plain JSON data (RT-1: persisted, sent to UIs, previewed)', () => {
    expectTypeOf<IsJson<CompactionPlan>>().toEqualTypeOf<true>();
    expectTypeOf<CompactionPlan>().toExtend<CompactionReport>();
    expectTypeOf<CompactionPlan['version']>().toEqualTypeOf<1>();
    expectTypeOf<IsJson<{ at: Date }>>().toEqualTypeOf<false>();
  });

  it('a summary says where it came from', () => {
    expectTypeOf<NonNullable<CompactionPlan['summary']>['source']>().toEqualTypeOf<
      'llm' | 'extractive' | 'custom'
    >();
  });
});

describe('option unions', () => {
  it('mode is a literal union, not a boolean', () => {
    expectTypeOf<CompactionMode>().toEqualTypeOf<'auto' | 'manual' | 'overflow'>();
    expectTypeOf<CompactOptions['mode']>().toEqualTypeOf<CompactionMode | undefined>();
    expectTypeOf(compact).toBeCallableWith(messages, { model: 'gpt-4o', mode: 'manual' });
    // @ts-expect-error the 0.1 flag is gone: `mode: 'manual'`
    void compact(messages, { model: 'gpt-4o', manual: true });
    // @ts-expect-error not a mode
    void compact(messages, { model: 'gpt-4o', mode: 'sometimes' });
  });

  it('strategy takes a name, a strategy object or a list of either', () => {
    expectTypeOf<'hybrid'>().toExtend<StrategySpec>();
    expectTypeOf<['clip', 'mask', 'truncate']>().toExtend<StrategySpec>();
    expectTypeOf<Strategy>().toExtend<StrategySpec>();
    expectTypeOf<readonly (string | Strategy)[]>().toExtend<StrategySpec>();
    expectTypeOf<CompactOptions['strategy']>().toEqualTypeOf<StrategySpec | undefined>();
    expectTypeOf<number>().not.toExtend<StrategySpec>();
    expectTypeOf<{ name: string }>().not.toExtend<StrategySpec>();
  });

  it('counts and shares are numbers, the signal an AbortSignal', () => {
    expectTypeOf<CompactOptions['window']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<CompactOptions['target']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<CompactOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>();
    // @ts-expect-error a window is a number of tokens
    void compact(messages, { window: '128k' });
  });

  it('DEFAULTS is read-only and typed by value', () => {
    expectTypeOf(DEFAULTS.maskKeepRecent).toExtend<number>();
    expectTypeOf(DEFAULTS.policy).toEqualTypeOf<ContextPolicy>();
    // @ts-expect-error defaults cannot be changed
    DEFAULTS.maskKeepRecent = 3;
  });
});

describe('compaction events', () => {
  it('onEvent gets the event union, narrowed by type', () => {
    expectTypeOf<NonNullable<CompactOptions['onEvent']>>().parameter(0).toEqualTypeOf<CompactionEvent>();
    expectTypeOf<CompactionEvent['type']>().toEqualTypeOf<
      | 'compaction-start'
      | 'compaction-progress'
      | 'compaction-end'
      | 'compaction-error'
      | 'compaction-fallback'
    >();
    const onEvent = (event: CompactionEvent): void => {
      switch (event.type) {
        case 'compaction-start':
          expectTypeOf(event.mode).toEqualTypeOf<CompactionMode>();
          expectTypeOf(event.tokens).toEqualTypeOf<number>();
          break;
        case 'compaction-progress':
          expectTypeOf(event.delta).toEqualTypeOf<string | undefined>();
          break;
        case 'compaction-end':
          expectTypeOf(event.report).toEqualTypeOf<CompactionReport>();
          expectTypeOf(event.durationMs).toEqualTypeOf<number>();
          break;
        case 'compaction-error':
          expectTypeOf(event.error).toBeUnknown();
          break;
        case 'compaction-fallback':
          expectTypeOf(event.source).toEqualTypeOf<'summarizer' | 'stage' | 'counter'>();
          expectTypeOf(event.fallback).toEqualTypeOf<string>();
          break;
        default:
          expectTypeOf(event).toBeNever();
      }
    };
    expectTypeOf(compact).toBeCallableWith(messages, { model: 'gpt-4o', onEvent });
  });

  it('hooks see typed contexts and reports', () => {
    void compact(messages, {
      model: 'gpt-4o',
      hooks: {
        beforeCompact(context) {
          expectTypeOf(context.mode).toEqualTypeOf<CompactionMode>();
          expectTypeOf(context.previousSummary?.covers.count).toEqualTypeOf<number | undefined>();
          return { instructions: 'Keep the file paths.' };
        },
        afterCompact(report) {
          expectTypeOf(report).toEqualTypeOf<CompactionReport>();
        },
      },
    });
  });

  it('protect takes exactly the keys the options check accepts', () => {
    expectTypeOf<keyof NonNullable<CompactOptions['protect']>>().toEqualTypeOf<
      'keepRecent' | 'pinnedIds' | 'exemptTools'
    >();
    // The goal is the policy's `protect.firstUserMessage`; `compact()` refuses `protect.keepFirstUser`.
    // @ts-expect-error not a compact() option
    void compact(messages, { model: 'gpt-4o', protect: { keepFirstUser: false } });
  });

  it('the options type is inferred from the schema that checks it: optional, read-only, absent rather than undefined', () => {
    expectTypeOf<CompactOptions['mode']>().toEqualTypeOf<CompactionMode | undefined>();
    expectTypeOf<CompactOptions['strategy']>().toEqualTypeOf<StrategySpec | undefined>();
    expectTypeOf<CompactOptions['policy']>().toEqualTypeOf<PolicySpec | undefined>();
    expectTypeOf<CompactOptions['tools']>().toEqualTypeOf<readonly ToolDefinition[] | undefined>();
    expectTypeOf<CompactOptions['window']>().toEqualTypeOf<number | undefined>();
    const options: CompactOptions = { model: 'gpt-4o' };
    // @ts-expect-error options are read-only
    options.model = 'gpt-4o-mini';
    // @ts-expect-error exactOptionalPropertyTypes: leave a key out instead of passing undefined
    const withUndefined: CompactOptions = { model: undefined };
    void withUndefined;
  });
});
