import type { AgentEvent, DoneEvent } from '../../agent/types.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { plural } from '../plural.ts';
import { underReportNote } from './context-view.ts';
import { compactionLine, seconds } from './format-compaction.ts';
import type { Terminal } from './terminal.ts';

const count = (n: number): string => n.toLocaleString('en-US');

/** Frames of the waiting spinner, and how long each shows. */
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;
export const SPINNER_MS = 100;

/** First line of a tool's error, without the `Error: ` prefix, at most 120 characters. */
function errorSummary(output: string): string {
  const line = (output.split('\n')[0] ?? '').replace(/^Error:\s*/, '');
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}

/** Renders agent events on a terminal (CLI-1): streamed text, compact tool lines, visible compactions. */
export interface EventRenderer {
  handle(event: AgentEvent): void;
  /** Ends the open line; returns the `done` event seen, if any. */
  finish(): DoneEvent | undefined;
}

/**
 * Creates a renderer. Answers stream to `write`; tool calls show as one line each (name, path,
 * result size); a compaction shows a line while it runs (redrawn with the summary's progress on
 * an interactive terminal) and one when it ends, including the fallback case.
 */
export function createEventRenderer(terminal: Terminal): EventRenderer {
  const { style } = terminal;
  let atLineStart = true;
  /** A progress line is on screen (interactive only) and will be replaced. */
  let progressShown = false;
  let summaryChars = 0;
  let done: DoneEvent | undefined;
  const calls = new Map<string, { toolName: string; path: string | undefined }>();

  const clearProgress = (): void => {
    if (progressShown) {
      terminal.notice('\r\u001b[K');
      progressShown = false;
      atLineStart = true;
    }
  };
  const newline = (): void => {
    clearProgress();
    if (!atLineStart) {
      terminal.write('\n');
      atLineStart = true;
    }
  };
  const noticeLine = (text: string): void => {
    newline();
    terminal.notice(`${text}\n`);
  };
  const progress = (text: string): void => {
    if (!terminal.isInteractive) return;
    newline();
    terminal.notice(`\r\u001b[K${text}`);
    progressShown = true;
  };
  // A live line while nothing else shows progress (the model has not answered yet, a summary is
  // being written): a spinner and the seconds since it started, redrawn every SPINNER_MS.
  let live: { line: (elapsed: string) => string; started: number } | undefined;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const drawLive = (): void => {
    if (live === undefined) return;
    const ms = Date.now() - live.started;
    const frame = SPINNER[Math.floor(ms / SPINNER_MS) % SPINNER.length] as string;
    progress(live.line(`${frame} ${Math.floor(ms / 1000)} s`));
  };
  const startLive = (line: (elapsed: string) => string, started = Date.now()): void => {
    if (!terminal.isInteractive) return;
    live = { line, started };
    drawLive();
    ticker ??= setInterval(drawLive, SPINNER_MS);
  };
  const stopLive = (): void => {
    if (live === undefined) return;
    live = undefined;
    clearInterval(ticker);
    ticker = undefined;
    clearProgress();
  };

  return {
    handle(event) {
      // Anything but usage bookkeeping means the wait is over (a compaction starts its own line).
      if (live !== undefined && event.type !== 'usage' && event.type !== 'message') {
        if (event.type !== 'compaction-progress' && event.type !== 'reasoning-delta') stopLive();
      }
      switch (event.type) {
        case 'step-start':
          startLive((elapsed) => style.dim(`  waiting for the model ${elapsed}`));
          break;
        case 'text-delta':
          if (event.text === '') break;
          clearProgress();
          terminal.write(event.text);
          atLineStart = event.text.endsWith('\n');
          break;
        case 'reasoning-delta':
          if (live !== undefined && atLineStart) {
            const { started } = live;
            startLive((elapsed) => style.dim(`  thinking ${elapsed}`), started);
          }
          break;
        case 'tool-call':
          calls.set(event.callId, { toolName: event.toolName, path: event.path });
          break;
        case 'tool-result': {
          const call = calls.get(event.callId);
          const target = call?.path === undefined ? '' : ` ${call.path}`;
          if (event.isError) {
            noticeLine(style.red(`  ✗ ${event.toolName}${target} → ${errorSummary(event.output)}`));
          } else {
            const size = `${plural(event.output.length, 'char')}${event.truncated ? ', truncated' : ''}`;
            noticeLine(style.dim(`  ⚙ ${event.toolName}${target} → ${size}`));
          }
          break;
        }
        case 'usage-under-reported':
          noticeLine(
            style.yellow(
              `  ! ${underReportNote(event.reason)} (reported ${plural(event.reported, 'input token')}, chatfold counts ${count(event.estimate)})`,
            ),
          );
          break;
        case 'compaction-start': {
          summaryChars = 0;
          const text = `  ⟳ compacting history (${event.mode}: ${plural(event.messages, 'message')}, ${plural(event.tokens, 'token')} → target ${count(event.target)})…`;
          if (terminal.isInteractive) startLive((elapsed) => style.yellow(`${text} ${elapsed}`));
          else noticeLine(text);
          break;
        }
        case 'compaction-progress': {
          const started = live?.started;
          if (event.delta !== undefined) {
            summaryChars += event.delta.length;
            const chars = count(summaryChars);
            startLive((elapsed) => style.yellow(`  ⟳ summarizing… ${chars} characters ${elapsed}`), started);
          } else if (event.stage !== '') {
            const stage = event.stage;
            startLive((elapsed) => style.yellow(`  ⟳ compacting history: ${stage}… ${elapsed}`), started);
          }
          break;
        }
        case 'compaction-end':
          noticeLine(
            event.report.compacted
              ? style.green(`  ✓ ${compactionLine(event.report, event.durationMs)}`)
              : style.dim(`  · ${compactionLine(event.report, event.durationMs)}`),
          );
          // Which trigger fired (seed 004: N messages OR K tokens), so the user can tune it.
          if (event.report.compacted && event.mode !== 'manual')
            noticeLine(style.dim(`    trigger: ${event.report.reason}`));
          break;
        case 'compaction-fallback':
          noticeLine(
            style.yellow(
              `  ! ${event.source === 'summarizer' ? 'summarizer failed' : 'a compaction stage failed'} (${event.reason}); used ${event.fallback === 'extractive' ? 'the extractive summary' : event.fallback}`,
            ),
          );
          break;
        case 'compaction-error':
          noticeLine(
            style.red(
              `  ✗ compaction failed after ${seconds(event.durationMs)}: ${event.message} (history unchanged)`,
            ),
          );
          break;
        case 'error': {
          // A request timeout says how to wait longer, in the command line's words.
          // Refused because another process answers in the session: the line typed is not lost.
          const hint =
            ChatfoldError.isInstance(event.error) && typeof event.error.details.requestTimeoutMs === 'number'
              ? '; --timeout SECONDS waits longer'
              : ChatfoldError.hasCode(event.error, 'E_BUSY') && terminal.isInteractive
                ? ' (↑ brings your message back)'
                : '';
          noticeLine(style.red(`✗ ${event.message}${hint}`));
          break;
        }
        case 'done':
          done = event;
          newline();
          if (event.reason === 'aborted') noticeLine(style.yellow('⏹ cancelled (history kept)'));
          else if (event.reason === 'step-limit') {
            noticeLine(
              style.yellow(`stopped after ${plural(event.steps, 'model call')} (the agent's step limit)`),
            );
          }
          break;
        default:
          break;
      }
    },
    finish() {
      stopLive();
      newline();
      return done;
    },
  };
}
