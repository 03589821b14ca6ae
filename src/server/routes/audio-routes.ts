import type { FastifyInstance } from 'fastify';
import { speechDialect } from '../../front/openai-audio/speech-dialect.ts';
import { transcriptionsDialect, translationsDialect } from '../../front/openai-audio/transcriptions-dialect.ts';
import { installMultipartParser } from '../body/parse-multipart-body.ts';
import { registerGenerationRoute, type GenerationRouteDeps } from '../generation-route.ts';

/**
 * POST /v1/audio/speech (JSON), /v1/audio/transcriptions and /v1/audio/translations
 * (multipart, in their own scope so that no JSON route parses a form), under every prefix:
 * the same admission, holds and settlement as chat (docs/audio.md).
 */
export function registerAudioRoutes(app: FastifyInstance, deps: GenerationRouteDeps, prefixes: readonly string[]): void {
  registerGenerationRoute(
    app,
    deps,
    speechDialect,
    prefixes.map((p) => `${p}/audio/speech`),
  );
  app.register(async (scope) => {
    installMultipartParser(scope);
    registerGenerationRoute(
      scope,
      deps,
      transcriptionsDialect,
      prefixes.map((p) => `${p}/audio/transcriptions`),
    );
    registerGenerationRoute(
      scope,
      deps,
      translationsDialect,
      prefixes.map((p) => `${p}/audio/translations`),
    );
  });
}
