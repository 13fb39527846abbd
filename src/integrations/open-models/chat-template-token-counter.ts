import type { ToolDefinition } from '../../messages/types.ts';
import type { CountAccuracy, TokenCounter } from '../../tokens/types.ts';
import type { ChatTemplate, TemplateTool } from './chat-template.ts';
import { measureTemplate, measureTools, type TemplateShape } from './measure-template.ts';
import { createTemplateTokenCounter } from './template-token-counter.ts';

/** The part of a Hugging Face tokenizer (`@lenml/tokenizers`, transformers.js) chatfold uses. */
export interface HuggingFaceTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
}

/** Options of {@link createChatTemplateTokenCounter}. */
export interface ChatTemplateTokenCounterOptions {
  /** Id reported on counts, e.g. `open:qwen3` or `hf:/models/Qwen3-8B`. */
  readonly tokenizer: string;
  readonly encoder: HuggingFaceTokenizer;
  readonly template: ChatTemplate;
  /** Default `exact`. */
  readonly accuracy?: CountAccuracy;
  readonly cacheSize?: number;
}

/** A counter and the template measurements it counts with. */
export interface ChatTemplateCounter {
  readonly counter: TokenCounter;
  readonly shape: TemplateShape;
}

/** Tool definitions as templates receive them (`tools` of the OpenAI Chat request). */
export const toTemplateTools = (tools: readonly ToolDefinition[]): TemplateTool[] =>
  tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
    },
  }));

/**
 * A token counter from a tokenizer and its chat template (TOK-3): the template is measured
 * once (`measureTemplate`), then messages count as the template's overhead plus their
 * content's tokens. Tool definitions count as the template renders them; a template that does
 * not render tools gets their JSON's tokens (what a server would add with a template that does).
 */
export function createChatTemplateTokenCounter({
  tokenizer,
  encoder,
  template,
  accuracy = 'exact',
  cacheSize,
}: ChatTemplateTokenCounterOptions): ChatTemplateCounter {
  const encode = (text: string): number =>
    text === '' ? 0 : encoder.encode(text, { add_special_tokens: false }).length;
  const shape = measureTemplate(template, encode, encode);
  const counter = createTemplateTokenCounter({
    tokenizer,
    encode,
    shape,
    accuracy,
    ...(cacheSize === undefined ? {} : { cacheSize }),
    countTools: (tools) => {
      const rendered = toTemplateTools(tools);
      return measureTools(template, encode, rendered) ?? encode(JSON.stringify(rendered));
    },
  });
  return { counter, shape };
}
