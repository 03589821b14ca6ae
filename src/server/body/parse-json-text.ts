import { GatewayError } from '../../errors/gateway-error.ts';

/** JSON.parse, its failure our `invalid_json` error; an empty body is undefined. */
export function parseJsonText(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new GatewayError('invalid_json', `The request body is not valid JSON: ${(err as Error).message}`);
  }
}
