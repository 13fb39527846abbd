import { readdirSync, readFileSync } from 'node:fs';
import { importClaudeCode } from '../src/messages/claude-code.ts';
import { fromOpenAI, type OpenAIMessage } from '../src/messages/openai.ts';
import type { Message } from '../src/messages/types.ts';

const root = new URL('../test/fixtures/', import.meta.url).pathname;

/** Every recorded conversation in the fixtures, as neutral messages. */
export function recordedConversations(): Message[][] {
  const files = readdirSync(`${root}claude-code`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.jsonl'))
    .sort();
  const conversations = files.map(
    (file) => importClaudeCode(readFileSync(`${root}claude-code/${file}`, 'utf8')).messages,
  );
  const swe = readFileSync(`${root}swe-agent/marshmallow-1867.function-calling.openai.json`, 'utf8');
  conversations.push(fromOpenAI(JSON.parse(swe) as OpenAIMessage[]));
  return conversations;
}

/** Mixed text corpus (prose, code, tool output, JSON) built from the recorded conversations. */
export function textCorpus(): string[] {
  const texts: string[] = [];
  for (const messages of recordedConversations()) {
    for (const message of messages) {
      for (const part of message.parts) {
        if (part.type === 'text' || part.type === 'reasoning') texts.push(part.text);
        else if (part.type === 'tool-call') texts.push(part.arguments);
        else if (part.type === 'tool-result')
          for (const inner of part.content) if (inner.type === 'text') texts.push(inner.text);
      }
    }
  }
  return texts.filter((text) => text.length > 0);
}

/**
 * A long agent conversation of about `count` messages, made by repeating the recorded longest
 * session's tool rounds with fresh ids (tool groups stay whole; the goal stays first).
 */
export function syntheticSession(count: number): Message[] {
  const source = recordedConversations().reduce((a, b) => (b.length > a.length ? b : a)); // the 344-message session
  const out: Message[] = [];
  for (let round = 0; out.length < count; round++) {
    for (const message of round === 0 ? source : source.slice(1)) {
      const suffix = round === 0 ? '' : `~${round}`;
      out.push({
        ...message,
        id: `${message.id}${suffix}`,
        parts: message.parts.map((part) =>
          part.type === 'tool-call'
            ? { ...part, id: `${part.id}${suffix}` }
            : part.type === 'tool-result'
              ? { ...part, callId: `${part.callId}${suffix}` }
              : part,
        ),
      });
    }
  }
  // Cut at a unit boundary: never end between a call and its results.
  let end = count;
  while (end > 0 && out[end]?.role === 'tool') end--;
  return out.slice(0, end);
}
