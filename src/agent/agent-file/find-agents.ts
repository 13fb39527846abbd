import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { parseOptions } from '../../options/parse-options.ts';
import { type PathEnvironment, userConfigDir } from '../xdg-paths.ts';
import type { AgentFile } from './agent-file-schema.ts';
import { parseAgentFile } from './parse-agent-file.ts';

/** Where agent files are looked for (AG-1), first match wins. */
export interface AgentSearchOptions {
  /** Project folder whose `.chatfold/agents/` is searched first. Default: the current folder. */
  readonly cwd?: string;
  /** Environment for the user config folder (`XDG_CONFIG_HOME`, `HOME`). Default `process.env`. */
  readonly env?: PathEnvironment;
}

/** A found agent file. */
export interface AgentFileEntry {
  /** The file's `name`, or its file name without extension when it does not parse. */
  readonly name: string;
  readonly description?: string;
  readonly path: string;
  /** `project` (`./.chatfold/agents/`), `user` (config folder) or `path` (given directly). */
  readonly source: 'project' | 'user' | 'path';
  /** The parsed file, or the problems that made it invalid. */
  readonly file?: AgentFile;
  readonly error?: ChatfoldError;
}

/** A loaded agent file with its instructions read (inline or from their file). */
export interface LoadedAgentFile {
  readonly file: AgentFile;
  readonly path: string;
  readonly instructions: string | undefined;
}

const EXTENSIONS = ['.yaml', '.yml'];

const searchOptionsSchema = z.strictObject({
  cwd: z.string().min(1).optional(),
  env: z.record(z.string(), z.string().optional()).optional(),
});

/** The folders searched, in order (`.chatfold/agents` of the project, then the user's). */
export function agentFolders(options: AgentSearchOptions = {}): {
  readonly folder: string;
  readonly source: 'project' | 'user';
}[] {
  parseOptions(searchOptionsSchema, options, 'agentFolders');
  const { cwd = process.cwd(), env = process.env } = options;
  return [
    { folder: path.join(cwd, '.chatfold', 'agents'), source: 'project' },
    { folder: path.join(userConfigDir(env), 'agents'), source: 'user' },
  ];
}

async function readEntry(file: string, source: AgentFileEntry['source']): Promise<AgentFileEntry> {
  const stem = path.basename(file).replace(/\.ya?ml$/, '');
  try {
    const parsed = parseAgentFile(await readFile(file, 'utf8'), file);
    return {
      name: parsed.name,
      ...(parsed.description === undefined ? {} : { description: parsed.description }),
      path: file,
      source,
      file: parsed,
    };
  } catch (error) {
    const wrapped = ChatfoldError.isInstance(error)
      ? error
      : new ChatfoldError(
          'E_AGENT_FILE',
          `${file}: cannot read (${String(error)})`,
          { path: file },
          { cause: error },
        );
    return { name: stem, path: file, source, error: wrapped };
  }
}

/**
 * Every agent file in the project and user folders (`chatfold agents`), valid or not, in
 * search order then by name. A project agent hides a user agent of the same name.
 */
export async function listAgentFiles(options: AgentSearchOptions = {}): Promise<AgentFileEntry[]> {
  const entries: AgentFileEntry[] = [];
  for (const { folder, source } of agentFolders(options)) {
    let names: string[];
    try {
      names = await readdir(folder);
    } catch {
      continue;
    }
    const files = names.filter((name) => EXTENSIONS.includes(path.extname(name))).sort();
    for (const name of files) entries.push(await readEntry(path.join(folder, name), source));
  }
  return entries;
}

const looksLikePath = (value: string): boolean =>
  value.includes('/') || value.includes(path.sep) || EXTENSIONS.includes(path.extname(value));

/**
 * Finds an agent by name (file name or `name` field, project folder first) or by path, parses
 * it and reads its instructions file (AG-1).
 *
 * @throws ChatfoldError `E_AGENT_FILE` when nothing matches (naming the folders searched) or
 *   the file is invalid (every problem with file:line:col).
 */
export async function loadAgentFile(
  nameOrPath: string,
  options: AgentSearchOptions = {},
): Promise<LoadedAgentFile> {
  parseOptions(searchOptionsSchema, options, 'loadAgentFile');
  let entry: AgentFileEntry | undefined;
  if (looksLikePath(nameOrPath)) {
    const resolved = path.resolve(options.cwd ?? process.cwd(), nameOrPath);
    try {
      await stat(resolved);
    } catch (cause) {
      throw new ChatfoldError(
        'E_AGENT_FILE',
        `agent file ${nameOrPath} does not exist`,
        { path: nameOrPath },
        { cause },
      );
    }
    entry = await readEntry(nameOrPath, 'path');
  } else {
    const all = await listAgentFiles(options);
    entry =
      all.find((candidate) => path.basename(candidate.path).replace(/\.ya?ml$/, '') === nameOrPath) ??
      all.find((candidate) => candidate.name === nameOrPath);
    if (entry === undefined) {
      const folders = agentFolders(options).map((folder) => folder.folder);
      const known = all.map((candidate) => candidate.name);
      throw new ChatfoldError(
        'E_AGENT_FILE',
        `no agent named ${JSON.stringify(nameOrPath)} in ${folders.join(' or ')}${known.length ? ` (found: ${known.join(', ')})` : ''}; pass a path to a .yaml file or run \`chatfold agents\``,
        { name: nameOrPath, folders },
      );
    }
  }
  if (entry.error !== undefined || entry.file === undefined) throw entry.error;
  const file = entry.file;
  let instructions: string | undefined;
  if (typeof file.instructions === 'string') instructions = file.instructions;
  else if (file.instructions !== undefined) {
    const instructionsPath = path.resolve(
      path.dirname(path.resolve(options.cwd ?? process.cwd(), entry.path)),
      file.instructions.file,
    );
    try {
      instructions = await readFile(instructionsPath, 'utf8');
    } catch (cause) {
      throw new ChatfoldError(
        'E_AGENT_FILE',
        `${entry.path}: instructions.file ${JSON.stringify(file.instructions.file)} cannot be read (${instructionsPath})`,
        { path: entry.path, instructions: instructionsPath },
        { cause },
      );
    }
  }
  return { file, path: entry.path, instructions };
}
