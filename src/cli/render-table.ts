/**
 * Renders rows as a plain-text table: columns padded to their widest cell, numbers
 * right-aligned, the columns in `alignLeft` left-aligned, two spaces between columns.
 */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  { alignLeft = [0] }: { readonly alignLeft?: readonly number[] } = {},
): string[] {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (alignLeft.includes(i) ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
