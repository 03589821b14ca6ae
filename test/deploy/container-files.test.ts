import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

// No Docker daemon here: the container files are checked as text. The Dockerfile has its
// stages, unprivileged user, health check, port and data volume; docker-compose.yml has
// Postgres, Redis and two gateways configured for them, each with a health check.

const root = new URL('../../', import.meta.url);
const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
const compose = parse(readFileSync(new URL('docker-compose.yml', root), 'utf8'), { merge: true });

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

test('the Dockerfile builds in stages from Node 24 slim and serves as a non-root user with a /health check', () => {
  const lines = instructions(dockerfile);
  assert.ok(lines.includes('ARG NODE_IMAGE=node:24-slim'), 'Node 24 slim');
  const stages = lines.filter((l) => l.startsWith('FROM ')).map((l) => l.split(/\s+AS\s+/i)[1]);
  assert.deepEqual(stages, ['build', 'deps', 'runtime']);
  assert.ok(
    lines.some((l) => l.startsWith('COPY --from=deps /app/node_modules')),
    'the runtime takes the dependencies of the deps stage',
  );
  assert.ok(
    lines.some((l) => /^RUN npm ci --omit=dev/.test(l)),
    'production dependencies from the lockfile',
  );
  const runtime = lines.slice(lines.findIndex((l) => / AS runtime$/.test(l)));
  const user = runtime.filter((l) => l.startsWith('USER '));
  assert.deepEqual(user, ['USER node']);
  assert.ok(runtime.indexOf('USER node') < runtime.findIndex((l) => l.startsWith('CMD ')), 'USER before CMD');
  const health = runtime.find((l) => l.startsWith('HEALTHCHECK '));
  assert.ok(health?.includes('/health'), health);
  assert.ok(runtime.includes('EXPOSE 8080'));
  assert.ok(runtime.includes('VOLUME ["/data"]'));
  assert.ok(
    runtime.some((l) => /SWITCHYARD_DATA_DIR=\/data/.test(l)),
    'the database lives on the volume',
  );
  assert.ok(
    runtime.includes('CMD ["node", "--max-semi-space-size=16", "--import", "./bin/type-stripped-hook.mjs", "bin/switchyard.mjs", "serve"]'),
    'the gateway with its young-generation size and the type-stripped sources (docs/operations.md)',
  );
  assert.ok(
    /RUN[^\n]*(\n [^\n]*)*node bin\/type-stripped-sources\.mjs/.test(runtime.join('\n')),
    'the image caches the type-stripped sources the hook serves',
  );
});

test('docker-compose.yml runs Postgres, Redis and two gateways configured for them, each with a health check', () => {
  assert.deepEqual(Object.keys(compose.services).sort(), ['gateway-1', 'gateway-2', 'postgres', 'redis']);
  assert.match(compose.services.postgres.image, /^postgres:/);
  assert.match(compose.services.redis.image, /^redis:/);
  for (const name of ['postgres', 'redis']) assert.ok(Array.isArray(compose.services[name].healthcheck?.test), `${name} healthcheck`);
  const ports = new Set<string>();
  for (const name of ['gateway-1', 'gateway-2']) {
    const g = compose.services[name];
    assert.equal(g.build.context, '.');
    assert.match(g.environment.DATABASE_URL, /^postgres:\/\/switchyard:.*@postgres:5432\/switchyard$/);
    assert.match(g.environment.REDIS_URL, /^redis:\/\/redis:6379/);
    assert.equal(g.environment.HOST, '0.0.0.0');
    assert.ok(g.healthcheck.test.join(' ').includes('/ready'), `${name} is healthy when ready`);
    assert.equal(g.depends_on.postgres.condition, 'service_healthy');
    assert.equal(g.depends_on.redis.condition, 'service_healthy');
    const published = g.ports[0] as string;
    assert.match(published, /^\d+:8080$/);
    ports.add(published.split(':')[0]!);
  }
  assert.equal(ports.size, 2, 'each gateway on its own published port');
});

test('docker-compose.yml keeps Postgres and Redis data on named volumes and lets the gateways drain', () => {
  assert.deepEqual(Object.keys(compose.volumes).sort(), ['postgres-data', 'redis-data']);
  assert.deepEqual(compose.services.postgres.volumes, ['postgres-data:/var/lib/postgresql/data']);
  assert.deepEqual(compose.services.redis.volumes, ['redis-data:/data']);
  assert.ok(compose.services.redis.command.includes('--appendonly'), 'Redis persists (holds and limits survive its restart)');
  assert.match(compose.services.postgres.healthcheck.test.join(' '), /pg_isready/);
  for (const name of ['gateway-1', 'gateway-2']) {
    const g = compose.services[name];
    // Longer than the default drain timeout (30 s): SIGTERM lets streams finish.
    assert.ok(parseInt(g.stop_grace_period, 10) > 30, `${name} stop_grace_period ${g.stop_grace_period}`);
    assert.equal(g.restart, 'unless-stopped');
  }
});
