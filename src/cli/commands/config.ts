import type { Command } from 'commander';
import { formatAttos, priceToAttos } from '../../money/money.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { toEndpointRecord, toModelRecord } from '../../catalog/encode-model-record.ts';
import { examples, withCommonOptions, type CommonOptions } from '../common-options.ts';
import { describeProviders } from '../describe-providers.ts';
import { gatewayCatalog } from '../gateway-catalog.ts';
import { masterKeyFromRef } from '../../server/build-byok.ts';
import { loadCliConfig } from '../load-cli-config.ts';
import { emit, renderTable } from '../output.ts';

export function configCommand(program: Command): void {
  const config = examples(program.command('config').description('check the configuration'), [
    'switchyard config check --config switchyard.yaml',
  ]);

  examples(
    withCommonOptions(
      config.command('check').description('validate the config and print the catalog it gives, without starting (no database, no port)'),
    ),
    ['switchyard config check --config switchyard.yaml', 'OPENAI_API_KEY=sk-... switchyard config check --json'],
  ).action((o: CommonOptions) => {
    const cfg = loadCliConfig(o);
    const { catalog, warnings } = gatewayCatalog(cfg);
    // The BYOK master key is read as the gateway would at start: a reference that does not resolve is named (never a value).
    masterKeyFromRef(cfg.byok.masterKey, process.env);
    const providers = describeProviders(cfg, catalog, process.env);
    // The API's records (GET /v1/models, and each endpoint as GET /v1/models/{id}/endpoints has it),
    // with what only the operator sees: the aliases and each endpoint's upstream model.
    const models = catalog.models.map((m) => ({
      ...toModelRecord(m),
      aliases: m.aliases,
      endpoints: m.endpoints.map((e) => ({ ...toEndpointRecord(m, e), upstream_model: e.upstreamModel })),
    }));
    emit(
      o.json,
      {
        ok: true,
        config_file: cfg.source?.file ?? null,
        database: cfg.database.path,
        providers,
        models,
        warnings,
      },
      () =>
        [
          `config ok: ${cfg.source?.file ?? 'no config file (defaults and environment only)'}`,
          `database: ${cfg.database.path} (not opened)`,
          '',
          'Providers:',
          indent(
            renderTable(
              ['PROVIDER', 'KIND', 'STATUS', 'WHY'],
              providers.map((p) => [p.id, p.kind, p.enabled ? 'enabled' : 'disabled', p.why]),
            ),
          ),
          '',
          `Models (${models.length}; prices in USD per million tokens):`,
          models.length === 0
            ? '  none: no enabled provider serves a model'
            : indent(
                renderTable(
                  ['MODEL', 'ENDPOINT', 'CONTEXT', 'PROMPT', 'COMPLETION'],
                  catalog.models.flatMap((m) =>
                    m.endpoints.map((e, i) => {
                      const price = perMillion(e);
                      return [i === 0 ? m.id : '', e.id, i === 0 ? String(m.contextLength) : '', price.prompt, price.completion];
                    }),
                  ),
                  [2, 3, 4],
                ),
              ),
          ...(warnings.length === 0 ? [] : ['', 'Warnings:', ...warnings.map((w) => `  ${w}`)]),
        ].join('\n'),
    );
  });
}

function perMillion(e: Endpoint): { prompt: string; completion: string } {
  const m = (price: string): string => formatAttos(priceToAttos(price) * 1_000_000n);
  return { prompt: m(e.pricing.prompt), completion: m(e.pricing.completion) };
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
