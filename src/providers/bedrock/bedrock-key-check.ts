import type { ProviderConfig } from '../../catalog/types.ts';
import type { AwsKeyPair } from '../byok-credential.ts';
import { fetchCheck, type CheckFailure } from '../http/fetch-check.ts';
import { signWithProvider } from './sign-bedrock-request.ts';

// An account's own Bedrock key checked when it is stored (docs/byok.md): one
// `ListFoundationModels` (`GET /foundation-models`) on Bedrock's control plane, the runtime
// host's sibling (`bedrock-runtime.<region>.amazonaws.com` → `bedrock.<region>.amazonaws.com`;
// any other base URL, an operator's proxy or an emulator, serves both), SigV4-signed with the
// account's key pair (service `bedrock`, the provider's region) or carrying its Bedrock API
// key. AWS names why it refuses a signature in `x-amzn-errortype`; that name becomes the
// check's reason. An `AccessDeniedException` means the signature and key were good but the
// key may not list models: it authenticated, so it is taken (invoking is another permission).

/** Where `ListFoundationModels` is for this provider. */
export function foundationModelsUrl(provider: Pick<ProviderConfig, 'baseUrl'>): string {
  const url = new URL(provider.baseUrl);
  url.hostname = url.hostname.replace(/^bedrock-runtime(-fips)?\./, 'bedrock$1.');
  url.pathname = '/foundation-models';
  url.search = '';
  return url.toString();
}

/** Null when the key authenticated; else why not. */
export async function checkBedrockKey(
  provider: ProviderConfig,
  key: { apiKey?: string; awsKeyPair?: AwsKeyPair },
  timeoutMs: number,
): Promise<CheckFailure | null> {
  const url = foundationModelsUrl(provider);
  let headers: Record<string, string>;
  if (key.awsKeyPair !== undefined) {
    // A copy of the provider carrying the pair: its signer signs with the pair, never the AWS chain.
    const { credentials: _pool, apiKey: _key, awsProfile: _profile, ...rest } = provider;
    headers = await signWithProvider({ ...rest, awsKeyPair: key.awsKeyPair }, 'GET', url, { accept: 'application/json' });
  } else if (key.apiKey !== undefined) {
    headers = { accept: 'application/json', authorization: `Bearer ${key.apiKey}` };
  } else {
    return null;
  }
  return fetchCheck(provider.id, url, { headers }, timeoutMs, (status, res) => {
    const type = (res.headers.get('x-amzn-errortype') ?? '').split(':')[0]!;
    switch (type) {
      case 'AccessDeniedException':
        return null;
      case 'InvalidSignatureException':
      case 'SignatureDoesNotMatch':
        return {
          reason: 'bad_signature',
          message: `provider "${provider.id}" refused the signature (${type}: the secret access key does not belong to this access key id)`,
        };
      case 'UnrecognizedClientException':
      case 'InvalidClientTokenId':
        return { reason: 'unknown_key', message: `provider "${provider.id}" does not know the access key id (${type})` };
      case 'ExpiredTokenException':
      case 'ExpiredToken':
        return {
          reason: 'expired',
          message: `provider "${provider.id}" says the credentials have expired (${type}: a session token's time is over)`,
        };
      default:
        if (status === 401 || status === 403)
          return {
            reason: 'refused',
            message: `provider "${provider.id}" refused the key (HTTP ${status}${type === '' ? '' : ` ${type}`} on ListFoundationModels)`,
          };
        return {
          reason: 'upstream_error',
          message: `provider "${provider.id}" answered the check with HTTP ${status}${type === '' ? '' : ` ${type}`}`,
        };
    }
  });
}
