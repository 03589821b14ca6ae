import { ModelAccess, type Allowlist } from '../catalog/model-access.ts';
import type { AuthContext } from './authenticate.ts';

// A key's effective allowlist: the intersection of its account's list, its member's
// `allowed_models` (a key that belongs to a member, or a member's own sign-in) and its own.
// Compiled once per auth context: the authenticator caches that object while the key is warm
// and replaces it when the key, the member or the account changes, so a change is in force
// as soon as the cache drops it.

const compiled = new WeakMap<AuthContext, ModelAccess | null>();

/** Null when neither the account, the member nor the key restricts anything (a few property checks). */
export function keyAccess(auth: AuthContext): ModelAccess | null {
  const account = auth.account.allowlist;
  const own = auth.key.allowlist;
  const memberModels = auth.member?.allowedModels ?? null;
  if (account === null && own === null && memberModels === null) return null;
  let access = compiled.get(auth);
  if (access === undefined) {
    const member: Allowlist | null = memberModels === null ? null : { models: memberModels };
    access = ModelAccess.compile([account, member, own]);
    compiled.set(auth, access);
  }
  return access;
}
