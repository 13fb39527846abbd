import { cacheOrFresh, cacheTable, type EngineCache } from '../../messages/engine-cache.ts';
import { toolArguments } from '../../messages/tool-arguments.ts';
import type { Message, ToolCallPart, ToolResultPart } from '../../messages/types.ts';
import { chatfoldMetadata } from '../../projection/chatfold-metadata.ts';
import type { CallEffect, SupersedeRule } from './call-effect.ts';
import { canonicalJson, effectFromMapping, type ShellRequest } from './mapping-effect.ts';
import { outputSignals, startsWithProgramError } from './output-signals.ts';
import { parseShellCommand, type ShellCommandAnalysis } from './shell-command.ts';
import { resolveOperand } from './shell-programs.ts';
import type { ToolMapping } from './tool-mappings.ts';

/** The resolved configuration `supersede` classifies calls with. */
export interface ClassifyConfig {
  readonly rules: readonly SupersedeRule[];
  readonly tools: ReadonlyMap<string, ToolMapping>;
  readonly idempotentTools: ReadonlySet<string>;
  readonly repeatedCommands: 'read-only' | 'all' | 'none';
  readonly readOnlyCommands: readonly string[];
  readonly cwd: string | undefined;
  /**
   * Identity of the data options (mappings, lists, cwd). Classifications are cached per part
   * under it; with custom rules (functions) results are not cached, shell readings still are.
   */
  readonly dataKey: string;
}

/** What a result is, apart from where it sits. */
interface ResultFacts {
  readonly effect: CallEffect | undefined;
  /** Key of an identical call / repeated read-only command / custom observation. */
  readonly observation: string | undefined;
  readonly observationRule: string;
  /** Holds current content a later-read earlier output can be replaced by (not failed, not a back-reference, not a stub). */
  readonly holdsContent: boolean;
  /** The tool cut its output: a full read or listing that is not complete. */
  readonly isTruncated: boolean;
  readonly isStub: boolean;
  /** How stubs name the call: `Read of src/a.ts`, ``Bash `ls -la src` ``. */
  readonly label: string;
  readonly text: string;
  readonly lineCount: number;
}

/** One tool result with what its call did, in conversation order. */
export interface ResultEvent extends ResultFacts {
  readonly message: number;
  readonly part: number;
  readonly messageId: string;
}

type ShellReading = ShellCommandAnalysis & {
  readonly command: string;
  /** Where the line ran (undefined = unknown). */
  readonly directory: string | undefined;
  /** The call named its own directory (gemini-cli `directory`, Codex `workdir`): no lasting `cd`. */
  readonly hasDirectoryArgument: boolean;
};

/**
 * Shell lines parsed once per call part, configuration and starting directory: the latest
 * reading per part (a part is read with one key in all but rare `cd` histories; a Map per
 * part cost a million small maps on a million-message history).
 */
const SHELL_READINGS = cacheTable(
  'supersede.shell-readings',
  () => new WeakMap<ToolCallPart, { key: string; reading: ShellReading | undefined }>(),
);
/**
 * Shell lines analysed once per text, configuration and starting directory: an agent runs the
 * same lines again and again (`npm test`, `git status`), and a first compaction reads every call.
 */
const SHELL_ANALYSES = cacheTable('supersede.shell-analyses', () => new Map<string, ShellCommandAnalysis>());
/** Most lines remembered (then the memo starts over), and the longest one remembered. */
const MAX_SHELL_ANALYSES = 4096;
const MAX_REMEMBERED_LINE = 2000;
/** Result facts once per result part (the latest classification, checked against its inputs). */
const RESULT_FACTS = cacheTable(
  'supersede.result-facts',
  () => new WeakMap<ToolResultPart, { call: ToolCallPart; key: string; facts: ResultFacts }>(),
);

interface PendingCall {
  readonly part: ToolCallPart;
  readonly mapping: ToolMapping | undefined;
  readonly shell:
    | (ShellCommandAnalysis & { readonly command: string; readonly directory: string | undefined })
    | undefined;
}

