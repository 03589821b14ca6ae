import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { access } from '../route-access.ts';

// The dashboard's built files (web/ → dist/dashboard by `npm run build:dashboard`), served by
// the gateway itself: /dashboard/ and every client route under it answer index.html (the
// app routes in the browser), /dashboard/assets/ the bundled files, / redirects to the
// dashboard. Under a base path the HTML's asset URLs carry it.

export const DASHBOARD_DIR = fileURLToPath(new URL('../../../dist/dashboard/', import.meta.url));

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

export function securityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
}

export function registerDashboard(app: FastifyInstance, basePath: string): void {
  const indexFile = `${DASHBOARD_DIR}index.html`;
  let html: string | undefined;
  const indexHtml = (): string | undefined => {
    if (html === undefined && existsSync(indexFile)) {
      html = readFileSync(indexFile, 'utf8').replaceAll('"./assets/', `"${basePath}/dashboard/assets/`);
    }
    return html;
  };

  const hidden = { schema: { hide: true }, ...access('none') };
  app.get('/', hidden, async (_request, reply) => reply.redirect(`${basePath}/dashboard/`, 302));
  app.get('/dashboard', hidden, async (_request, reply) => reply.redirect(`${basePath}/dashboard/`, 302));

  const sendIndex = async (_request: unknown, reply: FastifyReply): Promise<unknown> => {
    securityHeaders(reply);
    const page = indexHtml();
    if (page === undefined) {
      reply.code(503).type('text/plain; charset=utf-8');
      return 'The dashboard is not built: run `npm run build:dashboard` (npm ci and npm start build it).';
    }
    reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8');
    return page;
  };
  app.get('/dashboard/', hidden, sendIndex);
  app.get('/dashboard/*', hidden, sendIndex);

  app.register(async (assets) => {
    // @fastify/static takes no route config: its routes (files anyone may fetch) are declared here.
    assets.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: { auth: 'none' } };
    });
    assets.addHook('onSend', async (_request, reply) => {
      securityHeaders(reply);
    });
    await assets.register(fastifyStatic, {
      root: `${DASHBOARD_DIR}assets`,
      prefix: '/dashboard/assets/',
      index: false,
      wildcard: true,
      immutable: true,
      maxAge: '365d',
      // A missing build leaves the asset routes answering 404.
      allowedPath: () => true,
    });
  });
}

/** Fastify's rewriteUrl for `server.base_path`: paths under it lose the prefix; others match no route. */
export function baseStripper(basePath: string): ((req: { url?: string }) => string) | undefined {
  if (basePath === '') return undefined;
  return (req) => {
    const url = req.url ?? '/';
    if (url === basePath) return '/';
    if (url.startsWith(`${basePath}/`) || url.startsWith(`${basePath}?`)) return url.slice(basePath.length) || '/';
    return `/__outside_base_path${url}`;
  };
}
