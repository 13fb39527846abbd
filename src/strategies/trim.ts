import { ChatfoldError } from '../errors/chatfold-error.ts';
import { checkMessageList, withCallerObjects } from '../messages/check-messages.ts';
import { describe } from '../messages/normalize.ts';
import { isArray } from '../messages/snapshot.ts';
import type { Message } from '../messages/types.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { invalid, readTrimOptions, type Settings, type TrimOptions } from './trim-options.ts';
import { type NextUnit, type TrimUnit, unitsFromEnd, unitsFromStart } from './trim-units.ts';

export type {
  LangChainMessageClass,
  MessagesTokenCounter,
  TextSplitter,
  TrimMessageType,
  TrimMessageTypes,
  TrimOptions,
} from './trim-options.ts';

type Awaitable<T> = T | PromiseLike<T>;

type Request =
  | { readonly kind: 'count'; readonly messages: Message[] }
  | { readonly kind: 'split'; readonly text: string };
type Step<T> = Generator<Request, T, unknown>;

/** How much of the (lazily built) element list fits, and whether a prefix plus one message fits. */
interface Measure {
  longestPrefix(pull: (k: number) => TrimUnit | undefined): Step<number>;
  fitsWith(prefix: readonly TrimUnit[], extra: Message): Step<boolean>;
}

function* count(messages: Message[]): Step<number> {
  return (yield { kind: 'count', messages }) as number;
}

// biome-ignore lint/correctness/useYield: a value computed without asking the caller anything
function* answered<T>(value: T): Step<T> {
  return value;
}

/** Sums per-message counts with the counter's cache: one pass over the kept messages. */
function measureWithCounter(counter: TokenCounter, maxTokens: number): Measure {
  let used = counter.count([]).total;
  const cost = (messages: readonly Message[]) =>
    messages.reduce((sum, m) => sum + counter.countMessage(m), 0);
  return {
    longestPrefix(pull) {
      let k = 0;
      for (let unit = pull(0); unit !== undefined; unit = pull(++k)) {
        const next = used + cost(unit.messages);
        if (next > maxTokens) break;
        used = next;
      }
      return answered(k);
    },
    // Summed per message, so the position of `extra` does not matter.
    fitsWith: (_prefix, extra) => answered(used + counter.countMessage(extra) <= maxTokens),
  };
}

function measureWithFunction(
  maxTokens: number,
  order: (prefix: readonly TrimUnit[], extra?: Message) => Message[],
): Measure {
  return {
    *longestPrefix(pull) {
      const all: TrimUnit[] = [];
      for (let unit = pull(0); unit !== undefined; unit = pull(all.length)) all.push(unit);
      const fits = function* (k: number): Step<boolean> {
        return (yield* count(order(all.slice(0, k)))) <= maxTokens;
      };
      // Double while it fits, then halve between the last fit and the first miss.
      let good = 0;
      let bad = all.length + 1;
      for (let probe = 1; probe <= all.length; probe = Math.min(probe * 2, all.length)) {
        if (!(yield* fits(probe))) {
          bad = probe;
          break;
        }
        good = probe;
        if (probe === all.length) break;
      }
      while (bad - good > 1) {
        const middle = Math.floor((good + bad) / 2);
        if (yield* fits(middle)) good = middle;
        else bad = middle;
      }
      return good;
    },
    *fitsWith(prefix, extra) {
      return (yield* count(order(prefix, extra))) <= maxTokens;
    },
  };
}

/** A copy of `message` with other parts: the original keeps its own (never mutated). */
function withParts(message: Message, parts: Message['parts']): Message {
  const { usage: _usage, ...rest } = message; // usage was reported for the whole message
  return { ...rest, parts };
}

