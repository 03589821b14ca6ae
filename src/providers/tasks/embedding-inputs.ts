import type { EmbeddingTask } from '../../canonical/task.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

// What vendors whose embedding APIs take text only (Gemini, Vertex, Bedrock) need of a
// request: its inputs as strings. Token arrays (OpenAI's tokenized input) are refused before
// anything is sent, so routing moves on to an endpoint that takes them.

export function textInputs(task: EmbeddingTask, endpoint: Endpoint): string[] {
  const texts: string[] = [];
  for (const input of task.input) {
    if (typeof input !== 'string') {
      throw new GatewayError(
        'unsupported_content',
        `Provider "${endpoint.provider.id}" embeds text only; token arrays are taken by OpenAI-compatible providers.`,
        {
          param: 'input',
          metadata: { provider_name: endpoint.provider.id },
        },
      );
    }
    texts.push(input);
  }
  return texts;
}

/** A `dimensions` this endpoint cannot produce: refused before sending, naming what it takes. */
export function unsupportedDimensions(endpoint: Endpoint, takes: string): GatewayError {
  return new GatewayError(
    'unsupported_content',
    `The model at provider "${endpoint.provider.id}" cannot produce the requested dimensions (it takes ${takes}).`,
    {
      param: 'dimensions',
      metadata: { provider_name: endpoint.provider.id },
    },
  );
}
