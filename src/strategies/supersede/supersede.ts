import { cacheOrFresh } from '../../messages/engine-cache.ts';
import type { Message, Part } from '../../messages/types.ts';
import { formatCount, replaceToolResult, transformMessage } from '../../projection/chatfold-metadata.ts';
import type { PlanReplacement } from '../../projection/types.ts';
import { stageEffect } from '../stage-effect.ts';
import type { Strategy, StrategyResult } from '../types.ts';
import { collectResultEvents } from './result-events.ts';
import { stubText } from './stub-text.ts';
import { resolveSupersedeOptions, type SupersedeOptions } from './supersede-options.ts';
import { findSuperseded, type Supersession } from './supersession.ts';

/**
 * `supersede` (STR-1, seed 002's deduplicators): a tool output that a later call made stale
 * becomes a one-line stub naming what superseded it —
 * `[superseded: Read of src/app.ts (412 lines, id msg_a1) — a later Write of src/app.ts (message 57, msg_abc) holds newer content]`.
 * The tool-result part stays (same `callId`, `toolName`), so call/result structure is valid;
 * the message keeps its id and gets `metadata.chatfold = { transform: 'superseded', by, rule }`.
 * Protected messages (STR-8) are never changed. Pure and deterministic; input never mutated.
 *
 * Rules, each only with a LATER result that is not an error:
 * - `file-content`: a full read or write of a path — or an edit whose output is the whole new
 *   file (Cline's `replace_in_file`, the text editor's `undo_edit`) — supersedes earlier reads
 *   (full or partial), writes and edit outputs of that path. An edit that returns a snippet
 *   or a diff (Claude Code `Edit`, `str_replace`) supersedes nothing: the earlier read is
 *   partly stale but still the only whole view, and the edit's arguments say what changed;
 *   removing it would make the model re-read the file. A read whose output the tool cut
 *   (2,000-line limit, "[N characters truncated]", SWE-agent's 100-line window) counts as
 *   partial.
 * - `file-range`: a partial read (offset/limit, `view_range`, `head -n 20`, `sed -n 5,9p`)
 *   supersedes an earlier partial read of the same range only.
 * - `directory-listing`: a listing of the same directory that shows at least as much
 *   (recursive ⊇ flat, `-a` ⊇ plain, `-l` ⊇ names) and is not narrower (no filter, or the same).
 * - `identical-call`: the same read-only tool (`idempotentTools`) with the same arguments.
 * - `repeated-command`: the same shell command line in the same directory, when every program
 *   in it is read-only (`repeatedCommands: 'read-only'`, the default) or always (`'all'`).
 *
 * @param options - tool mappings, custom rules, lists, working directory; see {@link SupersedeOptions}
 * @returns a strategy named `supersede`
 * @throws ChatfoldError `E_INVALID_OPTIONS` when an option has the wrong shape
 *
 * @example
 * const projection = supersede({ cwd: '/repo' }).apply(messages, context);
 */
export function supersede(options: SupersedeOptions = {}): Strategy {
  const { minSavedChars, ...config } = resolveSupersedeOptions(options);
  return {
    name: 'supersede',
    apply(messages, context): StrategyResult {
      const cache = cacheOrFresh(context.cache);
      const found = findSuperseded(collectResultEvents(messages, config, cache));
      const byRule = new Map<string, number>();
      let charsSaved = 0;
      const replace: PlanReplacement[] = [];
      // Only messages with a superseded result are visited, oldest first (plans list edits in order).
      for (const [m, hits] of [...found].sort(([a], [b]) => a - b)) {
        const message = messages[m] as Message;
        if (message.role !== 'tool' || context.protectedIds.has(message.id)) continue;
        let first: Supersession | undefined;
        const parts = message.parts.map((part, p): Part => {
          const hit = part.type === 'tool-result' ? hits.get(p) : undefined;
          if (hit === undefined || part.type !== 'tool-result') return part;
          const stub = stubText(hit);
          if (hit.event.text.length - stub.length < Math.max(1, minSavedChars)) return part;
          first ??= hit;
          charsSaved += hit.event.text.length - stub.length;
          byRule.set(hit.rule, (byRule.get(hit.rule) ?? 0) + 1);
          return replaceToolResult(part, stub);
        });
        if (first === undefined) continue;
        replace.push({
          id: message.id,
          message: transformMessage(
            message,
            parts,
            { transform: 'superseded', by: first.by.messageId, rule: first.rule },
            cache,
          ),
        });
      }
      const stubbed = replace.length;
      if (stubbed === 0) return { edits: {}, effect: stageEffect({}) };
      const rules = [...byRule].map(([rule, count]) => `${rule} ${count}`).join(', ');
      return {
        edits: { replace },
        effect: stageEffect({
          stubbed,
          notes: [
            `stubbed ${formatCount(stubbed)} message(s) of superseded tool output (${rules}), ${formatCount(charsSaved)} characters`,
          ],
        }),
      };
    },
  };
}
