import type { TestGateway } from '../support/test-gateway.ts';

// What the Anthropic SDK contract suites share: the SDK under test, a client that records
// what it sends, a tool, and the gateway config with an Anthropic-format upstream.

/** Any release's client class; the two majors' types differ, the calls used here do not. */
export type AnthropicClass = new (opts: Record<string, unknown>) => any;

export interface SdkUnderTest {
  name: string;
  Anthropic: AnthropicClass;
  /** What the client sends: the auth header it uses and its `anthropic-version`. */
  expect: { authHeader: 'authorization' | 'x-api-key'; version: string };
}

export interface SeenRequest {
  url: string;
  headers: Headers;
}

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

export function clientFor(sdk: SdkUnderTest, gw: TestGateway, seen: SeenRequest[], key = gw.key): any {
  return new sdk.Anthropic({
    baseURL: gw.origin,
    apiKey: key,
    maxRetries: 0,
    fetch: (url: string | URL | Request, init?: RequestInit) => {
      seen.push({ url: String(url), headers: new Headers(init?.headers) });
      return fetch(url, init);
    },
  });
}

/** `acme/claude-mock` on the Anthropic-format emulator, through the native `anthropic` adapter. */
export function anthropicUpstreamConfig(baseUrl: string): string {
  return `sim: false
providers:
  - id: claude-up
    kind: anthropic
    base_url: ${baseUrl}
    api_key: sk-ant-upstream
models:
  - id: acme/claude-mock
    name: Claude Mock
    context_length: 200000
    aliases: [claude-mock-20250101]
    capabilities: [text, tool_calling, streaming, reasoning]
    endpoints:
      - provider: claude-up
        model: claude-mock-1
        max_output_tokens: 8192
        pricing: { prompt: "0.000003", completion: "0.000015" }
`;
}

export function textOf(message: any): string {
  return message.content
    .filter((b: any) => b.type === 'text')
    .map((b: any) => b.text)
    .join('');
}
