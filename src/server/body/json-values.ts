import { GatewayError } from '../../errors/gateway-error.ts';
import { MAX_JSON_DEPTH } from '../../front/shared/input-limits.ts';

// Bounds on what one JSON body may make the gateway build. The body size alone does not
// bound the work of parsing it: 15 MB of `{},` are five million objects (1.6 s of
// JSON.parse), while 15 MB of one base64 image is a single string. Bodies that parse on
// the worker thread (json-parse-thread.ts) are first scanned for an upper bound on their
// values, and refused past MAX_JSON_VALUES before any object is built.

/** JSON values (objects, arrays, strings, numbers, literals) in one body, at most. */
export const MAX_JSON_VALUES = 100_000;

/** What a scan of a JSON text finds without parsing it. */
export interface JsonShape {
  /** An upper bound on the values it holds. */
  values: number;
  /** How deep its objects and arrays nest (the top level is 1). */
  depth: number;
}

/**
 * An upper bound on the values a JSON text holds (one, plus a comma or an opening bracket
 * outside strings for each further value) and how deep it nests. Linear, no allocation,
 * over the raw UTF-8 bytes (a multi-byte character never contains `"`, `\`, `,`, a
 * bracket or a brace).
 */
export function scanJsonShape(bytes: Uint8Array): JsonShape {
  let values = 1;
  let open = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c)
        i++; // a backslash escapes the next byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) {
      inString = true;
    } else if (b === 0x2c) {
      values++;
    } else if (b === 0x5b || b === 0x7b) {
      values++;
      if (++open > depth) depth = open;
    } else if (b === 0x5d || b === 0x7d) {
      open--;
    }
  }
  return { values, depth };
}

/**
 * Refuses a body with more values than MAX_JSON_VALUES before it is parsed. One that nests
 * too deep is left to the parse and the depth check, which name the field at fault.
 */
export function checkJsonShape(bytes: Uint8Array): void {
  const shape = scanJsonShape(bytes);
  if (shape.values > MAX_JSON_VALUES && shape.depth <= MAX_JSON_DEPTH) throw tooManyValues();
}

export function tooManyValues(): GatewayError {
  return new GatewayError('request_too_large', `The request body holds more than ${MAX_JSON_VALUES} JSON values (the gateway's limit).`);
}
