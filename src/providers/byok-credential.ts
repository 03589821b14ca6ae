import { createPrivateKey } from 'node:crypto';
import type { AwsKeyPair, ByokMode, ProviderConfig, ServiceAccountKey } from '../catalog/types.ts';

export type { AwsKeyPair, ServiceAccountKey } from '../catalog/types.ts';

// An account's own key for a provider (docs/byok.md), as each kind takes it: an API key
// (OpenAI-compatible, Anthropic, Google AI Studio; a Bedrock API key), an AWS access key
// pair (Bedrock, SigV4), or a Google service account's JSON key (Vertex AI). Read here from
// the text the account gave (the pair and the service account as JSON), so that what is
// stored is one string and what is used is the provider's shape.

/** The key as the provider's config carries it: the BYOK copy of the provider (routing/byok-plan.ts). */
export interface ProviderCredential {
  apiKey?: string;
  awsKeyPair?: AwsKeyPair;
  serviceAccount?: ServiceAccountKey;
}

/** One of the account's keys, ready to use (auth/byok-keys.ts decrypts it; routing/byok-plan.ts uses it). */
export interface AccountByokKey {
  readonly provider: string;
  readonly mode: ByokMode;
  readonly credential: ProviderCredential;
}

/** What the pipeline knows of an account's keys for one request. */
export interface AccountByok {
  readonly accountId: string;
  readonly keys: ReadonlyMap<string, AccountByokKey>;
  /** The fee in basis points of the price (`byok.fee_percent` × 100). */
  readonly feeBasisPoints: number;
  /**
   * Providers in mode `only` whose stored key could not be opened (sealed under another master
   * key): never the operator's credentials for them either, so their attempts are dropped.
   */
  readonly unusable: ReadonlySet<string>;
  /** Every secret of the keys, for the scrubber of upstream errors. */
  readonly secrets: readonly string[];
}

export class CredentialShapeError extends Error {}

/** What `secret` is for a provider of this kind; throws CredentialShapeError naming what is wrong (never the value). */
export function readProviderCredential(provider: Pick<ProviderConfig, 'kind' | 'id'>, secret: string): ProviderCredential {
  const text = secret.trim();
  if (text === '') throw new CredentialShapeError('the key is empty');
  if (provider.kind === 'bedrock') {
    if (!text.startsWith('{')) return { apiKey: text };
    const o = parseObject(text, 'an AWS access key pair');
    const accessKeyId = o.access_key_id ?? o.accessKeyId;
    const secretAccessKey = o.secret_access_key ?? o.secretAccessKey;
    const sessionToken = o.session_token ?? o.sessionToken;
    if (typeof accessKeyId !== 'string' || !/^[A-Z0-9]{16,128}$/.test(accessKeyId))
      throw new CredentialShapeError('access_key_id is missing or not an AWS access key id');
    if (typeof secretAccessKey !== 'string' || secretAccessKey.length < 16)
      throw new CredentialShapeError('secret_access_key is missing or too short');
    if (sessionToken !== undefined && typeof sessionToken !== 'string') throw new CredentialShapeError('session_token must be a string');
    return { awsKeyPair: { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) } };
  }
  if (provider.kind === 'vertex') {
    const o = parseObject(text, "a service account's JSON key");
    if (o.type !== 'service_account') throw new CredentialShapeError('"type" is not "service_account"');
    if (typeof o.client_email !== 'string' || !o.client_email.includes('@')) throw new CredentialShapeError('"client_email" is missing');
    if (typeof o.private_key !== 'string') throw new CredentialShapeError('"private_key" is missing');
    try {
      createPrivateKey(o.private_key);
    } catch {
      throw new CredentialShapeError('"private_key" is not a PEM private key');
    }
    return { serviceAccount: o as ServiceAccountKey };
  }
  if (/\s/.test(text)) throw new CredentialShapeError('the key holds whitespace');
  return { apiKey: text };
}

/** The last four characters shown for a key: of the API key, the access key id, or the service account's key id. */
export function lastFourOf(credential: ProviderCredential): string {
  const shown =
    credential.apiKey ??
    credential.awsKeyPair?.accessKeyId ??
    credential.serviceAccount?.private_key_id ??
    credential.serviceAccount?.client_email ??
    '';
  return shown.slice(-4);
}

/** Every string of the credential a leaked upstream error could repeat (the secret scrubber's list). */
export function secretsOf(credential: ProviderCredential): string[] {
  const out: string[] = [];
  if (credential.apiKey !== undefined) out.push(credential.apiKey);
  if (credential.awsKeyPair !== undefined) {
    out.push(credential.awsKeyPair.secretAccessKey);
    if (credential.awsKeyPair.sessionToken !== undefined) out.push(credential.awsKeyPair.sessionToken);
  }
  if (credential.serviceAccount !== undefined) out.push(credential.serviceAccount.private_key);
  return out;
}

function parseObject(text: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new CredentialShapeError(`expected ${what} as a JSON object; it does not parse`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new CredentialShapeError(`expected ${what} as a JSON object`);
  return v as Record<string, unknown>;
}
