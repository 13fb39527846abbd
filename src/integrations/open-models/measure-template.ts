import type { Role } from '../../messages/types.ts';
import type { ChatTemplate, TemplateMessage, TemplateTool } from './chat-template.ts';

/**
 * What a chat template adds to a conversation, measured by rendering it (TOK-3). Templates
 * wrap each message in role markers independently of the others (Llama 3, Qwen 3, DeepSeek V3,
 * Gemma, harmony), so a prompt's tokens are these overheads plus each message's content.
 */
export interface TemplateShape {
  /** Tokens once per prompt: begin-of-text, a default system message, the generation prompt. */
  readonly perPrompt: number;
  /** Tokens around one message of each role (role markers, separators, end-of-turn). */
  readonly perRole: Readonly<Record<Role, number>>;
  /** Tokens around one tool call, besides its name and arguments. */
  readonly perToolCall: number;
  /**
   * Extra tokens of an assistant message after the last user message (Qwen 3 renders an
   * empty think block there, and only there); 0 for most templates.
   */
  readonly perTrailingAssistant: number;
  /**
   * Roles whose content the template trims (`message['content'] | trim`: Llama 3, Gemma's
   * turns, but not the system prompt Gemma 3 prefixes to the first turn).
   */
  readonly trimmedRoles: readonly Role[];
  /** Roles the template refuses on their own (Gemma 2: no system role); counted like `user`. */
  readonly unsupportedRoles: readonly Role[];
}

/** Used when a template does not render tool calls at all: count them like OpenAI's format. */
const UNRENDERED_TOOL_CALL = 3;

const user = (content: string): TemplateMessage => ({ role: 'user', content });
const assistant = (content: string): TemplateMessage => ({ role: 'assistant', content });
const CALL = {
  type: 'function',
  id: 'call_1',
  function: { name: 'get_weather', arguments: '{"city": "Paris"}' },
} as const;

/**
 * Measures a chat template by rendering small conversations and encoding them (TOK-3): the
 * differences between renderings of one, two and three messages give each role's overhead,
 * the preamble and the generation prompt. Templates that insist on alternating user and
 * assistant turns (Gemma) are measured with alternating turns only.
 *
 * @param render - The chat template.
 * @param countPrompt - Tokens of rendered prompt text (special tokens written as text count as one).
 * @param countContent - Tokens of message content.
 */
export function measureTemplate(
  render: ChatTemplate,
  countPrompt: (text: string) => number,
  countContent: (text: string) => number,
): TemplateShape {
  const length = (messages: TemplateMessage[], addGenerationPrompt = false): number =>
    countPrompt(render(messages, { addGenerationPrompt }));
  const tryLength = (messages: TemplateMessage[]): number | undefined => {
    try {
      return length(messages);
    } catch {
      return undefined;
    }
  };
  const [u1, a1, u2, s1, r1] = ['Hello', 'Sure', 'Thanks', 'Be brief', 'Sunny'];
  const padded = (text: string) => `  ${text}  `;
  const trims = (messages: (text: string) => TemplateMessage[], text: string): boolean => {
    try {
      return length(messages(padded(text))) === length(messages(text));
    } catch {
      return false;
    }
  };
  const trimsUser = trims((text) => [user(text)], u1);
  const trimmedRoles = (
    [
      ['system', trims((text) => [{ role: 'system', content: text }, user(u1)], s1)],
      ['user', trimsUser],
      ['assistant', trims((text) => [user(u1), assistant(text)], a1)],
      ['tool', trimsUser],
    ] as const
  )
    .filter(([, trimmed]) => trimmed)
    .map(([role]) => role);
  const contentOf = (role: Role) => (text: string) =>
    countContent(trimmedRoles.includes(role) ? text.trim() : text);
  const content = contentOf('user');

  const one = length([user(u1)]);
  const two = length([user(u1), assistant(a1)]);
  const three = length([user(u1), assistant(a1), user(u2)]);
  const assistantLast = two - one - contentOf('assistant')(a1);
  const twoUsers = tryLength([user(u1), user(u2)]);
  // Without two user turns in a row (Gemma refuses them), an assistant turn costs the same
  // wherever it stands.
  const perUser = twoUsers === undefined ? three - two - content(u2) : twoUsers - one - content(u2);
  const perAssistant =
    twoUsers === undefined ? assistantLast : three - two - perUser - content(u2) + assistantLast;
  const unsupportedRoles: Role[] = [];
  const overheadOf = (role: Role, measured: number | undefined): number => {
    if (measured !== undefined) return measured;
    unsupportedRoles.push(role);
    return perUser;
  };
  const withSystem = tryLength([{ role: 'system', content: s1 }, user(u1)]);
  const perSystem = overheadOf(
    'system',
    withSystem === undefined ? undefined : withSystem - one - contentOf('system')(s1),
  );
  // Templates read a call-only assistant turn's content as null (DeepSeek V3) or as '' (others).
  const calling = (content: string | null): TemplateMessage => ({
    role: 'assistant',
    content,
    tool_calls: [CALL],
  });
  const callContent = tryLength([user(u1), calling(null)]) === undefined ? '' : null;
  const called = tryLength([user(u1), calling(callContent)]);
  const answered = tryLength([user(u1), calling(callContent), { role: 'tool', content: r1 }]);
  const perTool = overheadOf(
    'tool',
    answered === undefined || called === undefined ? undefined : answered - called - content(r1),
  );
  const silent = tryLength([user(u1), assistant('')]);
  const callTokens =
    called === undefined || silent === undefined
      ? undefined
      : called - silent - countContent(CALL.function.name) - countContent(CALL.function.arguments);
  return {
    perPrompt: one - perUser - content(u1) + (length([user(u1)], true) - one),
    perRole: { system: perSystem, user: perUser, assistant: perAssistant, tool: perTool },
    perToolCall: callTokens === undefined || callTokens < 0 ? UNRENDERED_TOOL_CALL : callTokens,
    perTrailingAssistant: assistantLast - perAssistant,
    trimmedRoles,
    unsupportedRoles,
  };
}

/**
 * Tokens a template adds for a set of tool definitions: the rendering with them minus the one
 * without, or `undefined` when the template does not render tools.
 */
export function measureTools(
  render: ChatTemplate,
  countPrompt: (text: string) => number,
  tools: readonly TemplateTool[],
): number | undefined {
  const messages = [user('Hello')];
  try {
    const added =
      countPrompt(render(messages, { addGenerationPrompt: true, tools })) -
      countPrompt(render(messages, { addGenerationPrompt: true }));
    return added > 0 ? added : undefined;
  } catch {
    return undefined;
  }
}
