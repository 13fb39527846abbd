import type { Message } from '../messages/types.ts';
import type { FakeAnswer, FakeChatRequest } from './chat-turn.ts';
import { isSummaryRequest } from './default-respond.ts';
import type { FakeMatch, FakeScript, FakeScriptRule } from './script.ts';

const textOf = (message: Message | undefined): string =>
  message === undefined ? '' : message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

/** How many calls each rule object has answered (`times`); a fresh script starts at zero. */
const uses = new WeakMap<FakeScriptRule, number>();

function matches(match: FakeMatch | undefined, request: FakeChatRequest): boolean {
  if (match === undefined) return true;
  const { messages } = request;
  const lastUser = textOf(messages.findLast((message) => message.role === 'user'));
  if (match.lastUserIncludes !== undefined && !lastUser.includes(match.lastUserIncludes)) return false;
  if (match.lastUserMatches !== undefined && !new RegExp(match.lastUserMatches).test(lastUser)) return false;
  if (match.systemIncludes !== undefined) {
    const system = messages
      .filter((message) => message.role === 'system')
      .map(textOf)
      .join('\n');
    if (!system.includes(match.systemIncludes)) return false;
  }
  if (match.hasTool !== undefined && !request.tools.some((tool) => tool.name === match.hasTool)) return false;
  if (match.isSummary !== undefined && isSummaryRequest(messages) !== match.isSummary) return false;
  if (match.provider !== undefined && request.provider !== match.provider) return false;
  if (match.model !== undefined && request.model !== match.model) return false;
  return true;
}

/** Assistant messages after the last user message: which model call of the turn this is. */
function callOfTurn(messages: readonly Message[]): number {
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  return messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length;
}

/**
 * The answer a script gives to a chat call: the first rule whose `match` holds, whose `times`
 * is not used up and (with `steps`) that has a step for this call of the turn. Stateless but
 * for `times`, so concurrent sessions and retried calls get the same answers.
 *
 * @param script - The rules, in priority order.
 * @param request - The call, as every wire format presents it.
 * @returns The rule's answer, or `undefined` when no rule applies (the default answer then).
 */
export function answerFromScript(script: FakeScript, request: FakeChatRequest): FakeAnswer | undefined {
  for (const rule of script.rules) {
    const used = uses.get(rule) ?? 0;
    if (rule.times !== undefined && used >= rule.times) continue;
    if (!matches(rule.match, request)) continue;
    const answer = rule.steps === undefined ? rule.reply : rule.steps[callOfTurn(request.messages)];
    if (answer === undefined) continue;
    uses.set(rule, used + 1);
    return answer;
  }
  return undefined;
}
