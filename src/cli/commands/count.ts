import type { Command } from 'commander';
import { createAnthropicTokenCounter } from '../../integrations/count-tokens/anthropic.ts';
import { createGeminiTokenCounter } from '../../integrations/count-tokens/gemini.ts';
import type { CountFallback } from '../../integrations/count-tokens/provider-counter.ts';
import type { Message } from '../../messages/types.ts';
import { type ResolvedModel, resolveModel } from '../../models/resolve-model.ts';
import type { TokenCount, TokenCounter } from '../../tokens/types.ts';
import { counterForModel } from '../counter-for-model.ts';
import { note, warn } from '../diagnostics.ts';
import { CONVERSATION_FORMATS, type ConversationFormat, loadConversation } from '../load-conversation.ts';
import { defaultModelFor, parseFormat, parsePositiveInteger, print } from '../options.ts';
import { plural } from '../plural.ts';
import { readModelRegistry } from '../read-model-registry.ts';
import { renderTable } from '../render-table.ts';

interface CountCliOptions {
  model?: string;
  format?: ConversationFormat;
  json?: boolean;
  exact?: boolean;
  timeout?: number;
  registry?: string;
}

function preview(message: Message): string {
  const text = message.parts
    .map((part) =>
      part.type === 'text'
        ? part.text
        : part.type === 'tool-call'
          ? `${part.name}(${part.arguments})`
          : part.type === 'tool-result'
            ? `[${part.toolName ?? 'tool'} result] ${part.content.map((c) => (c.type === 'text' ? c.text : `[${c.kind}]`)).join(' ')}`
            : part.type === 'attachment'
              ? `[${part.kind} ${part.filename ?? part.mediaType}]`
              : '[reasoning]',
    )
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * Counts through the provider's count-tokens endpoint (TOK-4) for Anthropic and Google
 * models; keys and base URLs come from the SDKs' usual environment variables
 * (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `GEMINI_API_KEY`, …).
 */
async function countExact(
  model: ResolvedModel,
  local: TokenCounter,
  messages: readonly Message[],
  timeoutMs: number | undefined,
): Promise<TokenCount> {
  const options = {
    model: model.id,
    fallback: local,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    onFallback: (fallback: CountFallback) =>
      warn(`--exact: the ${model.provider} count endpoint failed (${fallback.reason}); counted locally`),
  };
  const env = process.env;
  const key = (...names: string[]) =>
    names.map((name) => env[name]).find((value) => value !== undefined && value !== '');
  let counter: TokenCounter | undefined;
  if (model.provider === 'anthropic') {
    if (key('ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN') === undefined) {
      warn('--exact: set ANTHROPIC_API_KEY to count through the Anthropic API; counted locally');
      return local.count(messages);
    }
    counter = await createAnthropicTokenCounter(options);
  } else if (model.provider === 'google') {
    const apiKey = key('GEMINI_API_KEY', 'GOOGLE_API_KEY');
    if (apiKey === undefined) {
      warn('--exact: set GEMINI_API_KEY to count through the Gemini API; counted locally');
      return local.count(messages);
    }
    const baseURL = env.GOOGLE_GEMINI_BASE_URL;
    counter = await createGeminiTokenCounter({
      ...options,
      apiKey,
      ...(baseURL === undefined ? {} : { baseURL }),
    });
  }
  if (counter?.countExact === undefined) {
    if (local.accuracy === 'exact') {
      // OpenAI has no count endpoint, and needs none: its BPE tokenizer runs locally (TOK-3).
      note(
        `--exact: ${model.provider} has no count-tokens endpoint; the local ${local.tokenizer} count is already exact`,
      );
    } else {
      warn(
        `--exact: ${model.provider} has no count-tokens endpoint chatfold uses; counted locally (${local.accuracy})`,
      );
    }
    return local.count(messages);
  }
  return counter.countExact(messages);
}

/** `chatfold count FILE [--model M] [--format F] [--json] [--exact]` (CLI-2, TOK-4). */
export function registerCount(program: Command): void {
  program
    .command('count')
    .description('count the tokens of a conversation file, per message and in total')
    .argument('<file>', `conversation file: ${CONVERSATION_FORMATS.join(', ')} (detected from the content)`)
    .option('-m, --model <id>', 'model whose tokenizer to use (default: by file format)')
    .option(
      '-f, --format <format>',
      `force the input format: ${CONVERSATION_FORMATS.join(', ')}`,
      parseFormat,
    )
    .option('--json', 'print machine-readable JSON')
    .option(
      '--exact',
      "Anthropic and Google models: ask the provider's count-tokens endpoint (needs an API key); OpenAI counts are exact without it",
    )
    .option('--timeout <ms>', 'timeout of the --exact request (default 5000)', parsePositiveInteger)
    .option('--registry <file>', 'a model registry file that extends and overrides the bundled one')
    .action(async (file: string, options: CountCliOptions) => {
      const registry = await readModelRegistry(options.registry);
      const { format, messages } = await loadConversation(file, options.format);
      const model = resolveModel(options.model ?? defaultModelFor(format), { registry });
      const local = await counterForModel(model);
      // Counting needs no window: for an unknown model, say which tokenizer counted instead
      // (nothing to say when the model family's own tokenizer counted exactly).
      if (model.matchedBy === undefined && model.source !== 'config') {
        if (local.accuracy !== 'exact')
          warn(
            `unknown model ${JSON.stringify(model.id)}: counted with the ${local.tokenizer} tokenizer (${local.accuracy}); \`chatfold models\` lists the models chatfold knows`,
          );
      } else {
        for (const warning of model.warnings) warn(warning);
      }
      const result = options.exact
        ? await countExact(model, local, messages, options.timeout)
        : local.count(messages);
      if (options.json) {
        print(
          JSON.stringify({
            model: model.id,
            tokenizer: result.tokenizer,
            exact: result.accuracy === 'exact',
            accuracy: result.accuracy,
            format,
            total: result.total,
            messages: messages.map((message, index) => ({
              index,
              role: message.role,
              tokens: result.perMessage[index] ?? 0,
            })),
          }),
        );
        return;
      }
      const rows = messages.map((message, index) => [
        String(index),
        message.role,
        (result.perMessage[index] ?? 0).toLocaleString('en-US'),
        preview(message),
      ]);
      for (const line of renderTable(['#', 'role', 'tokens', 'content'], rows, { alignLeft: [1, 3] }))
        print(line);
      print();
      print(
        `${plural(messages.length, 'message')}, ${plural(result.total, 'token')} (${result.accuracy}, ${result.tokenizer}, model ${model.id}, format ${format})`,
      );
    });
}
