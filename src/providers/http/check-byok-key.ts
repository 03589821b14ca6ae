import type { ProviderConfig } from '../../catalog/types.ts';
import { openAIProfileFor } from '../openai/openai-profiles.ts';
import { CredentialShapeError, readProviderCredential, type ProviderCredential } from '../byok-credential.ts';

// Checks an account's own key (docs/byok.md) when it is stored: its shape for the provider's
// kind, then, where the provider has a cheap authenticated read, one call bounded in time —
// OpenAI-compatible `GET {base}/models`, Anthropic `GET /v1/models`, Gemini `GET {base}/models`.
// Bedrock's key pair and Vertex's service account are checked by shape (their model lists
// live on other hosts than the provider's runtime endpoint, docs/byok.md). The failure is
// named; the key never is.

export type KeyCheck = { ok: true; credential: ProviderCredential } | { ok: false; reason: string };

/** The call's bound. */
export const CHECK_TIMEOUT_MS = 10_000;

export async function checkByokKey(provider: ProviderConfig, secret: string, timeoutMs = CHECK_TIMEOUT_MS): Promise<KeyCheck> {
  let credential: ProviderCredential;
  try {
    credential = readProviderCredential(provider, secret);
  } catch (err) {
    if (err instanceof CredentialShapeError) return { ok: false, reason: `not a key provider "${provider.id}" (${provider.kind}) takes: ${err.message}` };
    throw err;
  }
  const probe = probeFor(provider, credential);
  if (probe === null) return { ok: true, credential };
  let status: number;
  try {
    const res = await fetch(probe.url, { method: 'GET', headers: probe.headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    status = res.status;
    await res.body?.cancel();
  } catch (err) {
    const timedOut = (err as Error)?.name === 'TimeoutError';
    return { ok: false, reason: timedOut ? `provider "${provider.id}" did not answer the check within ${timeoutMs / 1000} s` : `provider "${provider.id}" could not be reached for the check` };
  }
  if (status >= 200 && status < 300) return { ok: true, credential };
  if (status === 401 || status === 403) return { ok: false, reason: `provider "${provider.id}" refused the key (HTTP ${status} on its model list)` };
  return { ok: false, reason: `provider "${provider.id}" answered the check with HTTP ${status}` };
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
      return { url: `${base}/models`, headers: { ...extra, ...(profile.auth === 'api-key' ? { 'api-key': key } : { authorization: `Bearer ${key}` }) } };
    }
    case 'anthropic':
      return { url: `${base.endsWith('/v1') ? base : `${base}/v1`}/models?limit=1`, headers: { ...extra, 'x-api-key': key, 'anthropic-version': '2023-06-01' } };
    case 'google':
      return { url: `${base}/models?pageSize=1`, headers: { ...extra, 'x-goog-api-key': key } };
    default:
      return null;
  }
}
