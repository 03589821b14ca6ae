import { invalidValue, isObject } from './read-fields.ts';
import { MAX_JSON_DEPTH } from './input-limits.ts';

/**
 * Refuses a parsed body nesting objects and arrays deeper than MAX_JSON_DEPTH (the body
 * itself is depth 1). Checked once, iteratively, right after parsing: everything after it
 * may walk client JSON recursively (tool and response-format schemas, the token
 * estimator, JSON.stringify, schema conversions) without overflowing the stack.
 */
export function checkJsonDepth(body: unknown, max = MAX_JSON_DEPTH): void {
  if (typeof body !== 'object' || body === null) return;
  if (!isObject(body)) {
    if (depthOf(body, 1, max) > max) throw tooDeep('body', max);
    return;
  }
  for (const key in body) {
    const value = body[key];
    if (typeof value === 'object' && value !== null && depthOf(value, 2, max) > max) throw tooDeep(key, max);
  }
}

/** The depth reached below `root` (at `rootDepth`), stopping as soon as it passes `max`. */
function depthOf(root: object, rootDepth: number, max: number): number {
  const nodes: object[] = [root];
  const depths: number[] = [rootDepth];
  let deepest = rootDepth;
  for (let node = nodes.pop(), depth = depths.pop(); node !== undefined && depth !== undefined; node = nodes.pop(), depth = depths.pop()) {
    if (depth > deepest) {
      deepest = depth;
      if (deepest > max) return deepest;
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      const obj = node as Record<string, unknown>;
      for (const k in obj) {
        const child = obj[k];
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return deepest;
}

function tooDeep(param: string, max: number) {
  return invalidValue(param, `nests objects and arrays more than ${max} levels deep (the gateway's limit)`);
}
