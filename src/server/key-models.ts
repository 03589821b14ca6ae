import type { FastifyRequest } from 'fastify';
import { keyAccess } from '../auth/key-access.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ModelAccess } from '../catalog/model-access.ts';
import type { ModelInfo } from '../catalog/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { KeyReader } from './route-access.ts';
import type { Authenticator, AuthContext } from '../auth/authenticate.ts';

/** What key-models.ts uses of the services (handed out by build-app.ts). */
export interface KeyModelsDeps {
  auth: Authenticator;
}

// The catalog as one key sees it: a model outside its allowlist (catalog/model-access.ts)
// is absent from the lists and unknown by name, exactly as a model the catalog lacks.

/** The model a name resolves to, when the key may use it (no key: any). */
export function modelForKey(catalog: Catalog, name: string, access: ModelAccess | null): ModelInfo | undefined {
  const model = catalog.resolve(name)?.model;
  return model === undefined || (access !== null && !access.allowsModel(model)) ? undefined : model;
}

/** The catalog's models the key may use, in catalog order. */
export function modelsForKey(catalog: Catalog, access: ModelAccess | null): readonly ModelInfo[] {
  return access === null ? catalog.models : catalog.models.filter((m) => access.allowsModel(m));
}

/** The planner's 400 for an unknown model, word for word (plan-attempts.ts). */
export function unknownModel(name: string): GatewayError {
  return new GatewayError('model_not_found', `Model "${name}" is not a valid model ID or is not available.`, { param: 'model' });
}

/**
 * The allowlist of the key a public route (the model lists) was sent, if any: a valid key
 * narrows the list to what it may use; a missing or wrong one changes nothing (the list is
 * public, and a wrong key does not turn it into a 401). `auth`: the route authenticated already.
 */
export async function presentedAccess(
  deps: KeyModelsDeps,
  request: FastifyRequest,
  readKey: KeyReader,
  auth: AuthContext | null,
): Promise<ModelAccess | null> {
  if (auth !== null) return keyAccess(auth);
  const raw = readKey(request.headers, request.url);
  if (raw === undefined || raw === '') return null;
  try {
    return keyAccess(await deps.auth.authenticate(raw));
  } catch {
    return null;
  }
}