const MAX_LABEL = 80;

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_LABEL ? `${line.slice(0, MAX_LABEL - 1)}…` : line;
}

function labelOf(
  name: string,
  effect: CallEffect | undefined,
  shell: PendingCall['shell'],
  args: string,
): string {
  if (shell !== undefined) return `${name} \`${clip(shell.command)}\``;
  if (effect === undefined || effect.kind === 'observation') return `${name} ${clip(args)}`;
  if (effect.kind === 'list') return `${name} listing of ${effect.path}`;
  const range = effect.kind === 'read' && effect.range !== undefined ? ` (${clip(effect.range)})` : '';
  return `${name} of ${effect.path}${range}`;
}

/** A truncated output of a whole-file read shows only part of it: a partial read "as shown". */
function asShown(effect: CallEffect | undefined, isTruncated: boolean): CallEffect | undefined {
  if (!isTruncated || effect === undefined) return effect;
  if (effect.kind === 'read') return { ...effect, range: `${effect.range ?? 'all'} (truncated)` };
  if (effect.kind === 'edit' && effect.fullContent) return { kind: 'edit', path: effect.path };
  return effect;
}

/**
 * Pairs every tool result with its call and says what the call did (STR-1). Shell calls are
 * read in order so `cd` is followed: after a line that may leave the shell elsewhere, later
 * relative paths are not recognised until a `cd` back to the working directory (a wrong
 * directory would match the wrong file; a missed one only costs tokens).
 *
 * @param messages - the conversation, oldest first
 * @param config - mappings, rules and lists in force
 */
export function collectResultEvents(
  messages: readonly Message[],
  config: ClassifyConfig,
  cache: EngineCache = cacheOrFresh(undefined),
): ResultEvent[] {
  const shellReadings = cache.table(SHELL_READINGS);
  const calls = new Map<string, PendingCall>();
  const events: ResultEvent[] = [];
  let directory: string | undefined = '.';
  const shellCall = (part: ToolCallPart, mapping: ToolMapping | undefined): PendingCall['shell'] => {
    const key = `${config.dataKey}\u0000${directory}`;
    const cached = shellReadings.get(part);
    let reading: ShellReading | undefined;
    if (cached !== undefined && cached.key === key) reading = cached.reading;
    else {
      reading = readShellCall(part, mapping, directory, config, cache);
      shellReadings.set(part, { key, reading });
    }
    if (reading?.changesDirectory && !reading.hasDirectoryArgument) {
      directory = reading.directoryAfter === '.' ? '.' : undefined;
    }
    return reading;
  };
  messages.forEach((message, m) => {
    message.parts.forEach((part, p) => {
      if (part.type === 'tool-call') {
        const mapping = config.tools.get(part.name);
        calls.set(part.id, { part, mapping, shell: shellCall(part, mapping) });
      } else if (part.type === 'tool-result') {
        const call = calls.get(part.callId);
        if (call !== undefined)
          events.push(eventOf(call, part, { message: m, part: p }, message, config, cache));
      }
    });
  });
  return events;
}

function readShellCall(
  part: ToolCallPart,
  mapping: ToolMapping | undefined,
  directory: string | undefined,
  config: ClassifyConfig,
  cache: EngineCache,
): ShellReading | undefined {
  const args = toolArguments(part, cache);
  if (mapping === undefined || args === undefined) return undefined;
  const request = effectFromMapping(mapping, { name: part.name, args, output: '', cwd: config.cwd });
  if (request?.kind !== 'shell') return undefined;
  const { command, directory: argument } = request as ShellRequest;
  const start = argument === undefined ? directory : resolveOperand(argument, { directory, cwd: config.cwd });
  const analyses = cache.table(SHELL_ANALYSES);
  const key =
    command.length > MAX_REMEMBERED_LINE
      ? undefined
      : `${config.dataKey}\u0000${start === undefined ? '\u0001' : start}\u0000${command}`;
  let analysis = key === undefined ? undefined : analyses.get(key);
  if (analysis === undefined) {
    analysis = parseShellCommand(command, {
      directory: start,
      cwd: config.cwd,
      readOnlyCommands: config.readOnlyCommands,
    });
    if (key !== undefined) {
      if (analyses.size >= MAX_SHELL_ANALYSES) analyses.clear();
      analyses.set(key, analysis);
    }
  }
  return { ...analysis, command, directory: start, hasDirectoryArgument: argument !== undefined };
}

