import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { Authenticator } from '../auth/authenticate.ts';
import { access, describeRoutes, installRouteAccess } from './route-access.ts';

const noKeys = new Authenticator({
  getKey: async () => undefined,
  getKeyBySecret: async () => undefined,
  getAccount: async () => undefined,
});

describe('installRouteAccess', () => {
  it('refuses to start an app with a route that declares no access, naming it', async () => {
    const app = Fastify();
    installRouteAccess(app, noKeys, 1024);
    app.get('/declared', access('none'), async () => 'ok');
    app.post('/forgotten', async () => 'oops');
    await assert.rejects(async () => {
      await app.ready();
    }, /Routes without a declared access.*POST \/forgotten/);
  });

  it('lists every route with its declaration, HEAD twins included', async () => {
    const app = Fastify();
    installRouteAccess(app, noKeys, 1024);
    app.get('/a', access('none'), async () => 'ok');
    app.post('/b', access('admin'), async () => 'ok');
    await app.ready();
    assert.deepEqual(
      describeRoutes(app).map((r) => `${r.method} ${r.url} ${r.access?.auth}`),
      ['GET /a none', 'HEAD /a none', 'POST /b admin'],
    );
  });

  it('answers 401 before the handler for an authenticated route, and 413 for a body a route does not take', async () => {
    const app = Fastify();
    installRouteAccess(app, noKeys, 1024);
    let ran = 0;
    app.post('/admin', access('admin'), async () => ++ran);
    app.get('/open', access('none'), async () => ++ran);
    app.post('/small', access('none', { maxBodyBytes: 10 }), async () => ++ran);
    const denied = await app.inject({ method: 'POST', url: '/admin', payload: { a: 1 } });
    assert.equal(denied.statusCode, 401);
    const withBody = await app.inject({ method: 'GET', url: '/open', headers: { 'content-length': '5' }, payload: 'hello' });
    assert.equal(withBody.statusCode, 413);
    const tooBig = await app.inject({ method: 'POST', url: '/small', payload: { text: 'longer than ten bytes' } });
    assert.equal(tooBig.statusCode, 413);
    assert.equal(ran, 0);
    assert.equal((await app.inject({ method: 'GET', url: '/open' })).statusCode, 200);
  });
});
