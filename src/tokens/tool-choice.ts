import { ChatfoldError } from '../errors/chatfold-error.ts';
import { describeValue } from '../messages/tools/tool-schema.ts';
import type { ToolDefinition } from '../messages/types.ts';
import type { FunctionNamespaceFormat } from './chat-format.ts';
import type { TextEncoder } from './encodings.ts';
import type { CountOptions, FunctionCallChoice, ToolChoice } from './types.ts';

/** A checked tool choice: what the prompt's count depends on. */
export type CheckedToolChoice =
  | { readonly kind: 'auto' | 'none' | 'required' }
  | { readonly kind: 'named'; readonly name: string; readonly isLegacy: boolean };

const AUTO: CheckedToolChoice = { kind: 'auto' };

/** The forced tool's name in either OpenAI shape, or undefined when the shape is neither. */
function namedTool(choice: object): string | undefined {
  if ('function' in choice) {
    const inner = (choice as { function: unknown }).function;
    const name = typeof inner === 'object' && inner !== null ? (inner as { name?: unknown }).name : undefined;
    return (choice as { type?: unknown }).type === 'function' && typeof name === 'string' ? name : undefined;
  }
  const { name } = choice as { name?: unknown };
  return typeof name === 'string' ? name : undefined;
}

/**
 * Checks `toolChoice` / `functionCall` of count options when given (bad configuration fails
 * when given): one of the two, a known literal or a named tool that `tools` defines.
 *
 * @param options - The count options.
 * @param tools - The prompt's tool definitions (a named choice must be one of them).
 * @param where - The function the options were given to, for the message.
 * @returns What the count depends on (`auto` when neither is given).
 * @throws ChatfoldError `E_INVALID_OPTIONS` naming the option, what was expected and received.
 */
export function checkToolChoice(
  options: Pick<CountOptions, 'toolChoice' | 'functionCall'>,
  tools: readonly ToolDefinition[],
  where: string,
): CheckedToolChoice {
  const { toolChoice, functionCall } = options;
  if (toolChoice !== undefined && functionCall !== undefined) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `${where}: give toolChoice or functionCall (its legacy form), not both`,
      { option: 'toolChoice', where },
    );
  }
  const isLegacy = toolChoice === undefined;
  const choice: ToolChoice | FunctionCallChoice | undefined = isLegacy ? functionCall : toolChoice;
  if (choice === undefined) return AUTO;
  const option = isLegacy ? 'functionCall' : 'toolChoice';
  const literals = isLegacy ? ['auto', 'none'] : ['auto', 'none', 'required'];
  if (typeof choice === 'string' && literals.includes(choice)) {
    return { kind: choice as 'auto' | 'none' | 'required' };
  }
  const name = typeof choice === 'object' && choice !== null ? namedTool(choice) : undefined;
  if (name === undefined) {
    const shapes = isLegacy ? '{ name }' : "{ name } or { type: 'function', function: { name } }";
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `${where}: ${option} must be ${literals.map((l) => `'${l}'`).join(', ')} or ${shapes}, received ${describeValue(choice)}`,
      { option, where },
    );
  }
  if (!tools.some((tool) => tool.name === name)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `${where}: ${option} names the tool ${JSON.stringify(name)}, which is not among the tools given (${
        tools.length === 0 ? 'none' : tools.map((tool) => JSON.stringify(tool.name)).join(', ')
      }); the API would reject the request`,
      { option, where, name },
    );
  }
  return { kind: 'named', name, isLegacy };
}

/**
 * Tokens a tool choice adds to an OpenAI prompt with tools (see `FunctionNamespaceFormat`).
 *
 * @param choice - From {@link checkToolChoice}.
 * @param format - The chat format's function-namespace constants.
 * @param encode - Counts the tokens of a text.
 * @returns The tokens (0 for `auto`).
 */
export function toolChoiceTokens(
  choice: CheckedToolChoice,
  format: FunctionNamespaceFormat,
  encode: TextEncoder,
): number {
  switch (choice.kind) {
    case 'auto':
      return 0;
    case 'none':
      return format.choiceNone;
    case 'required':
      return format.choiceRequired;
    case 'named':
      return (choice.isLegacy ? format.functionCallNamed : format.choiceNamed) + encode(choice.name);
  }
}
