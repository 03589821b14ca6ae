import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Endpoint, ProviderConfig } from '../../catalog/types.ts';
import type { UpstreamRequest } from '../types.ts';

// Bedrock's credentials, per request. With an `api_key` (a Bedrock API key) the request
// carries it as a bearer token; otherwise it is signed with SigV4 (service `bedrock`, the
// provider's region) using credentials from the standard AWS chain: environment, shared
// config and credentials files (the provider's `aws_profile`), web identity, container and
// instance roles. The chain caches what it found and fetches again shortly before
// temporary credentials expire.

/** SHA-256 as the signer takes it (what the AWS SDK passes: Node's crypto behind smithy's Hash). */
export const Sha256 = Hash.bind(null, 'sha256');

/** One signer per provider config: a reload builds new configs, and so fresh credentials. */
const signers = new WeakMap<ProviderConfig, SignatureV4>();

export async function signBedrockRequest(req: UpstreamRequest, endpoint: Endpoint): Promise<UpstreamRequest> {
  const provider = endpoint.provider;
  if (provider.apiKey !== undefined && provider.apiKey.length > 0) {
    return { ...req, headers: { ...req.headers, authorization: `Bearer ${provider.apiKey}` } };
  }
  const url = new URL(req.url);
  const request = new HttpRequest({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { ...req.headers, host: url.host },
    body: req.body,
  });
  const signed = await signerFor(provider).sign(request);
  return { url: req.url, headers: signed.headers, body: req.body };
}

function signerFor(provider: ProviderConfig): SignatureV4 {
  let signer = signers.get(provider);
  if (signer === undefined) {
    signer = new SignatureV4({
      service: 'bedrock',
      region: provider.region ?? regionOfHost(provider.baseUrl),
      credentials: fromNodeProviderChain(provider.awsProfile === undefined ? {} : { profile: provider.awsProfile }),
      sha256: Sha256,
    });
    signers.set(provider, signer);
  }
  return signer;
}

/** `https://bedrock-runtime.eu-west-1.amazonaws.com` → `eu-west-1`, for a config that gave only the URL. */
function regionOfHost(baseUrl: string): string {
  const m = /bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com/.exec(baseUrl);
  return m?.[1] ?? 'us-east-1';
}
