import { availableParallelism } from 'node:os';
import { UsageError } from './output.ts';

/** The most workers one machine is given: far above any core count a gateway meets. */
const MAX_WORKERS = 256;

/**
 * How many gateway processes `serve` runs: `--workers`, else env SWITCHYARD_WORKERS, else 1.
 * `auto` is one per core (`os.availableParallelism()`: the cores this process may use).
 */
export function workerCount(flag: string | undefined, env: Record<string, string | undefined>): number {
  const fromFlag = flag !== undefined;
  const raw = fromFlag ? flag : env.SWITCHYARD_WORKERS;
  if (raw === undefined || raw.trim() === '') return 1;
  const where = fromFlag ? '--workers' : 'env SWITCHYARD_WORKERS';
  const text = raw.trim().toLowerCase();
  if (text === 'auto') return availableParallelism();
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_WORKERS) {
    throw new UsageError(`${where}: "${raw}" is not a number of workers (1 to ${MAX_WORKERS}, or auto for one per core)`);
  }
  return Number(text);
}
