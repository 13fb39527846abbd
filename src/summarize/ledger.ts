import { toolArguments } from '../messages/tool-arguments.ts';
import type { Message } from '../messages/types.ts';
import type { FactLedger } from './types.ts';

/** Caps of each ledger list; the newest entries are kept. */
export const DEFAULT_LEDGER_CAPS: Readonly<Record<keyof FactLedger, number>> = {
  filesRead: 100,
  filesModified: 100,
  commands: 100,
  urls: 20,
  identifiers: 30,
  numbers: 20,
  errors: 12,
};

/** A fresh ledger with empty, appendable lists, one per kind of fact. */
export function emptyFactLists(): Record<keyof FactLedger, string[]> {
  return {
    filesRead: [],
    filesModified: [],
    commands: [],
    urls: [],
    identifiers: [],
    numbers: [],
    errors: [],
  };
}

export const EMPTY_LEDGER: FactLedger = emptyFactLists();

/** Argument keys that hold a file or directory path, across agent frameworks. */
const PATH_KEYS = [
  'file_path',
  'filePath',
  'path',
  'filename',
  'file',
  'target_file',
  'notebook_path',
  'absolute_path',
  'dir_path',
];
/** Argument keys that hold a shell command. */
const COMMAND_KEYS = ['command', 'cmd', 'script'];
const MODIFYING_TOOL = /write|edit|create|replace|patch|insert|delete|remove|move|rename|apply|update/i;
const SHELL_TOOL = /bash|shell|exec|run|terminal|command|powershell/i;
const READ_COMMAND = new Set(['view', 'read']);

const URL = /https?:\/\/[^\s"'`<>)\]}]+/g;
const COMMIT = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;
const ISSUE = /(?<![\w/])#\d{1,6}\b/g;
const BACKTICKED = /`([^`\n]{2,60})`/g;
const NUMBER_WITH_UNIT =
  /\b\d[\d,.]*\s?(?:tokens?|ms|seconds?|minutes?|MB|KB|GB|%|lines?|tests?|files?|errors?|failures?|bytes?)\b|\bport\s\d{2,5}\b/gi;
const ERROR_LINE = /^.*\b(?:Error|Exception|Traceback|FAILED|FAIL|fatal|panic|Cannot|Unable to)\b.*$/gm;
/** Only the first and last this-many characters of a text are scanned by regexes (large outputs). */
const SCAN_CHARS = 20_000;
const MAX_ITEM = 300;

function scanWindow(text: string): string {
  return text.length <= SCAN_CHARS * 2 ? text : `${text.slice(0, SCAN_CHARS)}\n${text.slice(-SCAN_CHARS)}`;
}

/**
 * A ledger item is one line: multi-line values (heredoc commands, stack traces) keep their
 * first line, cut at {@link MAX_ITEM} characters, so the item is a literal prefix of the original.
 */
function clipItem(text: string): string {
  const firstLine = text.trim().split('\n', 1)[0] ?? '';
  return firstLine.length > MAX_ITEM ? firstLine.slice(0, MAX_ITEM) : firstLine;
}

/** Appends values keeping each once, at its last occurrence. */
class OrderedSet {
  readonly #items = new Map<string, true>();
  constructor(initial: readonly string[] = []) {
    for (const item of initial) this.add(item);
  }
  add(item: string): void {
    if (item === '') return;
    this.#items.delete(item);
    this.#items.set(item, true);
  }
  newest(cap: number): string[] {
    const all = [...this.#items.keys()];
    return all.slice(Math.max(0, all.length - cap));
  }
}

const LEDGER_KEYS = [
  'filesRead',
  'filesModified',
  'commands',
  'urls',
  'identifiers',
  'numbers',
  'errors',
] as const;
type MessageFacts = Record<keyof FactLedger, string[]>;
const factsByMessage = new WeakMap<Message, MessageFacts>();

/** The facts of one message in order of occurrence; computed once per message object. */
function messageFacts(message: Message): MessageFacts {
  const cached = factsByMessage.get(message);
  if (cached !== undefined) return cached;
  const facts: MessageFacts = emptyFactLists();
  const scanText = (text: string, withErrors: boolean): void => {
    const window = scanWindow(text);
    for (const match of window.matchAll(URL)) facts.urls.push(match[0].replace(/[.,;:]+$/, ''));
    for (const match of window.matchAll(COMMIT)) facts.identifiers.push(match[0]);
    for (const match of window.matchAll(ISSUE)) facts.identifiers.push(match[0]);
    for (const match of window.matchAll(BACKTICKED)) facts.identifiers.push((match[1] as string).trim());
    for (const match of window.matchAll(NUMBER_WITH_UNIT)) facts.numbers.push(match[0]);
    if (withErrors) for (const match of window.matchAll(ERROR_LINE)) facts.errors.push(clipItem(match[0]));
  };
  for (const part of message.parts) {
    if (part.type === 'text') scanText(part.text, message.role !== 'user');
    else if (part.type === 'tool-call') {
      const args = toolArguments(part);
      if (args === undefined) continue;
      const subcommand =
        typeof args.command === 'string' && !SHELL_TOOL.test(part.name) ? args.command : undefined;
      const isModifying =
        subcommand !== undefined ? !READ_COMMAND.has(subcommand) : MODIFYING_TOOL.test(part.name);
      for (const key of PATH_KEYS) {
        const value = args[key];
        if (typeof value === 'string' && value !== '')
          (isModifying ? facts.filesModified : facts.filesRead).push(value);
      }
      if (SHELL_TOOL.test(part.name)) {
        for (const key of COMMAND_KEYS) {
          const value = args[key];
          if (typeof value === 'string' && value.trim() !== '') facts.commands.push(clipItem(value));
        }
      }
      for (const value of Object.values(args))
        if (typeof value === 'string' && value.length < 2000) scanText(value, false);
    } else if (part.type === 'tool-result') {
      for (const inner of part.content) {
        if (inner.type !== 'text') continue;
        if (part.isError === true)
          facts.errors.push(clipItem(inner.text.split('\n').find((line) => line.trim()) ?? ''));
        scanText(inner.text, part.isError === true);
      }
    }
  }
  factsByMessage.set(message, facts);
  return facts;
}

/**
 * Extracts the fact ledger of a span (SUM-4), merged after an earlier ledger (multi-level:
 * what earlier summaries carried stays, newest last). Linear in the text size; very large
 * outputs are scanned at head and tail only.
 */
export function extractLedger(
  messages: readonly Message[],
  previous: FactLedger = EMPTY_LEDGER,
  caps: Readonly<Record<keyof FactLedger, number>> = DEFAULT_LEDGER_CAPS,
): FactLedger {
  const sets = {
    filesRead: new OrderedSet(previous.filesRead),
    filesModified: new OrderedSet(previous.filesModified),
    commands: new OrderedSet(previous.commands),
    urls: new OrderedSet(previous.urls),
    identifiers: new OrderedSet(previous.identifiers),
    numbers: new OrderedSet(previous.numbers),
    errors: new OrderedSet(previous.errors),
  };
  for (const message of messages) {
    const facts = messageFacts(message);
    for (const key of LEDGER_KEYS) for (const item of facts[key]) sets[key].add(item);
  }
  return {
    filesRead: sets.filesRead.newest(caps.filesRead),
    filesModified: sets.filesModified.newest(caps.filesModified),
    commands: sets.commands.newest(caps.commands),
    urls: sets.urls.newest(caps.urls),
    identifiers: sets.identifiers.newest(caps.identifiers),
    numbers: sets.numbers.newest(caps.numbers),
    errors: sets.errors.newest(caps.errors),
  };
}
