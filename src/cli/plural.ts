/**
 * A count with its noun, singular for one: `plural(1, 'message')` → `1 message`,
 * `plural(1234, 'model call')` → `1,234 model calls`.
 *
 * @param count - The number.
 * @param noun - The singular noun.
 * @param pluralNoun - The plural when it is not `noun + 's'`.
 */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : pluralNoun}`;
}
