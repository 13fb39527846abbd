import { useEffect, useState } from 'preact/hooks';
import type { ServerInfo, WebSettings } from '../../../api-types.ts';
import { call } from '../api.ts';
import { PolicySummary } from './policy-summary.tsx';

/** Props of {@link SettingsPage}. */
export interface SettingsPageProps {
  readonly info: ServerInfo;
  readonly onSaved: (settings: WebSettings) => void;
}

const toPercent = (fraction: number): string => String(Math.round(fraction * 1000) / 10);

/**
 * The settings page (WEB-7, FR-3.1): auto-compaction on/off, the threshold for each model,
 * retention tokens, notifications, the summarizer model. Saved in the store's settings
 * (FR-3.1.2), so they survive a restart.
 */
export function SettingsPage({ info, onSaved }: SettingsPageProps) {
  const [settings, setSettings] = useState<WebSettings | undefined>(undefined);
  const [thresholds, setThresholds] = useState<{ model: string; percent: string }[]>([]);
  const [status, setStatus] = useState<{ text: string; tone: 'ok' | 'error' } | undefined>(undefined);

  useEffect(() => {
    call('GET /api/settings', {}).then(
      ({ settings: loaded }) => {
        setSettings(loaded);
        const rows = Object.entries(loaded.thresholds).map(([model, fraction]) => ({
          model,
          percent: toPercent(fraction),
        }));
        if (!rows.some((row) => row.model === info.modelId)) {
          rows.unshift({ model: info.modelId, percent: toPercent(info.defaultThreshold) });
        }
        setThresholds(rows);
      },
      (error: Error) => setStatus({ text: error.message, tone: 'error' }),
    );
  }, [info]);

  if (settings === undefined) {
    return (
      <section class="page" aria-labelledby="settings-title">
        <h1 id="settings-title">Settings</h1>
        {status === undefined ? (
          <p class="muted">Loading…</p>
        ) : (
          <p role="alert" class="error">
            {status.text}
          </p>
        )}
      </section>
    );
  }

  const save = async (): Promise<void> => {
    const map: Record<string, number> = {};
    for (const row of thresholds) {
      if (row.model.trim() === '') continue;
      map[row.model.trim()] = Number(row.percent) / 100;
    }
    try {
      const saved = await call('PUT /api/settings', { body: { ...settings, thresholds: map } });
      setSettings(saved.settings);
      onSaved(saved.settings);
      setStatus({ text: 'Settings saved.', tone: 'ok' });
    } catch (error) {
      setStatus({ text: `Not saved: ${(error as Error).message}`, tone: 'error' });
    }
  };

  return (
    <section class="page settings" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <fieldset>
          <legend>Compaction</legend>
          <label class="check">
            <input
              type="checkbox"
              checked={settings.autoCompaction}
              onChange={(event) =>
                setSettings({ ...settings, autoCompaction: (event.target as HTMLInputElement).checked })
              }
            />
            Compact automatically when a conversation nears the model's context window
          </label>
          <p class="hint">Each chat can override this in its options (sidebar menu).</p>
          <label class="field">
            <span>Recent tokens always kept verbatim (retention)</span>
            <input
              type="number"
              min={0}
              max={1_000_000}
              step={100}
              required
              value={settings.retentionTokens}
              onInput={(event) =>
                setSettings({
                  ...settings,
                  retentionTokens: Number((event.target as HTMLInputElement).value),
                })
              }
            />
          </label>
          <label class="field">
            <span>Summarizer model (provider:model; empty uses the chat model)</span>
            <input
              type="text"
              placeholder="e.g. openai:gpt-4o-mini"
              maxLength={200}
              value={settings.summarizerModel ?? ''}
              onInput={(event) => {
                const value = (event.target as HTMLInputElement).value.trim();
                setSettings({ ...settings, summarizerModel: value === '' ? null : value });
              }}
            />
          </label>
        </fieldset>
        <fieldset>
          <legend>Threshold per model</legend>
          <p class="hint">
            Compact automatically when the prompt reaches this share of the model's context window. The
            answer's reserve and the safety margin stay free in any case.
          </p>
          <table class="thresholds">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Threshold (%)</th>
                <th scope="col">
                  <span class="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {thresholds.map((row, index) => (
                <tr key={index}>
                  <td>
                    <input
                      type="text"
                      aria-label={`Model ${index + 1}`}
                      value={row.model}
                      maxLength={200}
                      onInput={(event) => {
                        const next = [...thresholds];
                        next[index] = { ...row, model: (event.target as HTMLInputElement).value };
                        setThresholds(next);
                      }}
                    />
                  </td>
                  <td>
                    <input
                      type="number"
                      min={10}
                      max={100}
                      step={1}
                      required
                      aria-label={`Threshold for ${row.model || `model ${index + 1}`} (%)`}
                      value={row.percent}
                      onInput={(event) => {
                        const next = [...thresholds];
                        next[index] = { ...row, percent: (event.target as HTMLInputElement).value };
                        setThresholds(next);
                      }}
                    />
                  </td>
                  <td>
                    <button
                      type="button"
                      class="link-button"
                      onClick={() => setThresholds(thresholds.filter((_, other) => other !== index))}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <button
            type="button"
            class="secondary"
            onClick={() =>
              setThresholds([...thresholds, { model: '', percent: toPercent(info.defaultThreshold) }])
            }
          >
            Add a model
          </button>
        </fieldset>
        <fieldset>
          <legend>Notifications</legend>
          <label class="check">
            <input
              type="checkbox"
              checked={settings.notifications}
              onChange={(event) =>
                setSettings({ ...settings, notifications: (event.target as HTMLInputElement).checked })
              }
            />
            Tell me when the history was compacted automatically
          </label>
        </fieldset>
        <div class="form-buttons">
          <button type="submit">Save settings</button>
        </div>
        <p role="status" class={status?.tone === 'error' ? 'error' : 'ok'}>
          {status?.text ?? ''}
        </p>
      </form>
      <PolicySummary info={info} settings={settings} />
    </section>
  );
}
