import type { Message } from '../messages/types.ts';
import { chatfoldMetadata } from '../projection/chatfold-metadata.ts';
import { applyEdits } from '../projection/edits.ts';
import { retentionStart } from './retention.ts';
import { stageEffect } from './stage-effect.ts';
import { groupUnits } from './tool-groups.ts';
import { dropUnits, omissionText } from './truncate.ts';
import type { Strategy, StrategyResult } from './types.ts';

/** Score weights of `importance` (STR-4, seed 003). Higher is kept longer. */
export interface ImportanceWeights {
  readonly user: number;
  readonly toolUse: number;
  readonly longAssistant: number;
  readonly assistant: number;
  readonly acknowledgement: number;
  /** Added when a later message mentions a path or identifier from this one. */
  readonly referencedLater: number;
}

export const DEFAULT_IMPORTANCE_WEIGHTS: ImportanceWeights = {
  user: 1,
  toolUse: 1,
  longAssistant: 0.6,
  assistant: 0.4,
  acknowledgement: 0.1,
  referencedLater: 0.3,
};

/** Assistant text at least this long counts as "long". */
const LONG_ASSISTANT_CHARS = 400;
const ACKNOWLEDGEMENT =
  /^\s*(ok(ay)?|sure|thanks?( you)?|got it|done|great|yes|no|alright|understood|sounds good|perfect|cool|nice)[\s.!]*$/i;
/** Paths and code-like identifiers: `src/app.ts`, `parseConfig`, `snake_case_name`. */
const SALIENT = /[\w.-]*\/[\w./-]+|\b[a-z]+[A-Z]\w*\b|\b\w+_\w+\b/g;

function messageText(message: Message): string {
  let text = '';
  for (const part of message.parts) {
    if (part.type === 'text') text += `${part.text}\n`;
    else if (part.type === 'tool-call') text += `${part.arguments}\n`;
  }
  return text;
}

function baseScore(message: Message, weights: ImportanceWeights): number {
  if (message.role === 'user') return weights.user;
  if (message.role !== 'assistant') return weights.assistant;
  if (message.parts.some((part) => part.type === 'tool-call')) return weights.toolUse;
  const text = messageText(message).trim();
  if (text.length < 40 && ACKNOWLEDGEMENT.test(text)) return weights.acknowledgement;
  return text.length >= LONG_ASSISTANT_CHARS ? weights.longAssistant : weights.assistant;
}

/** Options of {@link importance}. */
export interface ImportanceOptions {
  readonly weights?: Partial<ImportanceWeights>;
  /** The newest messages never scored away (whole tool groups; the policy's retention). */
  readonly retentionMessages?: number;
  /** The newest tokens never scored away. */
  readonly retentionTokens?: number;
  /** Marker text for what was left out; `{count}` is replaced. */
  readonly marker?: string;
}

/**
 * `importance` (STR-4): scores every unit (user 1.0, tool use 1.0, long assistant 0.6,
 * acknowledgements 0.1, +0.3 when referenced later) and drops the lowest first, oldest first
 * among equals, outside the protected messages, until the target is reached.
 */
export function importance({
  weights = {},
  retentionMessages,
  retentionTokens,
  marker,
}: ImportanceOptions = {}): Strategy {
  const w: ImportanceWeights = { ...DEFAULT_IMPORTANCE_WEIGHTS, ...weights };
  return {
    name: 'importance',
    apply(messages, context): StrategyResult {
      const { counter } = context;
      let total = counter.count(messages).total;
      const none: StrategyResult = { edits: {}, effect: stageEffect({}) };
      if (total <= context.target) return none;
      const units = groupUnits(messages);
      const retainFrom =
        retentionMessages !== undefined || retentionTokens !== undefined
          ? retentionStart(
              messages,
              units,
              0,
              { maxMessages: retentionMessages, maxTokens: retentionTokens },
              context,
            )
          : messages.length;
      const scored: { unit: number; score: number; tokens: number }[] = [];
      const seenLater = new Set<string>();
      for (let u = units.length - 1; u >= 0; u--) {
        const unit = units[u] as (typeof units)[number];
        let score = 0;
        let tokens = 0;
        let isKept = false;
        const salient: string[] = [];
        for (let i = unit.start; i < unit.end; i++) {
          const message = messages[i] as Message;
          isKept ||=
            context.protectedIds.has(message.id) || chatfoldMetadata(message)?.transform === 'summary';
          score = Math.max(score, baseScore(message, w));
          tokens += counter.countMessage(message);
          for (const match of messageText(message).matchAll(SALIENT)) salient.push(match[0]);
        }
        if (salient.some((token) => seenLater.has(token))) score = Math.min(1, score + w.referencedLater);
        for (const token of salient) seenLater.add(token);
        if (!isKept && unit.start < retainFrom) scored.push({ unit: u, score, tokens });
      }
      scored.sort((a, b) => a.score - b.score || a.unit - b.unit);
      // One marker stands for everything dropped (STR-4): its cost is reserved up front, so the
      // projection only shrinks; a drop that cannot pay for the marker is not made.
      const markerCost = counter.countMessage({
        id: 'marker',
        role: 'user',
        parts: [{ type: 'text', text: omissionText(99_999, marker) }],
        createdAt: '',
      });
      const before = total;
      const dropped = new Set<number>();
      for (const { unit, tokens } of scored) {
        if (total + (dropped.size > 0 ? markerCost : 0) <= context.target) break;
        dropped.add(unit);
        total -= tokens;
      }
      if (dropped.size === 0) return none;
      const result = dropUnits(messages, units, dropped, { template: marker, markers: 'single' });
      const after = counter.count(applyEdits(messages, result.edits)).total;
      if (after >= before) return none;
      return {
        edits: result.edits,
        effect: stageEffect({
          dropped: result.dropped,
          notes: [`dropped ${result.dropped} low-importance message(s)`],
        }),
      };
    },
  };
}
