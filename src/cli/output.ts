/** Prints a result for people, or as one JSON document with --json (for scripts). */
export function emit(json: boolean | undefined, value: unknown, human: () => string): void {
  process.stdout.write(json === true ? `${JSON.stringify(value, bigintReplacer, 2)}\n` : `${human()}\n`);
}

function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** Wrong input from the operator: printed as `error: <message>`, exit code 1, no stack trace. */
export class UsageError extends Error {}

/** A failure the command has already reported in full: the CLI only exits 1. */
export class ReportedFailure extends Error {}

/**
 * A table for people: a header row, then the rows, columns padded to line up. `right`
 * lists columns aligned right (amounts, counts). Wide cells are kept whole, never cut.
 */
export function renderTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>, right: readonly number[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (right.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}
