import type { FastifyInstance } from 'fastify';
import { checkJsonDepth } from '../../front/shared/check-json-depth.ts';
import { offThreadJson } from './off-thread-json.ts';
import { parseJsonText } from './parse-json-text.ts';

/**
 * Bodies from this size on are parsed on the JSON thread (off-thread-json.ts); smaller ones
 * here, where they cost at most a few milliseconds even when built of the smallest values
 * (256 KiB of `{},` is 87,000 objects, about 7 ms), and usually far less than the hop.
 */
export const OFF_THREAD_BYTES = 256 * 1024;

/**
 * The one body parser: every POST body is JSON whatever its content type (curl -d sends
 * form-encoded), so a malformed body is our invalid_json error in the dialect's shape, and
 * one place bounds how deep a body nests (nothing recursive downstream can overflow) and,
 * for large bodies, how many values it holds (json-values.ts).
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, async (_request: unknown, body: Buffer) => {
    if (body.byteLength >= OFF_THREAD_BYTES) return offThreadJson.parse(body);
    const value = parseJsonText(body.toString('utf8'));
    checkJsonDepth(value);
    return value;
  });
}