/** The largest part of `message` that fits after `prefix`, or undefined (LangChain's `allowPartial`). */
function* partialOf(
  message: Message,
  prefix: readonly TrimUnit[],
  settings: Settings,
  measure: Measure,
): Step<Message | undefined> {
  // Leading parts, as many as fit (all of them did not: that is why the message was cut).
  let best: Message | undefined;
  for (let i = 1; i < message.parts.length; i++) {
    const candidate = withParts(message, message.parts.slice(0, i));
    if (!(yield* measure.fitsWith(prefix, candidate))) break;
    best = candidate;
  }
  if (best !== undefined) return best;
  const textPart = message.parts.find((part) => part.type === 'text' && part.text !== '');
  if (textPart?.type !== 'text') return undefined;
  const pieces = [...((yield { kind: 'split', text: textPart.text }) as string[])];
  if (settings.strategy === 'last') pieces.reverse();
  for (let keep = pieces.length - 1; keep >= 1; keep--) {
    const kept = pieces.slice(0, keep);
    if (settings.strategy === 'last') kept.reverse();
    const candidate = withParts(message, [{ ...textPart, text: kept.join('') }]);
    if (yield* measure.fitsWith(prefix, candidate)) return candidate;
  }
  return undefined;
}

function* trim(messages: readonly Message[], settings: Settings): Step<Message[]> {
  const { strategy, startOn, endOn } = settings;
  const first = (unit: TrimUnit) => (unit.messages[0] as Message).role;
  const last = (unit: TrimUnit) => (unit.messages[unit.messages.length - 1] as Message).role;

  // The elements, in the order they are kept: under 'last' the pinned system message, then
  // units newest first; under 'first' units oldest first.
  const elements: TrimUnit[] = [];
  let next: NextUnit;
  let pinned = false;
  if (strategy === 'last') {
    const system = settings.includeSystem && messages[0]?.role === 'system' ? messages[0] : undefined;
    next = unitsFromEnd(messages, system === undefined ? 0 : 1);
    // endOn under 'last': the messages after the last endOn type go before anything is counted.
    let newest = next();
    while (endOn !== undefined && newest !== undefined && !endOn.has(last(newest))) newest = next();
    if (system !== undefined && (newest !== undefined || endOn === undefined || endOn.has('system'))) {
      elements.push({ messages: [system], isSplittable: true });
      pinned = true;
    }
    if (newest !== undefined) elements.push(newest);
  } else {
    next = unitsFromStart(messages);
  }
  const pull = (k: number): TrimUnit | undefined => {
    while (elements.length <= k) {
      const unit = next();
      if (unit === undefined) return undefined;
      elements.push(unit);
    }
    return elements[k];
  };
  const order = (prefix: readonly TrimUnit[], extra?: Message): Message[] => {
    const out: Message[] = [];
    if (strategy === 'first') {
      for (const unit of prefix) out.push(...unit.messages);
      if (extra !== undefined) out.push(extra);
      return out;
    }
    const from = pinned && prefix.length > 0 ? 1 : 0;
    if (from === 1) out.push(...(prefix[0] as TrimUnit).messages);
    if (extra !== undefined) out.push(extra);
    for (let i = prefix.length - 1; i >= from; i--) out.push(...(prefix[i] as TrimUnit).messages);
    return out;
  };

  const measure =
    settings.counter === undefined
      ? measureWithFunction(settings.maxTokens, order)
      : measureWithCounter(settings.counter, settings.maxTokens);
  let kept = yield* measure.longestPrefix(pull);
  const cut = settings.allowPartial ? pull(kept) : undefined;
  if (cut?.isSplittable === true) {
    const prefix = elements.slice(0, kept);
    const partial = yield* partialOf(cut.messages[0] as Message, prefix, settings, measure);
    if (partial !== undefined) elements[kept++] = { messages: [partial], isSplittable: true };
  }

  // startOn ('last') and endOn ('first') drop kept elements from the far end of the cut.
  if (strategy === 'last' && startOn !== undefined) {
    while (kept > 0 && !startOn.has(first(elements[kept - 1] as TrimUnit))) kept--;
  } else if (strategy === 'first' && endOn !== undefined) {
    while (kept > 0 && !endOn.has(last(elements[kept - 1] as TrimUnit))) kept--;
  }
  return order(elements.slice(0, kept));
}

function checked(request: Request, value: unknown): unknown {
  if (request.kind === 'count') {
    if (typeof value !== 'number' || Number.isNaN(value)) {
      throw invalid('tokenCounter', `tokenCounter returned ${describe(value)}; expected a number`);
    }
    return value;
  }
  if (!Array.isArray(value) || !value.every((piece) => typeof piece === 'string')) {
    throw invalid('textSplitter', `textSplitter returned ${describe(value)}; expected an array of strings`);
  }
  return value;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as PromiseLike<unknown>).then === 'function';

