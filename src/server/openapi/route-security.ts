import type { RouteAccess } from '../route-access.ts';

// Each operation's `security` in the OpenAPI document, derived from the route's declared
// access (route-access.ts), so the document says what the server enforces: a public route
// (`none`) needs nothing, a model call names the headers its dialect reads the key from, the
// management and admin APIs name their key or the dashboard session.

export const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'An API key of an account (sk-sy-v1-...), as `Authorization: Bearer <key>`.' },
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'An API key as `x-api-key` (the Anthropic dialect and the key-status routes).',
  },
  googApiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'x-goog-api-key',
    description: 'An API key as `x-goog-api-key` (the Gemini dialect).',
  },
  googApiKeyQuery: { type: 'apiKey', in: 'query', name: 'key', description: 'An API key as `?key=` (the Gemini dialect).' },
  managementKey: { type: 'http', scheme: 'bearer', description: 'A management key of the account (`Authorization: Bearer <key>`).' },
  adminKey: {
    type: 'http',
    scheme: 'bearer',
    description: "An admin key, the operator's (`Authorization: Bearer <key>`; switchyard keys create --admin).",
  },
  dashboardSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'sy_session',
    description: 'A dashboard session (signed in at /dashboard; `__Host-sy_session` over HTTPS); it acts as the key it was made from.',
  },
  metricsToken: { type: 'http', scheme: 'bearer', description: '`metrics.token`, when one is configured.' },
} as const;

export type SecurityScheme = keyof typeof SECURITY_SCHEMES;
export type SecurityRequirement = Partial<Record<SecurityScheme, []>>;

const one = (...names: SecurityScheme[]): SecurityRequirement[] => names.map((n) => ({ [n]: [] }));

/** The API key's alternatives a route reads (its `keyHeaders`, Bearer by default). */
function apiKeyAlternatives(declared: RouteAccess): SecurityRequirement[] {
  switch (declared.keyHeaders ?? 'bearer') {
    case 'bearer':
      return one('apiKey');
    case 'bearer-or-x-api-key':
      return one('apiKey', 'apiKeyHeader');
    case 'google':
      return one('googApiKeyHeader', 'googApiKeyQuery', 'apiKey');
  }
}

/** The OpenAPI `security` of a route with this declared access (alternatives: any one suffices; `[]`: none). */
export function securityOf(declared: RouteAccess | undefined): SecurityRequirement[] {
  switch (declared?.auth) {
    case undefined:
    case 'none':
      return [];
    case 'model-key':
      return apiKeyAlternatives(declared);
    // Any key: an API key as the route reads it, a management or admin key, or a session.
    case 'key':
      return [...apiKeyAlternatives(declared), ...one('managementKey', 'adminKey', 'dashboardSession')];
    case 'management':
      return one('managementKey', 'dashboardSession');
    case 'admin':
      return one('adminKey', 'dashboardSession');
    case 'session':
      return one('dashboardSession');
    // Optional: the empty requirement says "or nothing", when no token is configured.
    case 'metrics-token':
      return declared.checkToken === undefined ? [] : [...one('metricsToken')];
  }
}

/** A stable, unique operationId from the method and the path: GET /api/v1/models/{model_id} → getApiV1ModelsByModelId. */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((s) => s.length > 0)
    .flatMap((seg) => {
      const param = /^[:{](\w+)}?$/.exec(seg);
      const parts = (param === null ? seg : param[1]!).split(/[^A-Za-z0-9]+/).filter((p) => p.length > 0);
      return param === null ? parts : ['by', ...parts];
    });
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}
