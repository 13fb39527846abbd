import type { ListingFeature } from './call-effect.ts';

/**
 * What an edit tool's output holds: a snippet or diff (the default, supersedes nothing), the
 * whole new file, or the whole new file when the output contains a marker (Cline's
 * `<final_file_content`).
 */
export type EditOutput = 'snippet' | 'full-content' | { readonly contains: string };

/**
 * How a tool's arguments map to an effect (STR-1 "configurable per tool name and argument
 * keys"). Argument keys are tried in order; the first string value is the path.
 */
export type ToolMapping =
  /** Reads a file; any of the `range` keys present makes it a partial read. */
  | { readonly kind: 'read'; readonly path: readonly string[]; readonly range?: readonly string[] }
  /** Writes a whole file. */
  | { readonly kind: 'write'; readonly path: readonly string[] }
  /** Changes part of a file. */
  | { readonly kind: 'edit'; readonly path: readonly string[]; readonly output?: EditOutput }
  /**
   * Lists a directory (the working directory when no path key is present). `shows` is what
   * every call shows; a `recursive` key set to true adds `'recursive'`; the `filter` keys'
   * values and `baseFilter` (what the tool always leaves out, e.g. ignore files) narrow it.
   */
  | {
      readonly kind: 'list';
      readonly path: readonly string[];
      readonly shows?: readonly ListingFeature[];
      readonly recursive?: readonly string[];
      readonly filter?: readonly string[];
      readonly baseFilter?: string;
    }
  /** Runs a shell command line (a string, or an argv array such as Codex's `["bash", "-lc", …]`). */
  | { readonly kind: 'shell'; readonly command: readonly string[]; readonly directory?: readonly string[] }
  /** One tool, several sub-commands (`str_replace_editor` with `command: 'view' | 'create' | …`). */
  | {
      readonly kind: 'by-command';
      readonly command: string;
      readonly commands: Readonly<Record<string, ToolMapping>>;
    };

const ANY_PATH = ['file_path', 'filePath', 'path', 'absolute_path', 'target_file', 'filename'];
const ANY_RANGE = ['offset', 'limit', 'view_range', 'start_line', 'end_line', 'line_range', 'pages'];

/**
 * The Anthropic text editor as SWE-agent and OpenHands ship it (`str_replace_editor`) and as
 * Anthropic names it (`str_replace_based_edit_tool`). `view` of a large file may be
 * abbreviated (recognised from the output); `undo_edit` prints the whole restored file.
 */
const TEXT_EDITOR: ToolMapping = {
  kind: 'by-command',
  command: 'command',
  commands: {
    view: { kind: 'read', path: ['path'], range: ['view_range'] },
    create: { kind: 'write', path: ['path'] },
    str_replace: { kind: 'edit', path: ['path'] },
    insert: { kind: 'edit', path: ['path'] },
    undo_edit: { kind: 'edit', path: ['path'], output: 'full-content' },
  },
};

const SHELL: ToolMapping = {
  kind: 'shell',
  command: ['command', 'cmd'],
  directory: ['workdir', 'directory', 'cwd'],
};

/**
 * Built-in tool mappings, by tool name, for the agents whose transcripts chatfold reads.
 * Sources: Claude Code's tool set (Read/Write/Edit/MultiEdit/NotebookEdit/LS/Glob/Bash),
 * SWE-agent (`str_replace_editor`, windowed `open`/`create`, `bash`), OpenHands
 * (`str_replace_editor`, `execute_bash`), Cline (`read_file`, `write_to_file`,
 * `replace_in_file` — which returns `<final_file_content>` —, `list_files`,
 * `execute_command`), opencode (`read`, `write`, `edit`, `list`, `glob`, `bash`), gemini-cli
 * (`read_file`, `write_file`, `replace`, `list_directory`, `glob`, `run_shell_command`) and
 * Codex (`shell` with an argv array). Override or remove one with the `tools` option.
 */
export const DEFAULT_TOOL_MAPPINGS: Readonly<Record<string, ToolMapping>> = {
  // Claude Code
  Read: { kind: 'read', path: ['file_path'], range: ['offset', 'limit', 'pages'] },
  Write: { kind: 'write', path: ['file_path'] },
  Edit: { kind: 'edit', path: ['file_path'] },
  MultiEdit: { kind: 'edit', path: ['file_path'] },
  NotebookEdit: { kind: 'edit', path: ['notebook_path'] },
  // LS skips hidden entries and takes ignore globs; only another LS is known to cover it.
  LS: { kind: 'list', path: ['path'], shows: ['recursive', 'types'], filter: ['ignore'], baseFilter: 'LS' },
  Glob: { kind: 'list', path: ['path'], shows: ['hidden', 'recursive'], filter: ['pattern'] },
  Bash: SHELL,
  // SWE-agent, OpenHands, Anthropic text editor
  str_replace_editor: TEXT_EDITOR,
  str_replace_based_edit_tool: TEXT_EDITOR,
  // SWE-agent's windowed viewer shows 100 lines around `line_number` (recognised as partial
  // from its "(N more lines below)" footer unless the file fits the window).
  open: { kind: 'read', path: ['path'], range: ['line_number'] },
  create: { kind: 'write', path: ['filename'] },
  bash: SHELL,
  execute_bash: SHELL,
  // Cline
  read_file: { kind: 'read', path: ANY_PATH, range: ANY_RANGE },
  write_to_file: { kind: 'write', path: ['path'] },
  replace_in_file: { kind: 'edit', path: ['path'], output: { contains: '<final_file_content' } },
  list_files: {
    kind: 'list',
    path: ['path'],
    shows: ['types'],
    recursive: ['recursive'],
    baseFilter: 'list_files',
  },
  execute_command: SHELL,
  // opencode
  read: { kind: 'read', path: ['filePath', 'file_path'], range: ['offset', 'limit'] },
  write: { kind: 'write', path: ['filePath', 'file_path'] },
  edit: { kind: 'edit', path: ['filePath', 'file_path', 'path'] },
  list: {
    kind: 'list',
    path: ['path'],
    shows: ['recursive', 'types'],
    filter: ['ignore'],
    baseFilter: 'list',
  },
  glob: { kind: 'list', path: ['path'], shows: ['hidden', 'recursive'], filter: ['pattern'] },
  // gemini-cli
  write_file: { kind: 'write', path: ['file_path', 'path'] },
  replace: { kind: 'edit', path: ['file_path'] },
  list_directory: {
    kind: 'list',
    path: ['path', 'dir_path'],
    shows: ['types'],
    filter: ['ignore'],
    baseFilter: 'list_directory',
  },
  run_shell_command: SHELL,
  // Codex, generic
  shell: SHELL,
  view: { kind: 'read', path: ['path', 'file_path'], range: ANY_RANGE },
};

/**
 * Read-only tools whose identical repeated call (same name, same arguments in any key order)
 * makes the earlier output stale (STR-1 "identical call"). Tools that change something, or
 * whose output is an event rather than a state (`Bash`, test runners), are not here.
 */
export const DEFAULT_IDEMPOTENT_TOOLS: readonly string[] = [
  'Read',
  'Glob',
  'Grep',
  'LS',
  'WebFetch',
  'WebSearch',
  'NotebookRead',
  'read_file',
  'list_files',
  'list_directory',
  'search_files',
  'search_file_content',
  'find_file',
  'search_dir',
  'search_file',
  'grep',
  'glob',
  'list',
  'read',
  'view',
];
