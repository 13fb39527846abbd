import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { replayConversation } from '../../evaluation/replay.ts';
import { renderReplayChart } from '../../evaluation/replay-chart.ts';
import type { Provider } from '../../messages/types.ts';
import { resolveModel } from '../../models/resolve-model.ts';
import { createStrategyRegistry, type StrategySpec } from '../../strategies/registry.ts';
import { counterFor } from '../../tokens/count-tokens.ts';
import { reportError, warn } from '../diagnostics.ts';
import { type ConversationFormat, loadConversation } from '../load-conversation.ts';
import { defaultModelFor, parseFormat, parsePositiveInteger, parseShare, print } from '../options.ts';
import { plural } from '../plural.ts';
import { summarizerFromSpec } from '../summarizer-spec.ts';

interface ReplayCliOptions {
  model?: string;
  window?: number;
  strategy: StrategySpec;
  summarizer: string;
  summarizerBaseUrl?: string;
  target?: number;
  format?: ConversationFormat;
  json?: boolean;
  chart?: string;
}

const PROVIDERS: Record<string, Provider> = { openai: 'openai', anthropic: 'anthropic', google: 'gemini' };
const usd = (value: number | null): string =>
  value === null ? 'n/a (no prices for this model)' : `$${value.toFixed(2)}`;
const pct = (value: number | null): string => (value === null ? 'n/a' : `${(value * 100).toFixed(1)} %`);

/**
 * Parses `--strategy`: one name (`hybrid`), or a comma-separated pipeline whose stages run in
 * order (`supersede,mask,truncate`), each a name the registry knows.
 */
export function parseStrategy(value: string): StrategySpec {
  const names = value.split(',').map((name) => name.trim());
  if (names.some((name) => name === ''))
    throw new InvalidArgumentError(
      `expected a strategy or a comma-separated pipeline such as supersede,mask,truncate, received ${JSON.stringify(value)}`,
    );
  return names.length === 1 ? (names[0] as string) : names;
}

/** Writes the chart; a failure is `E_FILE` with the system's reason (`EACCES`, `ENOENT`, …). */
async function writeChart(path: string, svg: string): Promise<void> {
  try {
    await writeFile(path, svg);
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    throw new ChatfoldError(
      'E_FILE',
      `cannot write the chart to ${path}: ${reason}; the report above is complete, choose a writable --chart path`,
      { path },
      { cause },
    );
  }
}

/** The human-readable report. */
function printReport(
  file: string,
  modelId: string,
  result: Awaited<ReturnType<typeof replayConversation>>,
): void {
  const t = result.totals;
  const n = (value: number): string => value.toLocaleString('en-US');
  print(
    `replay of ${basename(file)}: ${plural(result.turns, 'model call')}, strategy ${result.strategy}, model ${modelId}`,
  );
  print(
    `window ${n(result.window)}, message budget ${n(result.budget)}, target ${n(result.target)} (${result.tokenizer})`,
  );
  print();
  print(
    `input tokens      unmanaged ${n(t.unmanagedInputTokens)}   chatfold ${n(t.managedInputTokens)}   saved ${pct(t.savedRatio)}`,
  );
  print(`peak prompt       unmanaged ${n(t.unmanagedPeakTokens)}   chatfold ${n(t.peakTokens)}`);
  print(
    `compactions       ${t.compactions}   (unmanaged would overflow on ${t.unmanagedOverflowTurns} of ${plural(result.turns, 'call')})`,
  );
  print(
    `input cost        unmanaged ${usd(t.costUnmanagedUSD)} (${usd(t.costUnmanagedCachedUSD)} with prompt caching)`,
  );
  print(
    `                  chatfold  ${usd(t.costManagedUSD)} (${usd(t.costManagedCachedUSD)} with prompt caching)`,
  );
  print(
    `identifiers kept  file paths ${pct(result.identifierSurvival.paths)}, commands ${pct(result.identifierSurvival.commands)}`,
  );
  const inv = result.invariants;
  print(
    `invariants        fits ${inv.allFit ? 'yes' : 'NO'}, valid ${inv.allValid ? 'yes' : 'NO'}, goal kept ${inv.goalKept ? 'yes' : 'NO'}`,
  );
}

/** `chatfold replay FILE` (CLI-3, EV-2). */
export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description(
      'replay a recorded conversation turn by turn under a strategy and report tokens, cost and invariants',
    )
    .argument(
      '<file>',
      'OpenAI / Anthropic / Gemini / AI SDK / chatfold JSON or JSONL, or a Claude Code session (.jsonl)',
    )
    .option('-m, --model <id>', 'model for the tokenizer, window and prices (default: by file format)')
    .option(
      '-w, --window <tokens>',
      "context window to replay under (default: the model's)",
      parsePositiveInteger,
    )
    .option(
      '-s, --strategy <names>',
      `a strategy, or a comma-separated pipeline run in order (supersede,mask,truncate); strategies: ${createStrategyRegistry().names().join(', ')}`,
      parseStrategy,
      'hybrid',
    )
    .option(
      '--summarizer <spec>',
      'extractive (offline) or provider:model through the AI SDK: openai:gpt-4o-mini, anthropic:…, google:…, openai-compatible:… (keys from OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY)',
      'extractive',
    )
    .option('--summarizer-base-url <url>', 'base URL of the summarizer API (any OpenAI-compatible server)')
    .option('--target <share>', 'compact down to this share of the budget', parseShare)
    .option('-f, --format <format>', 'force the input format', parseFormat)
    .option('--json', 'print the report as JSON')
    .option('--chart <file.svg>', 'write an SVG chart of context size per turn')
    .action(async (file: string, options: ReplayCliOptions) => {
      const summarizer = await summarizerFromSpec(options.summarizer, {
        ...(options.summarizerBaseUrl === undefined ? {} : { baseURL: options.summarizerBaseUrl }),
      });
      const registry = createStrategyRegistry();
      registry.resolve(options.strategy);
      const { format, messages } = await loadConversation(file, options.format);
      const model = resolveModel(options.model ?? defaultModelFor(format), {
        overrides: options.window === undefined ? {} : { contextWindow: options.window },
      });
      for (const warning of model.warnings) warn(warning);
      const provider = PROVIDERS[model.provider];
      const result = await replayConversation(messages, {
        counter: counterFor(model.tokenizer),
        window: model.contextWindow,
        maxOutputTokens: model.maxOutputTokens,
        pricing: model.pricing,
        strategy: options.strategy,
        ...(provider === undefined ? {} : { provider }),
        ...(options.target === undefined ? {} : { target: options.target }),
        ...(summarizer === undefined ? {} : { summarizer }),
      });
      if (options.json) print(JSON.stringify({ file: basename(file), model: model.id, ...result }));
      else printReport(file, model.id, result);
      const inv = result.invariants;
      // A failed invariant is exit code 2 (a CI gate); a chart that cannot be written is an
      // error after the report, which is printed either way.
      if (!(inv.allFit && inv.allValid && inv.goalKept)) process.exitCode = 2;
      if (options.chart !== undefined) {
        const svg = renderReplayChart(result.perTurn, {
          title: `${basename(file).slice(0, 40)}: ${result.strategy}, ${result.window.toLocaleString('en-US')}-token window, ${model.id}`,
          window: result.window,
          budget: result.budget,
          target: result.target,
        });
        try {
          await writeChart(options.chart, svg);
          if (!options.json) print(`chart             ${options.chart}`);
        } catch (error) {
          reportError(error);
          process.exitCode ??= 1;
        }
      }
    });
}
