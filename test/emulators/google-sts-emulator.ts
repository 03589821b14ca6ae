// Google's Security Token Service on loopback (`POST /v1/token`, RFC 8693 token exchange):
// what a workload-identity (`external_account`) credential file's `token_url` points at.
// It takes one subject token and hands out one access token, counting the exchanges.

import { createServer, type Server } from 'node:http';
import { closeServer, listenOnLoopback, readBody, sendJson } from './emulator-http.ts';

export interface StsExchange {
  grantType: string | null;
  subjectToken: string | null;
  scope: string | null;
}

export interface GoogleStsEmulator {
  /** `http://127.0.0.1:<port>/v1/token` */
  readonly tokenUrl: string;
  readonly exchanges: StsExchange[];
  close(): Promise<void>;
}

export async function startGoogleStsEmulator(subjectToken: string, accessToken: string): Promise<GoogleStsEmulator> {
  const exchanges: StsExchange[] = [];
  const server: Server = createServer((req, res) => {
    readBody(req, (text) => {
      const form = new URLSearchParams(text);
      const exchange = { grantType: form.get('grant_type'), subjectToken: form.get('subject_token'), scope: form.get('scope') };
      exchanges.push(exchange);
      if (
        req.url !== '/v1/token' ||
        exchange.grantType !== 'urn:ietf:params:oauth:grant-type:token-exchange' ||
        exchange.subjectToken !== subjectToken
      ) {
        sendJson(res, 400, { error: 'invalid_grant', error_description: 'The subject token is invalid.' });
        return;
      }
      sendJson(res, 200, {
        access_token: accessToken,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        token_type: 'Bearer',
        expires_in: 3600,
      });
    });
  });
  const origin = await listenOnLoopback(server);
  return { tokenUrl: `${origin}/v1/token`, exchanges, close: () => closeServer(server) };
}
