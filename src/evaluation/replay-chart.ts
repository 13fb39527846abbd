/** One point of the replay chart. */
export interface ChartTurn {
  readonly turn: number;
  readonly unmanagedTokens: number;
  readonly sentTokens: number;
  readonly compacted: boolean;
}

/** What the chart shows besides the turns. */
export interface ChartOptions {
  readonly title: string;
  readonly window: number;
  readonly budget: number;
  readonly target: number;
  readonly width?: number;
  readonly height?: number;
}

const escapeXml = (text: string): string =>
  text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string,
  );

const compactNumber = (n: number): string =>
  n >= 1_000_000
    ? `${(n / 1_000_000).toFixed(1)}M`
    : n >= 1000
      ? `${Math.round(n / 1000)}k`
      : String(Math.round(n));

/** A "nice" step for axis ticks (1, 2, 5 × 10^k). */
function niceStep(max: number, ticks: number): number {
  const raw = max / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  const scaled = raw / power;
  return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * power;
}

/**
 * Renders context size per turn as a standalone SVG (CLI-3 `--chart`): the unmanaged prompt
 * (what would be sent without chatfold) against what chatfold sent, the window, the budget
 * and the target as reference lines, and each compaction marked.
 */
export function renderReplayChart(turns: readonly ChartTurn[], options: ChartOptions): string {
  const width = options.width ?? 960;
  const height = options.height ?? 480;
  const margin = { top: 64, right: 110, bottom: 48, left: 72 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const maxTokens = Math.max(
    options.window,
    ...turns.map((t) => Math.max(t.unmanagedTokens, t.sentTokens)),
    1,
  );
  const step = niceStep(maxTokens, 6);
  const yMax = Math.ceil(maxTokens / step) * step;
  const lastTurn = Math.max(1, turns.length - 1);
  const x = (i: number): number => margin.left + (i / lastTurn) * plotW;
  const y = (tokens: number): number => margin.top + plotH - (tokens / yMax) * plotH;
  const path = (values: readonly number[]): string =>
    values.map((v, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12" role="img" aria-label="${escapeXml(options.title)}">`,
    `<title>${escapeXml(options.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${margin.left}" y="28" font-size="15" font-weight="600" fill="#111827">${escapeXml(options.title)}</text>`,
  );
  for (let v = 0; v <= yMax; v += step) {
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e7eb"/>`,
      `<text x="${margin.left - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" fill="#6b7280">${compactNumber(v)}</text>`,
    );
  }
  const xStep = niceStep(lastTurn, 8);
  for (let t = 0; t <= lastTurn; t += xStep) {
    parts.push(
      `<text x="${x(t).toFixed(1)}" y="${margin.top + plotH + 18}" text-anchor="middle" fill="#6b7280">${t + 1}</text>`,
    );
  }
  parts.push(
    `<text x="${margin.left + plotW / 2}" y="${height - 10}" text-anchor="middle" fill="#374151">model call (turn)</text>`,
    `<text transform="translate(18 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="#374151">prompt tokens</text>`,
  );
  const reference = (tokens: number, label: string, color: string, dash: string): void => {
    if (tokens > yMax) return;
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${y(tokens).toFixed(1)}" y2="${y(tokens).toFixed(1)}" stroke="${color}" stroke-dasharray="${dash}" stroke-width="1.5"/>`,
      `<text x="${margin.left + plotW + 8}" y="${(y(tokens) + 4).toFixed(1)}" fill="${color}">${escapeXml(label)} ${compactNumber(tokens)}</text>`,
    );
  };
  reference(options.window, 'window', '#dc2626', '6 4');
  reference(options.budget, 'budget', '#ea580c', '3 3');
  reference(options.target, 'target', '#9ca3af', '2 4');
  for (const turn of turns) {
    if (!turn.compacted) continue;
    const i = turns.indexOf(turn);
    parts.push(
      `<line x1="${x(i).toFixed(1)}" x2="${x(i).toFixed(1)}" y1="${margin.top}" y2="${margin.top + plotH}" stroke="#7c3aed" stroke-opacity="0.35"/>`,
      `<circle cx="${x(i).toFixed(1)}" cy="${y(turn.sentTokens).toFixed(1)}" r="4" fill="#7c3aed"><title>compaction at turn ${turn.turn}: ${turn.sentTokens.toLocaleString('en-US')} tokens sent</title></circle>`,
    );
  }
  parts.push(
    `<path d="${path(turns.map((t) => t.unmanagedTokens))}" fill="none" stroke="#9ca3af" stroke-width="2"/>`,
    `<path d="${path(turns.map((t) => t.sentTokens))}" fill="none" stroke="#2563eb" stroke-width="2.5"/>`,
  );
  const legend = [
    ['#9ca3af', 'unmanaged'],
    ['#2563eb', 'chatfold'],
    ['#7c3aed', 'compaction'],
  ] as const;
  legend.forEach(([color, label], i) => {
    const lx = margin.left + i * 110;
    const ly = 50;
    parts.push(
      `<rect x="${lx}" y="${ly - 8}" width="14" height="4" fill="${color}"/>`,
      `<text x="${lx + 20}" y="${ly - 2}" fill="#374151">${label}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