function eventOf(
  call: PendingCall,
  result: ToolResultPart,
  { message, part }: { message: number; part: number },
  carrier: Message,
  config: ClassifyConfig,
  cache: EngineCache,
): ResultEvent {
  // A stage before this one may have replaced the output (mask) or cut it (clip).
  const transform = chatfoldMetadata(carrier)?.transform;
  // Custom rules are functions: their answers are not cached.
  const key =
    config.rules.length === 0
      ? `${config.dataKey}\u0000${call.shell?.directory}\u0000${transform}`
      : undefined;
  const resultFacts = cache.table(RESULT_FACTS);
  const cached = key === undefined ? undefined : resultFacts.get(result);
  let facts = cached?.call === call.part && cached.key === key ? cached.facts : undefined;
  if (facts === undefined) {
    facts = factsOf(call, result, transform, config, cache);
    if (key !== undefined) resultFacts.set(result, { call: call.part, key, facts });
  }
  return { ...facts, message, part, messageId: carrier.id };
}

function factsOf(
  call: PendingCall,
  result: ToolResultPart,
  transform: string | undefined,
  config: ClassifyConfig,
  cache: EngineCache,
): ResultFacts {
  const { name } = call.part;
  const signals = outputSignals(result, cache);
  const isStub = signals.isStub || transform === 'masked';
  const isTruncated = signals.isTruncated || transform === 'clipped';
  const args = toolArguments(call.part, cache);
  const view = args === undefined ? undefined : { name, args, output: signals.text, cwd: config.cwd };
  let effect: CallEffect | undefined;
  for (const rule of config.rules) {
    effect = view === undefined ? undefined : rule(view);
    if (effect !== undefined) break;
  }
  const fromRule = effect !== undefined;
  if (!fromRule && call.shell !== undefined) effect = call.shell.effect;
  else if (!fromRule && call.mapping !== undefined && view !== undefined) {
    const mapped = effectFromMapping(call.mapping, view);
    effect = mapped?.kind === 'shell' ? undefined : mapped;
  }
  let observation: string | undefined;
  let observationRule = 'identical-call';
  if (effect?.kind === 'observation') {
    observation = `rule:${effect.key}`;
    observationRule = effect.rule ?? 'identical-call';
  } else if (call.shell !== undefined && !fromRule) {
    const { shell } = call;
    const repeats =
      config.repeatedCommands === 'all' || (config.repeatedCommands === 'read-only' && shell.isReadOnly);
    if (repeats && shell.directory !== undefined) {
      observation = `shell:${shell.directory}\u0000${shell.command.replace(/\s+/g, ' ').trim()}`;
      observationRule = 'repeated-command';
    }
  } else if (config.idempotentTools.has(name) && args !== undefined) {
    observation = `tool:${name}\u0000${canonicalJson(args)}`;
  }
  const failed =
    result.isError === true ||
    signals.looksFailed ||
    (call.shell !== undefined &&
      (startsWithProgramError(signals.text, call.shell.programs) ||
        (call.shell.hidesErrors && signals.text.trim() === '')));
  const shown = asShown(effect, isTruncated);
  return {
    effect: shown,
    observation,
    observationRule,
    holdsContent: !failed && !signals.isBackReference && !isStub && signals.text.trim() !== '',
    isTruncated,
    isStub,
    label: labelOf(name, effect, call.shell, call.part.arguments),
    text: signals.text,
    lineCount: signals.lineCount,
  };
}
