/** Prints a result for people, or as one JSON document with --json (for scripts). */
export function emit(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, bigintReplacer, 2)}\n` : `${human()}\n`);
}

function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

export class UsageError extends Error {}
