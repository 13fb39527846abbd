/** Size caps of the workspace tools' outputs (AG-2), in characters. */
export const WORKSPACE_LIMITS = Object.freeze({
  /** `read_file`: the first this-many characters of the selected lines. */
  readChars: 50_000,
  /** `list_directory`: entries shown. */
  listEntries: 500,
  /** `search`: matching lines shown. */
  searchMatches: 200,
  /** `search`: characters of one matching line shown. */
  searchLineChars: 300,
  /** `search`: files larger than this are skipped (bytes). */
  searchFileBytes: 2_000_000,
  /** `write_file` / `edit_file`: largest content accepted (characters). */
  writeChars: 2_000_000,
  /** `edit_file`: larger files are refused before any byte is read (bytes; UTF-8 takes up to 3 per character). */
  editFileBytes: 6_000_000,
  /** `search`: bytes read in one call, over all files; the rest is reported as not searched. */
  searchTotalBytes: 64_000_000,
  /** `search`: milliseconds one call may take; then it stops and says so (the pattern runs off the event loop). */
  searchTimeMs: 30_000,
});

/** Limits of the workspace tools; every field defaults to {@link WORKSPACE_LIMITS}. */
export type WorkspaceLimits = { readonly [K in keyof typeof WORKSPACE_LIMITS]?: number };

/** A tool output cut to its cap, with the note the model (and `supersede`, STR-1) reads. */
export interface BoundedText {
  readonly text: string;
  readonly truncated: boolean;
}

/**
 * Cuts text to `maxChars`, appending `[Output truncated: …]` so the model knows what is
 * missing and how to get it (and `supersede` never takes a cut read for the whole file).
 *
 * @param text The full output.
 * @param maxChars The cap.
 * @param hint What to do for the rest, e.g. `read with offset and limit`.
 */
export function boundText(text: string, maxChars: number, hint: string): BoundedText {
  if (text.length <= maxChars) return { text, truncated: false };
  const cut = text.slice(0, maxChars);
  return {
    text: `${cut}\n[Output truncated: showing the first ${maxChars.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters; ${hint}]`,
    truncated: true,
  };
}
