import type { SignatureV4 } from '@smithy/signature-v4';
import type { Endpoint, ProviderConfig } from '../../catalog/types.ts';
import { preloadEventStreamCodec } from '../eventstream/parse-aws-eventstream.ts';
import { loadOnFirstUse } from '../load-on-first-use.ts';
import type { UpstreamRequest } from '../types.ts';

// Bedrock's credentials, per request. With an `api_key` (a Bedrock API key) the request
// carries it as a bearer token; otherwise it is signed with SigV4 (service `bedrock`, the
// provider's region) using credentials from the standard AWS chain: environment, shared
// config and credentials files (the provider's `aws_profile`), web identity, container and
// instance roles. The chain caches what it found and fetches again shortly before
// temporary credentials expire.

interface AwsSigning {
  fromNodeProviderChain: typeof import('@aws-sdk/credential-providers').fromNodeProviderChain;
  Hash: typeof import('@smithy/hash-node').Hash;
  HttpRequest: typeof import('@smithy/protocol-http').HttpRequest;
  SignatureV4: typeof import('@smithy/signature-v4').SignatureV4;
}

/**
 * The AWS signing packages (the credential chain and SigV4: ~10 MB), loaded by the first
 * request signed with SigV4, not at start: a gateway without a Bedrock provider never loads
 * them (test/e2e/serve-memory.test.ts).
 */
const loadAwsSigning = loadOnFirstUse(async (): Promise<AwsSigning> => {
  const [credentials, hash, http, sigv4] = await Promise.all([
    import('@aws-sdk/credential-providers'),
    import('@smithy/hash-node'),
    import('@smithy/protocol-http'),
    import('@smithy/signature-v4'),
  ]);
  return {
    fromNodeProviderChain: credentials.fromNodeProviderChain,
    Hash: hash.Hash,
    HttpRequest: http.HttpRequest,
    SignatureV4: sigv4.SignatureV4,
  };
});

/** One signer per provider config: a reload builds new configs, and so fresh credentials. */
const signers = new WeakMap<ProviderConfig, Promise<SignatureV4>>();

export async function signBedrockRequest(req: UpstreamRequest, endpoint: Endpoint): Promise<UpstreamRequest> {
  // The answer may be an event stream: its codec is loaded now, not when its first bytes arrive.
  await preloadEventStreamCodec();
  const provider = endpoint.provider;
  if (provider.apiKey !== undefined && provider.apiKey.length > 0) {
    return { ...req, headers: { ...req.headers, authorization: `Bearer ${provider.apiKey}` } };
  }
  const signed = await signWithProvider(provider, 'POST', req.url, req.headers, req.body);
  return { url: req.url, headers: signed, body: req.body };
}

/**
 * The headers of a request to `url` signed with the provider's SigV4 credentials (an
 * account's own key pair on a BYOK copy, else the AWS chain): the runtime's calls above, and
 * the control plane's `GET /foundation-models` that checks an account's key pair when it is
 * stored (bedrock-key-check.ts).
 */
export async function signWithProvider(
  provider: ProviderConfig,
  method: 'GET' | 'POST',
  target: string,
  headers: Record<string, string>,
  body?: string | Uint8Array,
): Promise<Record<string, string>> {
  const { HttpRequest } = await loadAwsSigning();
  const url = new URL(target);
  const request = new HttpRequest({
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { ...headers, host: url.host },
    ...(body === undefined ? {} : { body }),
  });
  const signed = await (await signerFor(provider)).sign(request);
  return signed.headers;
}

function signerFor(provider: ProviderConfig): Promise<SignatureV4> {
  let signer = signers.get(provider);
  if (signer === undefined) {
    signer = loadAwsSigning().then(
      ({ SignatureV4, Hash, fromNodeProviderChain }) =>
        new SignatureV4({
          service: 'bedrock',
          region: provider.region ?? regionOfHost(provider.baseUrl),
          // An account's own key pair (BYOK), else the AWS chain.
          credentials:
            provider.awsKeyPair !== undefined
              ? { ...provider.awsKeyPair }
              : fromNodeProviderChain(provider.awsProfile === undefined ? {} : { profile: provider.awsProfile }),
          // SHA-256 as the signer takes it (what the AWS SDK passes: Node's crypto behind smithy's Hash).
          sha256: Hash.bind(null, 'sha256'),
        }),
    );
    signer.catch(() => signers.delete(provider));
    signers.set(provider, signer);
  }
  return signer;
}

/** `https://bedrock-runtime.eu-west-1.amazonaws.com` → `eu-west-1`, for a config that gave only the URL. */
function regionOfHost(baseUrl: string): string {
  const m = /bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com/.exec(baseUrl);
  return m?.[1] ?? 'us-east-1';
}
