import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Gauge, SessionView, WireSession } from '../../../api-types.ts';
import { call } from '../api.ts';

/**
 * A chat as `GET /api/sessions/:id` describes it (summary, active context, gauge), loaded when
 * the id changes; `reload` after anything that changed it, `setGauge` for a gauge a stream
 * sent. Data only; the chat view renders it.
 */
export function useSessionView(sessionId: string, onSessionChanged: (session: WireSession) => void) {
  const [view, setView] = useState<SessionView | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>(undefined);

  const reload = useCallback(async (): Promise<void> => {
    try {
      const next = await call('GET /api/sessions/:id', { id: sessionId });
      setView(next);
      setLoadError(undefined);
      onSessionChanged(next.session);
    } catch (error) {
      setLoadError((error as Error).message);
    }
  }, [sessionId, onSessionChanged]);

  useEffect(() => {
    setView(undefined);
    void reload();
  }, [reload]);

  const setGauge = useCallback(
    (gauge: Gauge) => setView((current) => (current === undefined ? current : { ...current, gauge })),
    [],
  );

  return { view, loadError, reload, setGauge };
}
