import type { Message } from '../messages/types.ts';

/** Every piece of text a projection sends (text, reasoning, tool names, arguments, outputs), joined. */
export function projectionText(messages: readonly Message[]): string {
  const chunks: string[] = [];
  for (const message of messages) {
    for (const part of message.parts) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          chunks.push(part.text);
          break;
        case 'tool-call':
          chunks.push(part.name, part.arguments);
          // Arguments are JSON: also index the decoded strings so `a "b"` matches `a \"b\"`.
          collectStrings(safeParse(part.arguments), chunks);
          break;
        case 'tool-result':
          for (const inner of part.content) if (inner.type === 'text') chunks.push(inner.text);
          break;
        case 'attachment':
          if (part.filename !== undefined) chunks.push(part.filename);
          break;
      }
    }
  }
  return chunks.join('\n');
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function collectStrings(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into);
  else if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) collectStrings(item, into);
}
