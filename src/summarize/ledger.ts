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
 * what earlier summaries carried stays, newest last). Each fact appears once, at its last
 * occurrence, and each kind keeps its newest `caps` facts — so the span is read newest first
 * and reading stops once every kind is full: a long span costs what its recent facts cost,
 * not its whole text. Very large outputs are scanned at head and tail only.
 */
export function extractLedger(
  messages: readonly Message[],
  previous: FactLedger = EMPTY_LEDGER,
  caps: Readonly<Record<keyof FactLedger, number>> = DEFAULT_LEDGER_CAPS,
): FactLedger {
  const seen = emptyFactSets();
  const newestFirst = emptyFactLists();
  let open = LEDGER_KEYS.filter((key) => caps[key] > 0);
  const take = (key: keyof FactLedger, items: readonly string[]): void => {
    const cap = caps[key];
    const list = newestFirst[key];
    for (let i = items.length - 1; i >= 0 && list.length < cap; i--) {
      const item = items[i] as string;
      if (item === '' || seen[key].has(item)) continue;
      seen[key].add(item);
      list.push(item);
    }
  };
  for (let m = messages.length - 1; m >= 0 && open.length > 0; m--) {
    const facts = messageFacts(messages[m] as Message);
    for (const key of open) take(key, facts[key]);
    open = open.filter((key) => newestFirst[key].length < caps[key]);
  }
  for (const key of open) take(key, previous[key]);
  return {
    filesRead: newestFirst.filesRead.reverse(),
    filesModified: newestFirst.filesModified.reverse(),
    commands: newestFirst.commands.reverse(),
    urls: newestFirst.urls.reverse(),
    identifiers: newestFirst.identifiers.reverse(),
    numbers: newestFirst.numbers.reverse(),
    errors: newestFirst.errors.reverse(),
  };
}

function emptyFactSets(): Record<keyof FactLedger, Set<string>> {
  return {
    filesRead: new Set(),
    filesModified: new Set(),
    commands: new Set(),
    urls: new Set(),
    identifiers: new Set(),
    numbers: new Set(),
    errors: new Set(),
  };
}
