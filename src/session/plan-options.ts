import type { CompactOptions } from '../compaction/options.ts';
import type { CompactionMode } from '../compaction/types.ts';
import type { Provider, ToolDefinition } from '../messages/types.ts';
import type { TokenCounter } from '../tokens/types.ts';
import type { SessionConfig } from './session.ts';
import type { ChatfoldOptions } from './types.ts';

/** One compaction run's inputs. */
export interface CompactionRun {
  readonly mode: CompactionMode;
  readonly window: number;
  readonly provider?: Provider;
  readonly tools?: readonly ToolDefinition[];
  readonly instructions?: string;
  readonly signal?: AbortSignal;
  /** False: no LLM call in this run (background compaction fits the prompt deterministically). */
  readonly summarizerAllowed?: boolean;
  /** Overrides the session's strategy for this run (regenerating a summary runs `summarize` alone). */
  readonly strategy?: CompactOptions['strategy'];
}

/** The `planCompaction` options of one run: the session's settings plus this call's. */
export function planOptions(
  config: SessionConfig,
  run: CompactionRun,
  session: { counter: TokenCounter; messagesSinceCompaction: number; summarizerAvailable: boolean },
): CompactOptions {
  const options = config.options;
  const instructions = [options.instructions, run.instructions].filter(Boolean).join('\n\n');
  const summarizer = session.summarizerAvailable ? options.summarizer : undefined;
  return {
    ...copy(options, [
      'responseReserve',
      'safetyMargin',
      'strategy',
      'strategyOptions',
      'registry',
      'triggers',
      'floor',
      'target',
      'protect',
    ]),
    ...(run.strategy === undefined ? {} : { strategy: run.strategy }),
    counter: session.counter,
    window: run.window,
    ...(config.maxOutputTokens === undefined ? {} : { maxOutputTokens: config.maxOutputTokens }),
    ...(run.provider === undefined ? {} : { provider: run.provider }),
    ...(run.tools === undefined ? {} : { tools: run.tools }),
    ...(summarizer === undefined ? {} : { summarizer }),
    ...(instructions === '' ? {} : { instructions }),
    ...(run.signal === undefined ? {} : { signal: run.signal }),
    mode: run.mode,
    messagesSinceCompaction: session.messagesSinceCompaction,
  };
}

/** Provider and tools from the call, else from the session configuration. */
export function pick(
  options: { readonly provider?: Provider; readonly tools?: readonly ToolDefinition[] },
  config: ChatfoldOptions,
): { provider?: Provider; tools?: readonly ToolDefinition[] } {
  const provider = options.provider ?? config.provider;
  const tools = options.tools ?? config.tools;
  return { ...(provider === undefined ? {} : { provider }), ...(tools === undefined ? {} : { tools }) };
}

/** The listed options that are set (exactOptionalPropertyTypes forbids passing `undefined`). */
function copy<K extends keyof ChatfoldOptions>(
  options: ChatfoldOptions,
  keys: readonly K[],
): Partial<Pick<ChatfoldOptions, K>> {
  const out: Partial<Pick<ChatfoldOptions, K>> = {};
  for (const key of keys) if (options[key] !== undefined) out[key] = options[key];
  return out;
}
