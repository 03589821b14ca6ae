// A Google service account for tests: a locally generated RSA key in a service-account JSON
// key file, as the Cloud console issues them. Nothing reaches Google: the key signs its own
// bearer JWTs (see src/providers/vertex/vertex-access-token.ts), which the emulators verify
// with the public half.

import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestServiceAccount {
  /** The key file's path. */
  keyFile: string;
  clientEmail: string;
  /** PEM (SPKI) of the public key: what the emulators verify tokens with. */
  publicKey: string;
}

export function writeTestServiceAccount(dir: string, name = 'switchyard-test'): TestServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const clientEmail = `${name}@switchyard-test-project.iam.gserviceaccount.com`;
  const keyFile = join(dir, `${name}-service-account.json`);
  writeFileSync(
    keyFile,
    JSON.stringify({
      type: 'service_account',
      project_id: 'switchyard-test-project',
      private_key_id: `${name}-key-1`,
      private_key: privateKey,
      client_email: clientEmail,
      client_id: '100000000000000000001',
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: 'https://oauth2.googleapis.com/token',
      universe_domain: 'googleapis.com',
    }),
  );
  return { keyFile, clientEmail, publicKey };
}
