import type { ResponseFormat, ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import type { ToolChoiceRule } from '../shared/check-tool-choice.ts';
import {
  describeType,
  invalidType,
  invalidValue,
  isObject,
  missingParameter,
  readBoolean,
  readString,
  type JsonObject,
} from '../shared/read-fields.ts';

// `tools`, `tool_choice` and the output format (`text.format`, or the spec's
// `response_format`) of a responses request.
//
// Function tools are flat here (`{type: 'function', name, parameters}`), unlike chat's
// nested `function`; the nested form is accepted too. Every other tool kind is run by
// OpenAI itself (`web_search`, `file_search`, `code_interpreter`, `mcp`, ...), is
// OpenAI-specific (`custom` grammar tools, `namespace`) or needs a client OpenAI drives
// (`local_shell`, `computer_use_preview`): no provider behind the gateway can run them,
// so they are dropped without an error.
//
// `namespace` tools are dropped with their functions: a call to one must come back with
// its `namespace` for the client to route it, and a provider knows nothing of namespaces.

/** `dropped` collects the names of the tools dropped (a namespace's functions, a custom tool's name, else the type). */
export function decodeResponsesTools(raw: unknown, dropped?: Set<string>): ToolDefinition[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw invalidType('tools', 'an array of tools', raw);
  const out: ToolDefinition[] = [];
  for (let i = 0; i < raw.length; i++) {
    const tool: unknown = raw[i];
    if (!isObject(tool)) throw invalidType(`tools[${i}]`, "an object {type: 'function', name, parameters}", tool);
    const type = tool.type;
    if (type === 'function') out.push(decodeFunctionTool(tool, i));
    else if (type === undefined || type === null) throw missingParameter(`tools[${i}].type`);
    else if (typeof type !== 'string') throw invalidType(`tools[${i}].type`, 'a string', type);
    else if (dropped !== undefined) addDroppedNames(tool, type, dropped);
  }
  return out.length === 0 ? undefined : out;
}

function addDroppedNames(tool: JsonObject, type: string, dropped: Set<string>): void {
  dropped.add(typeof tool.name === 'string' ? tool.name : type);
  if (!Array.isArray(tool.tools)) return;
  for (const inner of tool.tools) {
    if (isObject(inner) && typeof inner.name === 'string') dropped.add(inner.name);
  }
}

function decodeFunctionTool(tool: JsonObject, i: number): ToolDefinition {
  // Some clients send chat's nested form to this endpoint too.
  const fn = tool.name === undefined && isObject(tool.function) ? tool.function : tool;
  const path = fn === tool ? `tools[${i}]` : `tools[${i}].function`;
  const name = fn.name;
  if (typeof name !== 'string') {
    if (name === undefined || name === null) throw missingParameter(`${path}.name`);
    throw invalidType(`${path}.name`, 'a string', name);
  }
  if (name.length === 0) throw invalidValue(`${path}.name`, 'must not be empty');
  const parameters = fn.parameters;
  let params: Record<string, unknown>;
  // Absent or null parameters mean a function without arguments.
  if (parameters === undefined || parameters === null) params = { type: 'object', properties: {} };
  else if (!isObject(parameters)) throw invalidType(`${path}.parameters`, 'a JSON Schema object', parameters);
  else params = parameters;
  const out: ToolDefinition = { name, parameters: params };
  const description = readString(fn, 'description', path);
  if (description !== undefined) out.description = description;
  const strict = readBoolean(fn, 'strict', path);
  if (strict !== undefined) out.strict = strict;
  return out;
}

export interface DecodedToolChoice {
  choice: ToolChoice;
  /** `allowed_tools`: only these functions are offered to the model. */
  allowed?: ReadonlySet<string>;
}

const TOOL_CHOICE_RULE = "must be 'none', 'auto', 'required' or {type: 'function', name}";

/** `'required'` or a named function needs `tools` holding it (check-tool-choice.ts); `dropped` from decodeResponsesTools. */
export function responsesToolChoiceRule(dropped: ReadonlySet<string>): ToolChoiceRule {
  return dropped.size === 0 ? { required: "'required'" } : { required: "'required'", dropped };
}

const AUTO: DecodedToolChoice = { choice: { type: 'auto' } };

/**
 * A choice that forces a tool the gateway dropped (`{type: 'web_search'}`, a custom or
 * MCP tool) cannot be honoured by any provider; it falls back to `auto`.
 */
export function decodeResponsesToolChoice(raw: unknown): DecodedToolChoice | undefined {
  switch (raw) {
    case undefined:
    case null:
      return undefined;
    case 'auto':
      return AUTO;
    case 'none':
      return { choice: { type: 'none' } };
    case 'required':
      return { choice: { type: 'required' } };
  }
  if (!isObject(raw)) {
    if (typeof raw === 'string') throw invalidValue('tool_choice', `${TOOL_CHOICE_RULE}, got ${JSON.stringify(raw)}`);
    throw invalidType('tool_choice', "a string or an object {type: 'function', name}", raw);
  }
  const type = raw.type;
  if (type === 'function') return { choice: { type: 'tool', name: functionChoiceName(raw) } };
  if (type === 'allowed_tools') return decodeAllowedTools(raw);
  if (typeof type !== 'string') {
    if (type === undefined || type === null) throw missingParameter('tool_choice.type');
    throw invalidType('tool_choice.type', 'a string', type);
  }
  return AUTO;
}

function functionChoiceName(raw: JsonObject): string {
  // The nested chat form {type, function: {name}} is accepted as well.
  const fn = raw.name === undefined && isObject(raw.function) ? raw.function : raw;
  const path = fn === raw ? 'tool_choice' : 'tool_choice.function';
  const name = fn.name;
  if (typeof name === 'string') return name;
  if (name === undefined || name === null) throw missingParameter(`${path}.name`);
  throw invalidType(`${path}.name`, 'a string', name);
}

function decodeAllowedTools(raw: JsonObject): DecodedToolChoice {
  const mode = raw.mode;
  let choice: ToolChoice;
  if (mode === 'auto' || mode === undefined || mode === null) choice = { type: 'auto' };
  else if (mode === 'required') choice = { type: 'required' };
  else throw invalidValue('tool_choice.mode', `must be 'auto' or 'required', got ${JSON.stringify(mode)}`);
  const tools = raw.tools;
  if (tools === undefined || tools === null) throw missingParameter('tool_choice.tools');
  if (!Array.isArray(tools)) throw invalidType('tool_choice.tools', 'an array of tools', tools);
  const allowed = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const t: unknown = tools[i];
    if (!isObject(t)) throw invalidType(`tool_choice.tools[${i}]`, "an object {type: 'function', name}", t);
    if (t.type === 'function' && typeof t.name === 'string') allowed.add(t.name);
  }
  return { choice, allowed };
}

