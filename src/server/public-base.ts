import type { FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config/types.ts';

/**
 * The gateway's address as a client reaches it, for links in answers: `server.public_origin`
 * when set, else the request's scheme (X-Forwarded-Proto from a trusted proxy) and Host;
 * then `server.base_path`.
 */
export function publicBase(request: FastifyRequest, server: ServerConfig): string {
  const origin = server.publicOrigin ?? `${request.protocol}://${request.host}`;
  return `${origin}${server.basePath ?? ''}`;
}
