import cluster from 'node:cluster';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

// `switchyard serve --workers N` on SQLite, for the tests of the cluster itself (primary,
// signals, restarts, metrics across workers) while the fleet stores are not wired into
// serve. The real CLI refuses N > 1 on SQLite; here the primary is started directly
// (runClusterPrimary) and each worker runs the real `switchyard serve` (src/cli/main.ts)
// on its own copy of one template database (FIXTURE_TEMPLATE: the same accounts and keys,
// so any worker accepts the test's key), in FIXTURE_BASE/worker-<slot>/.
//
//   FIXTURE_WORKERS=2 FIXTURE_BASE=dir FIXTURE_TEMPLATE=dir/switchyard.db node cluster-serve-fixture.ts serve --port 0

if (cluster.isPrimary) {
  const { runClusterPrimary } = await import('../../src/cli/serve-cluster.ts');
  const code = await runClusterPrimary({
    workers: Number(process.env.FIXTURE_WORKERS ?? '2'),
    log: (m) => process.stderr.write(`${m}\n`),
    backoff: { firstMs: 50, maxMs: 1000, stableMs: 60_000 },
  });
  process.exit(code);
} else {
  const dir = join(process.env.FIXTURE_BASE!, `worker-${process.env.SWITCHYARD_WORKER_SLOT}`);
  const template = process.env.FIXTURE_TEMPLATE!;
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    copyFileSync(template, join(dir, 'switchyard.db'));
  }
  process.env.SWITCHYARD_DATA_DIR = dir;
  await import('../../src/cli/main.ts');
}
