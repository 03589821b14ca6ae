import type { ProviderConfig } from '../../catalog/types.ts';
import { checkBedrockKey } from '../bedrock/bedrock-key-check.ts';
import { openAIProfileFor } from '../openai/openai-profiles.ts';
import { checkVertexKey } from '../vertex/vertex-key-check.ts';
import { CredentialShapeError, readProviderCredential, type ProviderCredential } from '../byok-credential.ts';
import { fetchCheck, type CheckFailure, type CheckReason } from './fetch-check.ts';

// Checks an account's own key (docs/byok.md) when it is stored: its shape for the provider's
// kind, then one authenticated call bounded in time — OpenAI-compatible `GET {base}/models`,
// Anthropic `GET /v1/models`, Gemini `GET {base}/models`, each carrying the key; Bedrock's
// `ListFoundationModels` SigV4-signed with the account's key pair (or carrying its Bedrock API
// key: bedrock-key-check.ts); Vertex's OAuth JWT-bearer exchange at the service account's
// token endpoint (vertex-key-check.ts). Azure's deployments have no account-wide read at their
// base URL: shape only. The failure is named (`reason`); the key never is.

export type { CheckReason } from './fetch-check.ts';
export type KeyCheck = { ok: true; credential: ProviderCredential } | { ok: false; reason: string; cause: CheckReason };

/** The call's bound (the provider's own `timeout_ms` when shorter). */
export const CHECK_TIMEOUT_MS = 10_000;

export async function checkByokKey(
  provider: ProviderConfig,
  secret: string,
  timeoutMs = Math.min(CHECK_TIMEOUT_MS, provider.timeoutMs),
): Promise<KeyCheck> {
  let credential: ProviderCredential;
  try {
    credential = readProviderCredential(provider, secret);
  } catch (err) {
    if (err instanceof CredentialShapeError)
      return { ok: false, cause: 'shape', reason: `not a key provider "${provider.id}" (${provider.kind}) takes: ${err.message}` };
    throw err;
  }
  const failure = await callFor(provider, credential, timeoutMs);
  return failure === null ? { ok: true, credential } : { ok: false, cause: failure.reason, reason: failure.message };
}

function callFor(provider: ProviderConfig, credential: ProviderCredential, timeoutMs: number): Promise<CheckFailure | null> {
  if (provider.kind === 'bedrock') return checkBedrockKey(provider, credential, timeoutMs);
  if (provider.kind === 'vertex')
    return credential.serviceAccount === undefined ? Promise.resolve(null) : checkVertexKey(provider, credential.serviceAccount, timeoutMs);
  const probe = probeFor(provider, credential);
  if (probe === null) return Promise.resolve(null);
  return fetchCheck(provider.id, probe.url, { headers: probe.headers }, timeoutMs, (status) =>
    status === 401 || status === 403
      ? { reason: 'refused', message: `provider "${provider.id}" refused the key (HTTP ${status} on its model list)` }
      : { reason: 'upstream_error', message: `provider "${provider.id}" answered the check with HTTP ${status}` },
  );
}

interface Probe {
  url: string;
  headers: Record<string, string>;
}

function probeFor(provider: ProviderConfig, credential: ProviderCredential): Probe | null {
  const key = credential.apiKey;
  if (key === undefined) return null;
  const base = provider.baseUrl.replace(/\/+$/, '');
  const extra = provider.headers ?? {};
  switch (provider.kind) {
    case 'openai': {
      const profile = openAIProfileFor(provider);
      // Azure's deployments have no account-wide model list at this base: shape only.
      if (profile.route !== 'chat') return null;
      return {
        url: `${base}/models`,
        headers: { ...extra, ...(profile.auth === 'api-key' ? { 'api-key': key } : { authorization: `Bearer ${key}` }) },
      };
    }
    case 'anthropic':
      return {
        url: `${base.endsWith('/v1') ? base : `${base}/v1`}/models?limit=1`,
        headers: { ...extra, 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      };
    case 'google':
      return { url: `${base}/models?pageSize=1`, headers: { ...extra, 'x-goog-api-key': key } };
    default:
      return null;
  }
}
