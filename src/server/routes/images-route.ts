import type { FastifyInstance } from 'fastify';
import { imagesDialects } from '../../front/openai-images/images-dialect.ts';
import type { ImagePublisher } from '../../front/openai-images/encode-images-response.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { installMultipartParser } from '../body/parse-multipart-body.ts';
import { registerGenerationRoute, type GenerationRouteDeps } from '../generation-route.ts';
import { ImageUrlStore } from '../images/image-url-store.ts';
import { access, requestAuth } from '../route-access.ts';
import type { InForce } from '../wiring/in-force.ts';

/** What images-route.ts uses of the services (handed out by build-app.ts). */
export type ImagesRouteDeps = GenerationRouteDeps & {
  inForce: Pick<InForce, 'config'>;
  now: () => number;
};

/** The path images answered as URLs are served at, under each prefix. */
export const IMAGE_FILES_PATH = '/images/files';

/**
 * POST /v1/images/generations (JSON) and /v1/images/edits (multipart), under every prefix:
 * the same admission, holds and settlement as chat. GET /v1/images/files/<id> serves the
 * images answered as URLs, to keys of the account that asked for them only.
 */
export function registerImagesRoutes(app: FastifyInstance, deps: ImagesRouteDeps, prefixes: readonly string[]): void {
  const server = deps.inForce.config.server;
  const store = new ImageUrlStore({ ttlMs: server.imageUrlTtlSeconds * 1000, maxBytes: server.imageUrlMaxBytes, now: deps.now });
  const publish: ImagePublisher = (image, contentType, meta) => {
    if (meta.accountId === undefined || meta.publicBase === undefined)
      throw new Error("an image URL needs the account and the gateway's address");
    return `${meta.publicBase}/v1${IMAGE_FILES_PATH}/${store.put(meta.accountId, contentType, image)}`;
  };
  const dialects = imagesDialects(publish);
  registerGenerationRoute(
    app,
    deps,
    dialects.generations,
    prefixes.map((p) => `${p}/images/generations`),
  );
  // Only this scope parses forms: no JSON route ever sees one.
  app.register(async (scope) => {
    installMultipartParser(scope);
    registerGenerationRoute(
      scope,
      deps,
      dialects.edits,
      prefixes.map((p) => `${p}/images/edits`),
    );
  });
  for (const prefix of prefixes) {
    app.get(
      `${prefix}${IMAGE_FILES_PATH}/:id`,
      access('key', { note: "the key's account must be the one the image was made for (404 otherwise)" }),
      async (request, reply) => {
        const auth = requestAuth(request);
        const { id } = request.params as { id: string };
        // Another account's image, an expired one and an unknown id are alike: 404.
        const image = store.get(id, auth.account.id);
        if (image === null) throw new GatewayError('not_found', 'No such image: it expired, or was made for another account.');
        reply.header('cache-control', 'private, max-age=0, no-store');
        // The bytes are the upstream's: never sniffed or run as anything but an image.
        reply.header('x-content-type-options', 'nosniff');
        reply.header('content-security-policy', "default-src 'none'; sandbox");
        reply.type(image.contentType);
        return image.data;
      },
    );
  }
}
