import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * One gateway process per database. Credit holds are kept in the serving process's
 * memory (billing/credit-reservations.ts), so two gateways on one SQLite file could
 * together hold more than a balance; this lock refuses the second. The lock file holds the
 * owner's pid: a lock left by a process that died (SIGKILL) is taken over. Operator CLI
 * commands do not take it: they may run beside the gateway.
 */
export class ServeLock {
  private readonly path: string | null;

  private constructor(path: string | null) {
    this.path = path;
  }

  static acquire(databasePath: string): ServeLock {
    if (databasePath === ':memory:') return new ServeLock(null);
    const path = `${databasePath}.serve-lock`;
    for (let tries = 0; tries < 2; tries++) {
      try {
        writeFileSync(path, String(process.pid), { flag: 'wx' });
        return new ServeLock(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = Number.parseInt(readOwner(path), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new Error(`another switchyard gateway (pid ${owner}) is serving ${databasePath}; one gateway process per database`);
      }
      // Left by a process that is gone: take it over.
      try {
        unlinkSync(path);
      } catch {
        // raced with another starter: the next try decides
      }
    }
    throw new Error(`could not take the serve lock ${path}`);
  }

  release(): void {
    if (this.path === null) return;
    try {
      if (readOwner(this.path) === String(process.pid)) unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

function readOwner(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