/** `text.format` or `response_format`; `param` is the path of the field read. */
export function decodeResponsesFormat(raw: unknown, param: string): ResponseFormat | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw invalidType(param, "an object {type: 'text' | 'json_object' | 'json_schema'}", raw);
  switch (raw.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema':
      return decodeJsonSchema(raw, param);
    case undefined:
    case null:
      throw missingParameter(`${param}.type`);
    default:
      throw invalidValue(`${param}.type`, `must be 'text', 'json_object' or 'json_schema', got ${JSON.stringify(raw.type)}`);
  }
}

/** Flat here (`{type, name, schema, strict}`); chat's nested `json_schema` object is accepted too. */
function decodeJsonSchema(raw: JsonObject, param: string): ResponseFormat {
  const nested = raw.schema === undefined && isObject(raw.json_schema);
  const js = nested ? (raw.json_schema as JsonObject) : raw;
  const path = nested ? `${param}.json_schema` : param;
  const name = js.name;
  if (typeof name !== 'string') {
    if (name === undefined || name === null) throw missingParameter(`${path}.name`);
    throw invalidType(`${path}.name`, 'a string', name);
  }
  const schema = js.schema;
  if (schema === undefined || schema === null) throw missingParameter(`${path}.schema`);
  if (!isObject(schema)) throw invalidValue(`${path}.schema`, `expected a JSON Schema object, got ${describeType(schema)}`);
  const out: ResponseFormat = { type: 'json_schema', name, schema };
  const strict = readBoolean(js, 'strict', path);
  if (strict !== undefined) out.strict = strict;
  const description = readString(js, 'description', path);
  if (description !== undefined) out.description = description;
  return out;
}
