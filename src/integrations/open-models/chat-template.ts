import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { importPeer } from '../../errors/import-peer.ts';

/** A tool call as Hugging Face chat templates read it (the OpenAI Chat shape). */
export interface TemplateToolCall {
  readonly type: 'function';
  readonly id: string;
  readonly function: { readonly name: string; readonly arguments: string };
}

/**
 * A message as Hugging Face chat templates read it: `{ role, content }` plus tool calls
 * (`content` is null in a turn that only calls tools, as the OpenAI Chat format sends it).
 */
export interface TemplateMessage {
  readonly role: string;
  readonly content: string | null;
  readonly tool_calls?: readonly TemplateToolCall[];
}

/** A tool definition as templates read it: `{ type: 'function', function: { name, description, parameters } }`. */
export interface TemplateTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters: unknown;
  };
}

/** Renders a conversation into the prompt text the model reads (special tokens as text). */
export type ChatTemplate = (
  messages: readonly TemplateMessage[],
  options: { readonly addGenerationPrompt: boolean; readonly tools?: readonly TemplateTool[] },
) => string;

/** The special tokens of a `tokenizer_config.json` that chat templates read (`bos_token`, …). */
export function templateSpecialTokens(config: Readonly<Record<string, unknown>>): Record<string, string> {
  const tokens: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    if (!key.endsWith('_token')) continue;
    // Older configs write `{ "__type": "AddedToken", "content": "<s>", … }`.
    const content =
      typeof value === 'string'
        ? value
        : typeof value === 'object' &&
            value !== null &&
            typeof (value as { content?: unknown }).content === 'string'
          ? (value as { content: string }).content
          : undefined;
    if (content !== undefined) tokens[key] = content;
  }
  return tokens;
}

/**
 * The chat template a `tokenizer_config.json` names: a string, or the `default` entry of a
 * list of named templates (`[{ name: 'default', template }, { name: 'tool_use', … }]`).
 */
export function chatTemplateOf(config: Readonly<Record<string, unknown>>): string | undefined {
  const template = config.chat_template;
  if (typeof template === 'string') return template;
  if (Array.isArray(template)) {
    const named = template.filter(
      (entry): entry is { name: string; template: string } =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof (entry as { template?: unknown }).template === 'string',
    );
    return (named.find((entry) => entry.name === 'default') ?? named[0])?.template;
  }
  return undefined;
}

/**
 * Compiles a Hugging Face chat template (Jinja) with `@huggingface/jinja`, the renderer
 * transformers.js uses (TOK-3). The template sees what transformers passes it: `messages`,
 * `add_generation_prompt`, `tools` and the tokenizer's special tokens (`bos_token`, …).
 *
 * @param source - The template text (`chat_template` of tokenizer_config.json, or `chat_template.jinja`).
 * @param specialTokens - From {@link templateSpecialTokens}.
 * @param where - Where the template came from, for error messages.
 * @throws ChatfoldError `E_TOKENIZER` when the template does not parse;
 *   `E_MISSING_DEPENDENCY` without `@huggingface/jinja`.
 */
export async function compileChatTemplate(
  source: string,
  specialTokens: Readonly<Record<string, string>>,
  where: string,
): Promise<ChatTemplate> {
  const { Template } = await importPeer(
    '@huggingface/jinja',
    () => import('@huggingface/jinja'),
    'rendering a chat template',
  );
  let template: InstanceType<typeof Template>;
  try {
    template = new Template(source);
  } catch (cause) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `${where}: the chat template does not parse (${(cause as Error).message}); pass chatTemplate to use another`,
      { tokenizer: where },
      { cause },
    );
  }
  return (messages, { addGenerationPrompt, tools }) =>
    template.render({
      ...specialTokens,
      messages,
      add_generation_prompt: addGenerationPrompt,
      ...(tools === undefined || tools.length === 0 ? {} : { tools }),
    });
}
