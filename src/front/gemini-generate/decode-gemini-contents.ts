import type { AssistantContentPart, Message, TextPart, ToolCallPart, ToolResultPart, UserContentPart } from '../../canonical/request.ts';
import { describeType, invalidType, invalidValue, isObject, messageError, missingField, type JsonObject } from '../shared/read-fields.ts';
import { decodeInlineData, decodeUserMediaPart, partPath, unsupportedPart } from './decode-gemini-parts.ts';

// `systemInstruction` and `contents` of a GenerateContentRequest → canonical messages:
// - `systemInstruction` (a Content, or a string as the SDKs also accept) → the system message;
// - a `user` content → a user message; its `functionResponse` parts become one canonical
//   `tool` message before it (providers want results right after the call), the rest of
//   its parts the user's turn; role `function` (the older API's) is a user content;
// - a `model` content → an assistant message: text, thoughts (`thought: true`) as
//   reasoning with their `thoughtSignature`, `functionCall`s as tool calls (their
//   signature kept), generated images.
// Function call ids: Gemini's are optional. A call without one gets `call_<i>_<j>` (its
// position, so the same history always gives the same ids); a response without one
// answers the earliest unanswered call of that name, else gets its own id.

export const ROLES = "'user', 'model'";

/**
 * The calls of the last model turn not answered yet: by id, and per name in order (ids
 * already answered are skipped when a name's queue is read). Map lookups, so a turn of many
 * calls and responses costs linear time.
 */
class CallLedger {
  private readonly open = new Map<string, string>();
  private readonly byName = new Map<string, { ids: string[]; head: number }>();

  /** A new model turn: calls of an earlier turn left unanswered are not answered by a later one. */
  reset(): void {
    this.open.clear();
    this.byName.clear();
  }

  add(id: string, name: string): void {
    this.open.set(id, name);
    const queue = this.byName.get(name);
    if (queue === undefined) this.byName.set(name, { ids: [id], head: 0 });
    else queue.ids.push(id);
  }

  /** Marks the call `id` answered (if it is open); without an id, the earliest open call of `name`, whose id it returns. */
  answer(id: string | undefined, name: string): string | undefined {
    if (id !== undefined) {
      this.open.delete(id);
      return id;
    }
    const queue = this.byName.get(name);
    if (queue === undefined) return undefined;
    for (let candidate = queue.ids[queue.head]; candidate !== undefined; candidate = queue.ids[queue.head]) {
      queue.head++;
      if (this.open.delete(candidate)) return candidate;
    }
    return undefined;
  }
}

export function decodeGeminiSystem(raw: unknown): Message | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'string') return raw.length === 0 ? null : { role: 'system', content: [{ type: 'text', text: raw }] };
  if (!isObject(raw)) throw invalidType('systemInstruction', 'a Content object {parts: [{text}]}', raw);
  const parts = raw.parts;
  if (parts === undefined || parts === null) return null;
  if (!Array.isArray(parts)) throw invalidType('systemInstruction.parts', 'an array of parts', parts);
  const content: TextPart[] = [];
  for (let j = 0; j < parts.length; j++) {
    const part: unknown = parts[j];
    if (!isObject(part) || typeof part.text !== 'string') {
      throw invalidValue(`systemInstruction.parts[${j}]`, 'must be a text part {text}');
    }
    if (part.text.length > 0) content.push({ type: 'text', text: part.text });
  }
  return content.length === 0 ? null : { role: 'system', content };
}

export function decodeGeminiContents(raw: readonly unknown[], out: Message[]): void {
  const ledger = new CallLedger();
  for (let i = 0; i < raw.length; i++) {
    const content = raw[i];
    if (!isObject(content)) throw messageError(`contents[${i}]`, `expected a Content object {role, parts}, got ${describeType(content)}`);
    const role = content.role ?? 'user';
    const parts = content.parts;
    if (parts === undefined || parts === null) throw missingField(`contents[${i}].parts`);
    if (!Array.isArray(parts)) throw messageError(`contents[${i}].parts`, `expected an array of parts, got ${describeType(parts)}`);
    if (role === 'model') out.push({ role: 'assistant', content: decodeModelParts(parts, i, ledger) });
    else if (role === 'user' || role === 'function') decodeUserParts(parts, i, out, ledger);
    else throw messageError(`contents[${i}].role`, `must be one of ${ROLES}, got ${JSON.stringify(role)}`);
  }
}

function partAt(parts: readonly unknown[], i: number, j: number): JsonObject {
  const part = parts[j];
  if (!isObject(part)) throw messageError(partPath(i, j), `expected a part object, got ${describeType(part)}`);
  return part;
}

