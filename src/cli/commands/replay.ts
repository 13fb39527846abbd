import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { replayConversation } from '../../evaluation/replay.ts';
import { renderReplayChart } from '../../evaluation/replay-chart.ts';
import type { Provider } from '../../messages/types.ts';
import { resolveModel } from '../../models/resolve-model.ts';
import { createStrategyRegistry } from '../../strategies/registry.ts';
import { counterFor } from '../../tokens/count-tokens.ts';
import { type ConversationFormat, loadConversation } from '../load-conversation.ts';
import { defaultModelFor, parseFormat, parsePositiveInteger, parseShare, print } from '../options.ts';
import { summarizerFromSpec } from '../summarizer-spec.ts';

interface ReplayCliOptions {
  model?: string;
  window?: number;
  strategy: string;
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
      '-s, --strategy <name>',
      `strategy or pipeline: ${createStrategyRegistry().names().join(', ')}`,
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
      for (const warning of model.warnings) process.stderr.write(`chatfold: warning: ${warning}\n`);
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
      if (options.chart !== undefined) {
        const svg = renderReplayChart(result.perTurn, {
          title: `${basename(file).slice(0, 40)}: ${result.strategy}, ${result.window.toLocaleString('en-US')}-token window, ${model.id}`,
          window: result.window,
          budget: result.budget,
          target: result.target,
        });
        await writeFile(options.chart, svg);
      }
      if (options.json) {
        print(JSON.stringify({ file: basename(file), model: model.id, ...result }));
        return;
      }
      const t = result.totals;
      const n = (value: number): string => value.toLocaleString('en-US');
      print(
        `replay of ${basename(file)}: ${result.turns} model calls, strategy ${result.strategy}, model ${model.id}`,
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
        `compactions       ${t.compactions}   (unmanaged would overflow on ${t.unmanagedOverflowTurns} of ${result.turns} calls)`,
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
      if (options.chart !== undefined) print(`chart             ${options.chart}`);
      if (!(inv.allFit && inv.allValid && inv.goalKept)) process.exitCode = 2;
    });
}
