import { bootstrapOperator } from '../billing/bootstrap-operator.ts';
import { preloadTokenizers } from '../canonical/bpe-tokenizers.ts';
import { buildApp } from '../server/build-app.ts';
import { createServices } from '../server/services.ts';
import { loadCliConfig } from './load-cli-config.ts';

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

export async function runServe(values: { config?: string; host?: string; port?: string }): Promise<number> {
  const config = loadCliConfig(values);
  const services = createServices(config, { env: process.env, log });
  for (const w of services.catalogWarnings) log(`catalog: ${w}`);

  const starter = bootstrapOperator(services.accounts, services.accountService, {
    creditsUsd: config.bootstrap.credits,
    defaultModel: services.catalog.models[0]?.id ?? null,
  });

  // ~190 ms and ~45 MB once, here rather than inside the first request that needs them.
  preloadTokenizers();
  const app = buildApp(services);
  const address = await app.listen({ host: config.server.host, port: config.server.port });
  const providers = [...new Set(services.catalog.models.flatMap((m) => m.endpoints.map((e) => e.provider.id)))];
  log(`switchyard listening on ${address}`);
  log(`database: ${config.database.path}`);
  log(`${services.catalog.models.length} models from providers: ${providers.join(', ') || 'none'}`);
  if (starter !== null) {
    log('');
    log(`First start: created the operator account ${starter.accountId} with $${config.bootstrap.credits} of credits.`);
    log('Its API key is shown this once; keep it:');
    log('');
    log(`    ${starter.key}`);
    log('');
    log(`Try: curl ${address}/v1/chat/completions -H "Authorization: Bearer ${starter.key}" \\`);
    log(`       -d '{"model": "${services.catalog.models[0]?.id ?? 'author/model'}", "messages": [{"role": "user", "content": "Hello"}]}'`);
    log('');
    log('For the admin API (/api/v1/admin, docs/admin-api.md), create an admin key:');
    log(`    switchyard keys create --account ${starter.accountId} --name ops --admin`);
    log('');
  }

  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    log(`${signal}: shutting down`);
    await app.close();
    await services.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  return await new Promise<number>(() => {});
}
