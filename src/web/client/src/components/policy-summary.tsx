import type { ServerInfo, WebSettings } from '../../../api-types.ts';
import { formatCount } from '../format.ts';

type Policy = ServerInfo['policy'];

const percent = (fraction: number): string => `${Math.round(fraction * 1000) / 10} %`;

/** One row per rule of the policy, in words, with the setting that changes it. */
function rows(policy: Policy, settings: WebSettings, info: ServerInfo): [string, string, string][] {
  const threshold = settings.thresholds[info.modelId] ?? info.defaultThreshold;
  const reserve =
    policy.responseReserve === 'max-output'
      ? "the model's max output tokens (at most 25 % of the window)"
      : `${formatCount(policy.responseReserve)} tokens`;
  const margin =
    policy.safetyMargin === 'by-accuracy'
      ? '5–15 % of the window, by how exact the count is'
      : `${percent(policy.safetyMargin)} of the window`;
  const placement: Record<Policy['summary']['placement'], string> = {
    system: 'the first system message of the context',
    user: 'a user message after the first one',
    provider: 'a system message where the provider allows it, else a user message',
  };
  return [
    [
      'Automatic compaction',
      settings.autoCompaction
        ? `when the prompt reaches ${percent(threshold)} of the model's window, or would eat into the answer's reserve`
        : 'off (only a prompt that would not fit is compacted)',
      'Compact automatically; Threshold per model',
    ],
    [
      'Never automatically below',
      policy.floor.tokens > 0 ? `${formatCount(policy.floor.tokens)} tokens` : 'no minimum',
      '—',
    ],
    ['Kept free for the answer', reserve, '—'],
    ['Safety margin', margin, '—'],
    [
      'Kept verbatim after a summary',
      `the newest messages within ${formatCount(settings.retentionTokens)} tokens (whole messages only)`,
      'Recent tokens always kept verbatim',
    ],
    ['The summary goes', placement[policy.summary.placement], '—'],
    [
      'First user message kept apart',
      policy.protect.firstUserMessage ? 'yes' : 'no: it is summarized like the rest',
      '—',
    ],
    [
      '“Summarize conversation history” covers',
      policy.manual.scope === 'all' ? 'all messages' : 'all but the messages kept verbatim',
      '—',
    ],
    [
      'If the summarizer fails',
      `automatic: ${policy.onFailure.auto === 'skip' ? 'the prompt is sent as it is (cut to fit only when it must be) and the model is asked again after a back-off' : 'a summary quoting the messages, without a model'}; by hand: ${policy.onFailure.manual === 'error' ? 'an error with Retry, nothing changed' : 'a summary quoting the messages'}`,
      'Summarizer model',
    ],
  ];
}

/**
 * The context policy in force, whole and in words (issue 23: "shown whole on the settings
 * page"): what each rule does and which setting changes it.
 */
export function PolicySummary({
  info,
  settings,
}: {
  readonly info: ServerInfo;
  readonly settings: WebSettings;
}) {
  const policy = info.policy;
  return (
    <section class="policy" aria-labelledby="policy-title">
      <h2 id="policy-title">How chats keep within the context window</h2>
      <p class="hint">
        Policy <code>{policy.name}</code>, with your settings applied. Nothing is ever deleted: the full
        history keeps every message.
      </p>
      <table class="policy-table">
        <caption class="visually-hidden">Context policy</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">In force</th>
            <th scope="col">Changed by</th>
          </tr>
        </thead>
        <tbody>
          {rows(policy, settings, info).map(([rule, value, setting]) => (
            <tr key={rule}>
              <th scope="row">{rule}</th>
              <td>{value}</td>
              <td>{setting}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details>
        <summary>The policy as data</summary>
        <pre class="policy-json">{JSON.stringify(policy, null, 2)}</pre>
      </details>
    </section>
  );
}
