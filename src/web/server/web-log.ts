import type { Redactor } from './redact.ts';

/** One structured log line of the web server: what happened, to which session, why. */
export interface WebLogRecord {
  readonly level: 'info' | 'warn' | 'error';
  /** Noun-verb, e.g. `summary-failed`, `compaction-fallback`, `request-failed`. */
  readonly event: string;
  readonly sessionId?: string | undefined;
  /** `manual`, `auto`, `overflow`, `summarize`, `regenerate`. */
  readonly mode?: string | undefined;
  /** Why, in one line (the error's message or the fallback's reason). */
  readonly cause?: string | undefined;
  readonly [key: string]: string | number | boolean | undefined;
}

/** Where the server reports failures and fallbacks (FR-5.1.1: logged with their context). */
export type WebLog = (record: WebLogRecord) => void;

/** A log that drops everything (the default of an app built without `log`). */
export const silentLog: WebLog = () => undefined;

/**
 * A {@link WebLog} that writes one JSON object per line (`time`, `level`, `event`, then the
 * fields), redacted (WEB-8) so a key in an error message never reaches the log.
 *
 * @param write receives each line without its newline (`chatfold serve` writes it to stderr).
 * @param redact the app's redactor.
 * @param now the clock (tests pass a fixed one).
 */
export function jsonLineLog(
  write: (line: string) => void,
  redact: Redactor,
  now: () => Date = () => new Date(),
): WebLog {
  return (record) => {
    const { level, event, ...fields } = record;
    const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    write(redact(JSON.stringify({ time: now().toISOString(), level, event, ...defined })));
  };
}
