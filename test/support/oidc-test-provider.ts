import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

// A real OpenID Connect provider on loopback for the single sign-on tests: panva's
// oidc-provider with its development login and consent pages (any password signs in; the
// login names a user of `users`). The HTTP server listens first, so the issuer (and its
// port) is known before the gateway's configuration is written; the client (its redirect
// URI names the gateway's port) is registered by `register` once the gateway listens.

export interface TestUser {
  email: string;
  emailVerified?: boolean;
  name?: string;
  groups?: string[];
}

export interface OidcTestProvider {
  /** http://<host>:<port> — also the discovery document's `issuer`. */
  issuer: string;
  /** Registers the gateway's client; the provider serves from then on. */
  register(client: { clientId: string; clientSecret: string; redirectUri: string }): Promise<void>;
  close(): Promise<void>;
}

/**
 * `host`: the name the issuer uses (`127.0.0.1`, or `localhost` for a provider on another
 * site than a gateway on 127.0.0.1, as a browser sees sites). Listens on both loopbacks.
 */
export async function startOidcProvider(users: Record<string, TestUser>, host = '127.0.0.1'): Promise<OidcTestProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => unknown) | null = null;
  const server: Server = createServer((req, res) => {
    if (handler === null) {
      res.writeHead(503).end();
      return;
    }
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host === 'localhost' ? '::' : host, resolve));
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-op-key', alg: 'RS256', use: 'sig' };
  return {
    issuer,
    async register(client) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: client.clientId,
            client_secret: client.clientSecret,
            redirect_uris: [client.redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        jwks: { keys: [jwk] },
        cookies: { keys: ['switchyard-test-cookie-key'] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
        scopes: ['openid', 'email', 'profile', 'groups'],
        // The scopes' claims in the ID token itself (not only at the userinfo endpoint): what the gateway reads.
        conformIdTokenClaims: false,
        features: { devInteractions: { enabled: true } },
        pkce: { required: () => true },
        ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
        async findAccount(_ctx, id) {
          const user = users[id];
          if (user === undefined) return undefined;
          return {
            accountId: id,
            async claims() {
              return {
                sub: `sub-${id}`,
                email: user.email,
                email_verified: user.emailVerified ?? true,
                name: user.name ?? id,
                groups: user.groups ?? [],
              };
            },
          };
        },
      });
      // Its warnings about development settings are not the tests' business.
      provider.on('server_error', (_ctx, err) => assert.fail(`oidc-provider server_error: ${err.message}`));
      handler = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies of one host, as a browser keeps them (name → value; expiry and paths ignored). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

/**
 * Signs `login` in at the provider as a browser would, from the authorization URL the
 * gateway redirected to: the login page's form (any password), the consent page's, and the
 * redirects between them, until the provider sends the browser to `callbackPrefix`.
 * Returns that URL (with code and state).
 */
export async function signInAtProvider(authorizationUrl: string, login: string, callbackPrefix: string): Promise<string> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 12; step++) {
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      body,
      headers: { cookie: jar.header(), ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
    });
    jar.take(res.headers);
    const location = res.headers.get('location');
    if (location !== null) {
      const next = new URL(location, url).href;
      await res.arrayBuffer();
      if (next.startsWith(callbackPrefix)) return next;
      url = next;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    assert.equal(res.status, 200, `the provider answered ${res.status}: ${html.slice(0, 500)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html);
    assert.ok(action, `a form on the provider's page: ${html.slice(0, 500)}`);
    const fields = new URLSearchParams();
    for (const m of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields.set(m[1]!, m[2]!);
    if (/name="login"/.test(html)) {
      fields.set('login', login);
      fields.set('password', 'any');
    }
    url = new URL(action[1]!.replace(/&amp;/g, '&'), url).href;
    method = 'POST';
    body = fields.toString();
  }
  throw new Error('the provider never sent the browser back');
}
