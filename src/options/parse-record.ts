/**
 * Persisted records (summary snapshots, session state, pending plans, `metadata.chatfold`)
 * are read back through their zod schemas at the boundary. Each format carries a `version`;
 * a record written before versions existed has none and reads as version 1, and a record of
 * a version this chatfold does not know is refused with `E_UNSUPPORTED_VERSION` rather than
 * misread.
 */
import type { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { formatPath, valueAt } from '../messages/provider-input.ts';

/** What a versioned record format is called and which version this chatfold writes. */
export interface RecordFormat {
  /** Named in errors, e.g. `pending plan`. */
  readonly record: string;
  /** The newest version this chatfold reads and writes. */
  readonly version: number;
}

/**
 * Throws when `value` is a record of a version newer than `format.version`.
 *
 * @throws ChatfoldError `E_UNSUPPORTED_VERSION` naming the record, its version and the newest
 *   this chatfold reads.
 */
export function checkRecordVersion(value: unknown, format: RecordFormat): void {
  if (typeof value !== 'object' || value === null) return;
  const version: unknown = (value as { version?: unknown }).version;
  if (typeof version === 'number' && Number.isInteger(version) && version > format.version) {
    throw new ChatfoldError(
      'E_UNSUPPORTED_VERSION',
      `${format.record} of version ${version} was written by a newer chatfold; this one reads up to version ${format.version}: upgrade chatfold to read it`,
      { record: format.record, version, supported: format.version },
    );
  }
}

/**
 * Parses a persisted record with its schema. A record without `version` is read as version 1
 * (every format began there); the schema decides what else a record must hold.
 *
 * @returns zod's result: the caller decides what a malformed record means (none, a fresh state).
 * @throws ChatfoldError `E_UNSUPPORTED_VERSION` for a record of a newer version.
 */
export function parseVersionedRecord<S extends z.ZodType>(
  value: unknown,
  schema: S,
  format: RecordFormat,
): z.ZodSafeParseResult<z.output<S>> {
  checkRecordVersion(value, format);
  const isUnversioned =
    typeof value === 'object' && value !== null && !Array.isArray(value) && !('version' in value);
  return schema.safeParse(isUnversioned ? { ...value, version: 1 } : value);
}

/**
 * The first problem of a failed parse: where it is (`replaced[2].message`) and what is wrong
 * there, worded as `where: expected …, received …`; `root` names the record itself.
 */
export function describeRecordIssue(
  error: z.ZodError,
  input: unknown,
  root: string,
): { where: string; message: string } {
  const issue = error.issues[0] as z.core.$ZodIssue;
  const where = issue.path.length === 0 ? root : formatPath('', issue.path);
  const text = issue.message.replace(/^Invalid input: /, '');
  if (issue.code === 'unrecognized_keys') return { where, message: `${where}: ${text}` };
  const value = valueAt(input, issue.path);
  const received =
    issue.code === 'custom' || / received /.test(text) ? '' : `, received ${describeValue(value)}`;
  return { where, message: `${where}: ${text}${received}` };
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}
