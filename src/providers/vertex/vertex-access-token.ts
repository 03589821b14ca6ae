import type { GoogleAuth } from 'google-auth-library';
import type { Endpoint, ProviderConfig } from '../../catalog/types.ts';
import { loadOnFirstUse } from '../load-on-first-use.ts';
import type { UpstreamRequest } from '../types.ts';

// Vertex AI's credentials, from a service account's JSON key file (`credentials_file`) or
// Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's user
// credentials, the metadata server), scope cloud-platform. A service-account key signs its
// own bearer JWT with that scope (`useJWTAccessWithScope`, as Google's own Cloud client
// libraries do: no token endpoint on the request path); other credentials get an OAuth
// access token. google-auth-library caches either and renews it before it expires, and
// adds `x-goog-user-project` when the credentials name a quota project.

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** One client per provider config: a reload builds new configs, and so fresh credentials. */
const clients = new WeakMap<ProviderConfig, Promise<GoogleAuth>>();

/**
 * google-auth-library (with gaxios and gcp-metadata: ~10 MB), loaded by the first Vertex
 * request, not at start: a gateway without a Vertex provider never loads it.
 */
const loadLibrary = loadOnFirstUse(() => import('google-auth-library'));

export async function authorizeVertexRequest(req: UpstreamRequest, endpoint: Endpoint): Promise<UpstreamRequest> {
  const client = await (await authFor(endpoint.provider)).getClient();
  const credentials = await client.getRequestHeaders(req.url);
  const authorization = credentials.get('authorization');
  if (authorization === null || authorization.length === 0) throw new Error('the Google credentials gave no authorization');
  const headers: Record<string, string> = { ...req.headers, authorization };
  const quotaProject = credentials.get('x-goog-user-project');
  if (quotaProject !== null) headers['x-goog-user-project'] = quotaProject;
  return { ...req, headers };
}

function authFor(provider: ProviderConfig): Promise<GoogleAuth> {
  let auth = clients.get(provider);
  if (auth === undefined) {
    auth = loadLibrary().then(({ GoogleAuth }) => {
      // An account's own service account (BYOK), else the operator's key file, else ADC.
      const client = new GoogleAuth(
        provider.serviceAccount !== undefined
          ? { scopes: SCOPE, credentials: provider.serviceAccount }
          : provider.credentialsFile === undefined
            ? { scopes: SCOPE }
            : { scopes: SCOPE, keyFile: provider.credentialsFile },
      );
      // What google-gax sets for every Cloud client library: service accounts sign their own token.
      client.useJWTAccessWithScope = true;
      return client;
    });
    auth.catch(() => clients.delete(provider));
    clients.set(provider, auth);
  }
  return auth;
}
