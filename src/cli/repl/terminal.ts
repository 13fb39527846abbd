/** Where the REPL writes, and whether it may use colours and redraw lines. */
export interface Terminal {
  /** Answers and command output. */
  write(text: string): void;
  /** Notices (tool lines, compactions, errors): stdout in the REPL, stderr with `--print` and piped input. */
  notice(text: string): void;
  /** True when `notice` goes to an interactive terminal (progress lines redraw in place). */
  readonly isInteractive: boolean;
  readonly style: Style;
}

/** ANSI styles, or identity functions when colours are off (`NO_COLOR`, not a terminal). */
export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

/** Styles for a stream: colours only on a terminal and without `NO_COLOR` (no-color.org). */
export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    const same = (text: string) => text;
    return { dim: same, bold: same, red: same, yellow: same, green: same, cyan: same };
  }
  return {
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    green: wrap(32, 39),
    cyan: wrap(36, 39),
  };
}

/** The terminal of this process: REPL output on stdout; notices on stderr when not interactive. */
export function processTerminal({ interactive }: { interactive: boolean }): Terminal {
  const colours = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
  return {
    write: (text) => process.stdout.write(text),
    notice: (text) => (interactive ? process.stdout : process.stderr).write(text),
    isInteractive: interactive && process.stdout.isTTY === true,
    style: createStyle(colours),
  };
}
