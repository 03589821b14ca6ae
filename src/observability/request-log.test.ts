import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequestLogger, logLevelFromEnv } from './request-log.ts';

describe('request log', () => {
  it('reads LOG_LEVEL (default info) and refuses a name that is no level', () => {
    assert.equal(logLevelFromEnv({}), 'info');
    assert.equal(logLevelFromEnv({ LOG_LEVEL: ' WARN ' }), 'warn');
    assert.throws(() => logLevelFromEnv({ LOG_LEVEL: 'loud' }), /LOG_LEVEL.*must be one of/);
  });

  it('redacts credential headers and fields whatever logs them', () => {
    const lines: string[] = [];
    const log = createRequestLogger({ destination: { write: (l: string) => void lines.push(l) } });
    log.warn({ headers: { authorization: 'Bearer sk-secret-1', 'x-api-key': 'sk-secret-2' }, apiKey: 'sk-secret-3' }, 'upstream said');
    assert.equal(lines.length, 1);
    assert.ok(!/sk-secret/.test(lines[0]!), lines[0]);
    assert.equal(JSON.parse(lines[0]!).headers.authorization, '[REDACTED]');
  });
});
