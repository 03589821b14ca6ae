import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { seededRandom } from '../../src/canonical/seeded-random.test-util.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Three OpenAI-format emulators, each a provider of its own, serving the same models at
// different prices and with different data policies, quantizations and parameters. Each
// upstream model id names its endpoint, so a test reads who served from what it received.

export const PROVIDERS = ['cheap', 'mid', 'dear'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

function yaml(urls: Record<ProviderName, string>): string {
  return `sim: false
providers:
${PROVIDERS.map(
  (p) => `  - id: ${p}
    kind: openai
    base_url: ${urls[p]}`,
).join('\n')}
models:
  - id: acme/multi
    name: Multi
    context_length: 32000
    capabilities: [text, tool_calling, json_mode, streaming]
    endpoints:
      - provider: cheap            # $1 + $1 per million: no tools, no response_format
        model: multi-cheap
        pricing: { prompt: "0.000001", completion: "0.000001" }
        quantization: fp8
        supported_parameters: [temperature, max_tokens, stop]
      - provider: mid              # $2 + $2
        model: multi-mid
        pricing: { prompt: "0.000002", completion: "0.000002" }
        quantization: fp16
        data_collection: deny
        zdr: true
      - provider: dear             # $4 + $4
        model: multi-dear
        pricing: { prompt: "0.000004", completion: "0.000004", request: "0.001" }
        quantization: fp16
        data_collection: deny
  - id: acme/backup
    name: Backup
    context_length: 32000
    endpoints:
      - provider: dear
        model: backup-dear
        pricing: { prompt: "0.000003", completion: "0.000006" }
  - id: acme/other
    name: Other
    context_length: 32000
    endpoints:
      - provider: mid
        model: other-mid
        pricing: { prompt: "0.000005", completion: "0.000005" }
  - id: acme/small
    name: Small
    context_length: 2000
    endpoints:
      - provider: cheap
        model: small-cheap
        pricing: { prompt: "0.0000001", completion: "0.0000001" }
        context_length: 500
      - provider: mid
        model: small-mid
        pricing: { prompt: "0.000001", completion: "0.000001" }
        context_length: 2000
`;
}

export interface RoutingRig {
  gw: TestGateway;
  emus: Record<ProviderName, OpenAIChatEmulator>;
  auth: Record<string, string>;
  chat(body: Record<string, unknown>): Promise<{ status: number; headers: Headers; json: any; text: string }>;
  /** Upstream model ids, in the order the emulators received them. */
  received(): string[];
  reset(): void;
  close(): Promise<void>;
}

/** The rig's gateway draws from a seeded source, so every run routes alike. */
export async function startRoutingRig(timeouts: { attemptMs?: number; requestMs?: number } = {}, seed = 20_26): Promise<RoutingRig> {
  const list = await Promise.all(PROVIDERS.map(() => startOpenAIChatEmulator()));
  const emus = { cheap: list[0]!, mid: list[1]!, dear: list[2]! };
  const gw = await startTestGateway({
    yaml: yaml({ cheap: emus.cheap.baseUrl, mid: emus.mid.baseUrl, dear: emus.dear.baseUrl }),
    random: seededRandom(seed),
    tweak: (config) => {
      if (timeouts.attemptMs !== undefined) config.timeouts.attemptMs = timeouts.attemptMs;
      if (timeouts.requestMs !== undefined) config.timeouts.requestMs = timeouts.requestMs;
    },
  });
  const auth = { authorization: `Bearer ${gw.key}` };
  return {
    gw,
    emus,
    auth,
    chat: (body) => postJson(`${gw.baseUrl}/chat/completions`, body, auth),
    received() {
      return list
        .flatMap((e) => e.requests)
        .sort((a, b) => a.seq - b.seq)
        .map((r) => r.body.model as string);
    },
    reset() {
      for (const e of list) e.reset();
    },
    async close() {
      await gw.close();
      await Promise.all(list.map((e) => e.close()));
    },
  };
}

export const user = (content: string) => [{ role: 'user', content }];
