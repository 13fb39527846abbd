import { useCallback, useRef, useState } from 'preact/hooks';
import type { StreamEvent, WireCompactionResult } from '../../../api-types.ts';
import { stopRun, streamRoute } from '../api.ts';
import type { StreamItem } from '../components/streaming-turn.tsx';
import { formatCount, plural } from '../format.ts';

/** A turn on its way: the user's text and what the answer streamed so far. */
export interface Turn {
  readonly user: string;
  readonly items: readonly StreamItem[];
  /** Stopped by the user: the partial answer stays as it is. */
  readonly stopped?: boolean;
}

/** Applies one streamed event to the turn's items. */
function applyEvent(items: readonly StreamItem[], event: StreamEvent): readonly StreamItem[] {
  switch (event.type) {
    case 'text-delta': {
      const last = items.at(-1);
      if (last?.kind === 'text')
        return [...items.slice(0, -1), { kind: 'text', text: last.text + event.text }];
      return [...items, { kind: 'text', text: event.text }];
    }
    case 'tool-call':
      return [
        ...items,
        {
          kind: 'tool',
          callId: event.callId,
          name: event.toolName,
          input: event.input,
          ...(event.path === undefined ? {} : { path: event.path }),
        },
      ];
    case 'tool-result':
      return items.map((item) =>
        item.kind === 'tool' && item.callId === event.callId
          ? { ...item, output: event.output, isError: event.isError }
          : item,
      );
    case 'compaction-start':
      return [
        ...items,
        {
          kind: 'note',
          tone: 'info',
          text: `Compacting the history (${plural(event.messages, 'message')}, ${formatCount(event.tokens)} tokens)…`,
        },
      ];
    case 'compaction-fallback':
      return [...items, { kind: 'note', tone: 'warning', text: event.reason }];
    case 'compaction-error':
      return [...items, { kind: 'note', tone: 'warning', text: `Compaction failed: ${event.message}` }];
    case 'error':
      return [...items, { kind: 'note', tone: 'error', text: event.message }];
    default:
      return items;
  }
}

/** Options of {@link useTurn}. */
export interface UseTurnOptions {
  readonly sessionId: string;
  /** A gauge arrived (after a compaction, at the end of the turn). */
  readonly onGauge: (event: Extract<StreamEvent, { type: 'gauge' }>['gauge']) => void;
  /** An automatic compaction happened during the turn. */
  readonly onAutoCompaction: (result: WireCompactionResult) => void;
  /** The turn ended and the server stored it: reload the chat. */
  readonly onStored: () => Promise<void>;
}

/**
 * Sending a message and following its answer (WEB-1): the turn as it streams, `busy`, `send`
 * and `stop` (the server stops the turn and stores the partial answer; the stream then ends,
 * so the answer stays in place). Data only; the chat view renders it.
 */
export function useTurn({ sessionId, onGauge, onAutoCompaction, onStored }: UseTurnOptions) {
  const [turn, setTurn] = useState<Turn | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const controller = useRef<AbortController | undefined>(undefined);

  const send = useCallback(
    async (text: string): Promise<void> => {
      const abort = new AbortController();
      controller.current = abort;
      setBusy(true);
      setTurn({ user: text, items: [] });
      let stopped = false;
      try {
        for await (const event of streamRoute(
          'POST /api/sessions/:id/turns',
          sessionId,
          { text },
          abort.signal,
        )) {
          if (event.type === 'gauge') onGauge(event.gauge);
          if (event.type === 'done' && event.reason === 'aborted') stopped = true;
          if (event.type === 'compaction-end' && event.result.compacted && event.result.mode !== 'manual') {
            onAutoCompaction(event.result);
          }
          setTurn((current) =>
            current === undefined ? current : { ...current, items: applyEvent(current.items, event) },
          );
        }
      } catch (error) {
        if (!abort.signal.aborted) {
          setTurn((current) =>
            current === undefined
              ? current
              : {
                  ...current,
                  items: applyEvent(current.items, { type: 'error', message: (error as Error).message }),
                },
          );
        }
      } finally {
        controller.current = undefined;
        setBusy(false);
      }
      if (stopped) setTurn((current) => (current === undefined ? current : { ...current, stopped: true }));
      // The stream ended after the server stored the turn (a stopped one too): the reload shows
      // it, then the streamed copy goes — unless it failed (its error note is not stored).
      await onStored();
      setTurn((current) =>
        current?.items.some((item) => item.kind === 'note' && item.tone === 'error') ? current : undefined,
      );
    },
    [sessionId, onGauge, onAutoCompaction, onStored],
  );

  const stop = useCallback((): void => {
    stopRun(sessionId).then(
      (stopped) => {
        if (!stopped) controller.current?.abort();
      },
      () => controller.current?.abort(),
    );
  }, [sessionId]);

  /** Closes the stream (leaving the chat): the server stops the turn too. */
  const abandon = useCallback((): void => {
    controller.current?.abort();
    setTurn(undefined);
  }, []);

  return { turn, busy, send, stop, abandon };
}
