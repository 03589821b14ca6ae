import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

// A small OpenID Connect provider on loopback whose ID tokens the test chooses (jose): its
// discovery document, JWKS, an authorization endpoint that signs the browser in at once, and
// a token endpoint that checks the client's secret and the PKCE verifier, then answers an
// ID token that is good, forged (signed by another key under the provider's key id), for
// another audience, expired, with another sign-in's nonce, or from another issuer — the tokens a real provider never makes on request.

export type TokenKind = 'good' | 'forged' | 'wrong-audience' | 'expired' | 'wrong-nonce' | 'wrong-issuer';

export interface JoseTestProvider {
  issuer: string;
  /** What the next token answer holds. */
  next: { kind: TokenKind; claims: Record<string, unknown> };
  close(): Promise<void>;
}

interface Pending {
  clientId: string;
  nonce: string;
  challenge: string;
  redirectUri: string;
}

export async function startJoseProvider(client: { clientId: string; clientSecret: string }): Promise<JoseTestProvider> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const other = await generateKeyPair('RS256');
  const kid = 'jose-op-key';
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const codes = new Map<string, Pending>();
  const op: JoseTestProvider = { issuer: '', next: { kind: 'good', claims: {} }, close: async () => {} };

  const sign = async (p: Pending): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const key: CryptoKey = op.next.kind === 'forged' ? other.privateKey : privateKey;
    const iat = op.next.kind === 'expired' ? now - 7200 : now;
    return new SignJWT({ ...op.next.claims, nonce: op.next.kind === 'wrong-nonce' ? 'another-sign-ins-nonce' : p.nonce })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(op.next.kind === 'wrong-issuer' ? 'https://another-issuer.example.com' : op.issuer)
      .setAudience(op.next.kind === 'wrong-audience' ? 'some-other-client' : p.clientId)
      .setSubject(String(op.next.claims.sub ?? 'sub-1'))
      .setIssuedAt(iat)
      .setExpirationTime(iat + 600)
      .sign(key);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', op.issuer);
    const json = (status: number, body: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer: op.issuer,
        authorization_endpoint: `${op.issuer}/authorize`,
        token_endpoint: `${op.issuer}/token`,
        jwks_uri: `${op.issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (url.pathname === '/jwks') return json(200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('code_challenge_method') !== 'S256' || q.get('nonce') === null || q.get('state') === null)
        return json(400, { error: 'invalid_request' });
      const [clientId, nonce, challenge, redirectUri, state] = ['client_id', 'nonce', 'code_challenge', 'redirect_uri', 'state'].map(
        (k) => q.get(k) ?? '',
      ) as [string, string, string, string, string];
      const code = randomBytes(16).toString('hex');
      codes.set(code, { clientId, nonce, challenge, redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', state);
      res.writeHead(303, { location: back.href }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
      const [id, secret] = basic.split(':').map((v) => decodeURIComponent(v));
      if (id !== client.clientId || secret !== client.clientSecret) return json(401, { error: 'invalid_client' });
      const pending = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (
        pending === undefined ||
        createHash('sha256').update(verifier).digest('base64url') !== pending.challenge ||
        form.get('redirect_uri') !== pending.redirectUri
      ) {
        return json(400, { error: 'invalid_grant' });
      }
      return json(200, {
        access_token: randomBytes(16).toString('hex'),
        token_type: 'Bearer',
        expires_in: 300,
        id_token: await sign(pending),
      });
    }
    json(404, { error: 'not_found' });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => res.writeHead(500).end(err.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  op.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  op.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return op;
}
