import { ModelAccess } from '../catalog/model-access.ts';
import type { AuthContext } from './authenticate.ts';

// A key's effective allowlist: the intersection of its account's list and its own (a
// member's list joins here when keys belong to members). Compiled once per auth context:
// the authenticator caches that object while the key is warm and replaces it when the key
// or the account changes, so a change is in force as soon as the cache drops it.

const compiled = new WeakMap<AuthContext, ModelAccess | null>();

/** Null when neither the account nor the key restricts anything (one property check each). */
export function keyAccess(auth: AuthContext): ModelAccess | null {
  const account = auth.account.allowlist;
  const own = auth.key.allowlist;
  if (account === null && own === null) return null;
  let access = compiled.get(auth);
  if (access === undefined) {
    access = ModelAccess.compile([account, own]);
    compiled.set(auth, access);
  }
  return access;
}