/**
 * Trims a conversation to `maxTokens` with LangChain.js `trimMessages` options and semantics
 * (STR-9): `strategy` `'last'` (default) or `'first'`, `allowPartial`, `startOn`, `endOn`,
 * `includeSystem`, `textSplitter`, and `tokenCounter` as a function over messages or a chatfold
 * {@link TokenCounter}. When nothing fits the result is `[]`, as in LangChain.js.
 *
 * One deliberate difference: it never returns an orphan tool result or splits a tool group (MSG-3).
 * An assistant turn and the tool results that answer it are kept or dropped whole (also by
 * `startOn`, `endOn` and `allowPartial`), results whose call is not in the turn before them are
 * left out, and so are calls without a result except in the conversation's last turn (a call in
 * flight). Where LangChain.js 1.x repeats a partial message or reverses its kept blocks (more than
 * two blocks of which more than one fits), the blocks here are kept once, in order.
 *
 * With a {@link TokenCounter} it is synchronous and O(kept messages) with a warm counter: the
 * messages are counted one by one with the counter's cache and older ones are never visited.
 * With callbacks that return promises it returns a promise, so `await trimToTokens(…)` works
 * wherever `await trimMessages(…)` did. The input is never mutated; kept messages are the
 * caller's objects except a partial message and a message whose orphan parts were left out.
 *
 * @param messages Neutral messages, oldest first.
 * @param options LangChain's `trimMessages` options (`counter` is accepted for `tokenCounter`).
 * @returns The kept messages, oldest first (a promise when a callback returned one).
 * @throws ChatfoldError `E_INVALID_MESSAGES` when `messages` is not an array, the entry check's
 *   codes for malformed messages (`assertMessages`); `E_INVALID_OPTIONS` for a bad option or a
 *   callback returning something other than a number / string array.
 *
 * @example
 * // LangChain: await trimMessages(history, { maxTokens: 4000, tokenCounter: model, strategy: 'last', startOn: 'human', includeSystem: true })
 * const kept = trimToTokens(history, { maxTokens: 4000, tokenCounter: createTokenCounter({ model: 'gpt-4o' }), startOn: 'human', includeSystem: true });
 */
export function trimToTokens(messages: readonly Message[], options: TrimOptions): Message[];
export function trimToTokens(
  messages: readonly Message[],
  options: TrimOptions<Awaitable<number>, Awaitable<string[]>>,
): Message[] | Promise<Message[]>;
export function trimToTokens(
  messages: readonly Message[],
  options: TrimOptions<Awaitable<number>, Awaitable<string[]>>,
): Message[] | Promise<Message[]> {
  if (!isArray(messages)) {
    throw new ChatfoldError(
      'E_INVALID_MESSAGES',
      `trimToTokens: expected an array of messages, received ${describe(messages)}; to reuse options, write (messages) => trimToTokens(messages, options)`,
      {},
    );
  }
  // MSG-4: malformed messages get a typed error naming the path, not a TypeError inside.
  const list = checkMessageList(messages, 'trimToTokens'); // read once (issue 24 §2)
  const { settings, countList, split } = readTrimOptions(options as TrimOptions<unknown, unknown>);
  const answer = (request: Request): unknown =>
    request.kind === 'count' ? countList?.(request.messages) : split(request.text);
  const steps = trim(list.messages, settings);
  const kept = (out: Message[]): Message[] => withCallerObjects(out, list);
  // Run synchronously until a callback returns a promise, then continue asynchronously.
  let step = steps.next();
  while (step.done !== true) {
    const request = step.value;
    const value = answer(request);
    if (isThenable(value)) return finish(steps, request, value, answer).then(kept);
    step = steps.next(checked(request, value));
  }
  return kept(step.value);
}

async function finish(
  steps: Step<Message[]>,
  pending: Request,
  value: PromiseLike<unknown>,
  answer: (request: Request) => unknown,
): Promise<Message[]> {
  let step = steps.next(checked(pending, await value));
  while (step.done !== true) step = steps.next(checked(step.value, await answer(step.value)));
  return step.value;
}
