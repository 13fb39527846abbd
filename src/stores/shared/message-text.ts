import type { Message } from '../../messages/types.ts';

/**
 * The text a history search looks at (ST-3): message text, tool names and arguments, tool
 * results, attachment names. Lower-cased once, so a search is a substring test.
 */
export function searchableText(message: Message): string {
  const pieces: string[] = [];
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        pieces.push(part.text);
        break;
      case 'tool-call':
        pieces.push(part.name, part.arguments);
        break;
      case 'tool-result':
        for (const inner of part.content)
          pieces.push(inner.type === 'text' ? inner.text : (inner.filename ?? ''));
        break;
      case 'attachment':
        pieces.push(part.filename ?? '');
        break;
    }
  }
  return pieces.join('\n').toLowerCase();
}

/** Canonical JSON of a message, to tell an idempotent retry from a conflicting id (ST-5). */
export function messageFingerprint(message: Message): string {
  return JSON.stringify(message, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
