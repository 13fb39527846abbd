import type { Command } from 'commander';
import { listModels } from '../../models/list-models.ts';
import type { ModelEntry } from '../../models/registry.ts';
import { BUNDLED_MODELS_SOURCES } from '../../models/registry.ts';
import { print } from '../options.ts';
import { plural } from '../plural.ts';
import { readModelRegistry } from '../read-model-registry.ts';
import { renderTable } from '../render-table.ts';

const money = (value: number | undefined): string =>
  value === undefined ? '-' : `$${Number(value.toFixed(4)).toString()}`;
const tokens = (value: number | undefined): string =>
  value === undefined ? '-' : value.toLocaleString('en-US');

/** The `--json` shape of one model: every key always present (`null` when unknown), so it stays stable (CLI-5). */
function toJson(model: ModelEntry) {
  return {
    id: model.id,
    provider: model.provider,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens ?? null,
    tokenizer: model.tokenizer,
    pricing: {
      input: model.pricing.input ?? null,
      output: model.pricing.output ?? null,
      cacheRead: model.pricing.cacheRead ?? null,
      cacheWrite: model.pricing.cacheWrite ?? null,
    },
    aliases: model.aliases ?? [],
  };
}

/** `chatfold models [query] [--json] [--registry FILE]` (MOD-3, CLI-4). */
export function registerModels(program: Command): void {
  program
    .command('models')
    .description(
      'list the models chatfold knows: context window, max output, tokenizer, prices per million tokens',
    )
    .argument(
      '[query...]',
      'only models whose provider/id or an alias contains every word (e.g. claude sonnet)',
    )
    .option('--json', 'print machine-readable JSON')
    .option('--registry <file>', 'a model registry file that extends and overrides the bundled one')
    .action(async (words: string[], options: { json?: boolean; registry?: string }) => {
      const registry = await readModelRegistry(options.registry);
      const query = words.join(' ');
      const models = listModels(query, { registry });
      // Nothing matching is a failure (exit 1), so a script that checks a model id notices.
      if (models.length === 0) process.exitCode = 1;
      if (options.json) {
        print(JSON.stringify(models.map(toJson)));
        return;
      }
      if (models.length === 0) {
        process.stderr.write(
          `chatfold: no model matches ${JSON.stringify(query)}; \`chatfold models\` lists all ${registry.entries.length}\n`,
        );
        return;
      }
      const header = [
        'model',
        'window',
        'max output',
        'tokenizer',
        'in $/M',
        'out $/M',
        'cache read',
        'cache write',
      ];
      const rows = models.map((m) => [
        `${m.provider}/${m.id}`,
        tokens(m.contextWindow),
        tokens(m.maxOutputTokens),
        m.tokenizer,
        money(m.pricing.input),
        money(m.pricing.output),
        money(m.pricing.cacheRead),
        money(m.pricing.cacheWrite),
      ]);
      for (const line of renderTable(header, rows, { alignLeft: [0, 3] })) print(line);
      print();
      const sources = BUNDLED_MODELS_SOURCES.sources.map((s) => `${s.name} ${s.version}`).join(', ');
      print(
        `${plural(models.length, 'model')}; prices in US dollars per million tokens; bundled data of ${BUNDLED_MODELS_SOURCES.generatedAt} from ${sources}${options.registry === undefined ? '' : `, extended by ${options.registry}`}`,
      );
    });
}