function decodeUserParts(parts: readonly unknown[], i: number, out: Message[], ledger: CallLedger): void {
  let results: ToolResultPart[] | null = null;
  const content: UserContentPart[] = [];
  for (let j = 0; j < parts.length; j++) {
    const part = partAt(parts, i, j);
    if (typeof part.text === 'string') {
      if (part.thought !== true) content.push({ type: 'text', text: part.text });
      continue;
    }
    if (part.functionResponse !== undefined && part.functionResponse !== null) {
      (results ??= []).push(decodeFunctionResponse(part.functionResponse, i, j, ledger));
      continue;
    }
    const media = decodeUserMediaPart(part, i, j);
    if (media !== undefined) {
      content.push(media);
      continue;
    }
    if (part.functionCall !== undefined && part.functionCall !== null) {
      throw messageError(partPath(i, j, '.functionCall'), "a function call is the model's: it belongs in a content of role 'model'");
    }
    throw unsupportedPart(part, i, j);
  }
  if (results !== null) out.push({ role: 'tool', content: results });
  if (content.length > 0 || results === null) out.push({ role: 'user', content });
}

function decodeModelParts(parts: readonly unknown[], i: number, ledger: CallLedger): AssistantContentPart[] {
  const out: AssistantContentPart[] = [];
  ledger.reset();
  for (let j = 0; j < parts.length; j++) {
    const part = partAt(parts, i, j);
    const signature = readSignature(part, i, j);
    if (typeof part.text === 'string') {
      if (part.thought === true)
        out.push(signature === undefined ? { type: 'reasoning', text: part.text } : { type: 'reasoning', text: part.text, signature });
      else if (part.text.length > 0) out.push({ type: 'text', text: part.text });
      continue;
    }
    if (part.functionCall !== undefined && part.functionCall !== null) {
      const call = decodeFunctionCall(part.functionCall, i, j, signature);
      ledger.add(call.id, call.name);
      out.push(call);
      continue;
    }
    if (part.inlineData !== undefined && part.inlineData !== null) {
      const media = decodeInlineData(part.inlineData, partPath(i, j, '.inlineData'));
      if (media.type === 'image') out.push({ type: 'image-output', url: media.url });
      continue;
    }
    if (part.functionResponse !== undefined && part.functionResponse !== null) {
      throw messageError(
        partPath(i, j, '.functionResponse'),
        "a function response is the caller's: it belongs in a content of role 'user'",
      );
    }
    // A signature alone (Gemini sometimes signs an empty part) carries nothing to replay elsewhere.
    if (signature !== undefined && Object.keys(part).length === 1) continue;
    throw unsupportedPart(part, i, j);
  }
  return out;
}

function readSignature(part: JsonObject, i: number, j: number): string | undefined {
  const signature = part.thoughtSignature;
  if (signature === undefined || signature === null) return undefined;
  if (typeof signature !== 'string')
    throw messageError(partPath(i, j, '.thoughtSignature'), `expected a string, got ${describeType(signature)}`);
  return signature.length > 0 ? signature : undefined;
}

function readName(obj: JsonObject, path: string): string {
  const name = obj.name;
  if (typeof name === 'string' && name.length > 0) return name;
  if (name === undefined || name === null) throw missingField(`${path}.name`);
  throw messageError(`${path}.name`, typeof name === 'string' ? 'must not be empty' : `expected a string, got ${describeType(name)}`);
}

function readId(obj: JsonObject, path: string): string | undefined {
  const id = obj.id;
  if (id === undefined || id === null || id === '') return undefined;
  if (typeof id !== 'string') throw messageError(`${path}.id`, `expected a string, got ${describeType(id)}`);
  return id;
}

function decodeFunctionCall(raw: unknown, i: number, j: number, signature: string | undefined): ToolCallPart {
  const path = partPath(i, j, '.functionCall');
  if (!isObject(raw)) throw messageError(path, `expected an object {name, args, id?}, got ${describeType(raw)}`);
  const name = readName(raw, path);
  const args = raw.args;
  if (args !== undefined && args !== null && !isObject(args))
    throw messageError(`${path}.args`, `expected an object, got ${describeType(args)}`);
  const call: ToolCallPart = { type: 'tool-call', id: readId(raw, path) ?? `call_${i}_${j}`, name, arguments: JSON.stringify(args ?? {}) };
  if (signature !== undefined) call.signature = signature;
  return call;
}

function decodeFunctionResponse(raw: unknown, i: number, j: number, ledger: CallLedger): ToolResultPart {
  const path = partPath(i, j, '.functionResponse');
  if (!isObject(raw)) throw messageError(path, `expected an object {name, response, id?}, got ${describeType(raw)}`);
  const name = readName(raw, path);
  const response = raw.response;
  if (response !== undefined && response !== null && !isObject(response))
    throw messageError(`${path}.response`, `expected an object, got ${describeType(response)}`);
  const callId = ledger.answer(readId(raw, path), name) ?? `call_${i}_${j}`;
  const result: ToolResultPart = { type: 'tool-result', toolCallId: callId, name, content: resultText(response ?? {}) };
  if (isObject(response) && Object.keys(response).length === 1 && response.error !== undefined) result.isError = true;
  return result;
}

/**
 * The result as the text a tool message carries: `{output: "<text>"}` (what Gemini's docs
 * and Gemini CLI send) is its text; any other object its JSON.
 */
function resultText(response: JsonObject): string {
  const keys = Object.keys(response);
  const onlyKey = keys.length === 1 ? keys[0] : undefined;
  if (onlyKey !== undefined) {
    const only = response[onlyKey];
    if ((keys[0] === 'output' || keys[0] === 'error') && typeof only === 'string') return only;
  }
  return JSON.stringify(response);
}
