import type { ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import { checkToolChoice } from '../shared/check-tool-choice.ts';
import {
  invalidType,
  invalidValue,
  isObject,
  listValues,
  missingParameter,
  readObject,
  readStringArray,
  type JsonObject,
} from '../shared/read-fields.ts';
import { decodeGeminiSchema } from './decode-gemini-schema.ts';

// `tools` and `toolConfig` of a GenerateContentRequest.
// - Each Tool's `functionDeclarations` become canonical tools: `parametersJsonSchema` (JSON
//   Schema) as is, or `parameters` (Gemini's OpenAPI subset) converted; neither means no
//   arguments. `response` / `responseJsonSchema` and `behavior` have no canonical field.
// - Google's built-in tools (`googleSearch`, `codeExecution`, `urlContext`, ...) run inside
//   Google's API, which no other provider has: they are dropped, as the messages endpoint
//   drops Anthropic's server tools.
// - `toolConfig.functionCallingConfig`: `AUTO` (and `VALIDATED`, `MODE_UNSPECIFIED`) →
//   auto, `NONE` → none, `ANY` → a call is required; `ANY` with `allowedFunctionNames`
//   forces that one function, or offers only those functions when it names several.

const MODES: ReadonlySet<string> = new Set(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']);

function emptySchema(): Record<string, unknown> {
  return { type: 'object', properties: {} };
}

export interface DecodedTools {
  tools: ToolDefinition[] | undefined;
  toolChoice: ToolChoice | undefined;
  /** Google's search tool (`googleSearch`, `googleSearchRetrieval`) was offered: the gateway may run it (docs/tools.md). */
  webSearch: boolean;
}

export function decodeGeminiTools(body: JsonObject): DecodedTools {
  const raw = body.tools;
  let tools: ToolDefinition[] | undefined;
  let droppedBuiltIns = false;
  let webSearch = false;
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw)) throw invalidType('tools', 'an array of Tool objects', raw);
    const out: ToolDefinition[] = [];
    for (let i = 0; i < raw.length; i++) {
      const tool: unknown = raw[i];
      if (!isObject(tool)) throw invalidType(`tools[${i}]`, 'a Tool object {functionDeclarations}', tool);
      const declarations = tool.functionDeclarations;
      if (declarations === undefined || declarations === null) {
        droppedBuiltIns ||= Object.keys(tool).length > 0;
        webSearch ||= tool.googleSearch !== undefined || tool.google_search !== undefined || tool.googleSearchRetrieval !== undefined;
        continue;
      }
      if (!Array.isArray(declarations))
        throw invalidType(`tools[${i}].functionDeclarations`, 'an array of function declarations', declarations);
      for (let j = 0; j < declarations.length; j++) out.push(decodeDeclaration(declarations[j], `tools[${i}].functionDeclarations[${j}]`));
    }
    if (out.length > 0) tools = out;
  }
  return { tools, toolChoice: decodeToolConfig(body, tools, droppedBuiltIns), webSearch };
}

function decodeDeclaration(raw: unknown, path: string): ToolDefinition {
  if (!isObject(raw)) throw invalidType(path, 'a function declaration {name, description?, parameters?}', raw);
  const name = raw.name;
  if (typeof name !== 'string') {
    if (name === undefined || name === null) throw missingParameter(`${path}.name`);
    throw invalidType(`${path}.name`, 'a string', name);
  }
  if (name.length === 0) throw invalidValue(`${path}.name`, 'must not be empty');
  let parameters: Record<string, unknown>;
  const jsonSchema = raw.parametersJsonSchema;
  const schema = raw.parameters;
  if (jsonSchema !== undefined && jsonSchema !== null) {
    if (!isObject(jsonSchema)) throw invalidType(`${path}.parametersJsonSchema`, 'a JSON Schema object', jsonSchema);
    if (schema !== undefined && schema !== null)
      throw invalidValue(`${path}.parameters`, "give either 'parameters' or 'parametersJsonSchema', not both");
    parameters = jsonSchema;
  } else if (schema !== undefined && schema !== null) {
    if (!isObject(schema)) throw invalidType(`${path}.parameters`, 'a Schema object', schema);
    parameters = decodeGeminiSchema(schema);
  } else {
    parameters = emptySchema();
  }
  const out: ToolDefinition = { name, parameters };
  const description = raw.description;
  if (typeof description === 'string') {
    if (description.length > 0) out.description = description;
  } else if (description !== undefined && description !== null) throw invalidType(`${path}.description`, 'a string', description);
  return out;
}

function decodeToolConfig(body: JsonObject, tools: ToolDefinition[] | undefined, droppedBuiltIns: boolean): ToolChoice | undefined {
  const config = readObject(body, 'toolConfig');
  if (config === undefined) return undefined;
  const calling = readObject(config, 'functionCallingConfig', 'toolConfig');
  if (calling === undefined) return undefined;
  const prefix = 'toolConfig.functionCallingConfig';
  const mode = calling.mode ?? 'AUTO';
  if (typeof mode !== 'string' || !MODES.has(mode))
    throw invalidValue(`${prefix}.mode`, `must be one of ${listValues(MODES)}, got ${JSON.stringify(mode)}`);
  const allowed = readStringArray(calling, 'allowedFunctionNames', prefix);
  const rule = droppedBuiltIns ? { required: "mode 'ANY'", dropped: new Set<string>() } : { required: "mode 'ANY'" };
  let choice: ToolChoice;
  switch (mode) {
    case 'NONE':
      return { type: 'none' };
    case 'ANY':
      if (allowed === undefined || allowed.length === 0) choice = { type: 'required' };
      else if (allowed.length === 1) choice = { type: 'tool', name: allowed[0] ?? '' };
      else {
        const declared = new Set(tools?.map((t) => t.name));
        for (const name of allowed) {
          if (!declared.has(name))
            throw invalidValue(
              `${prefix}.allowedFunctionNames`,
              `names the function ${JSON.stringify(name)}, which is not declared in 'tools'`,
            );
        }
        // Several allowed: only they are offered, and one must be called.
        const keep = new Set(allowed);
        // (Without tools, the check above refused every name.)
        tools?.splice(0, tools.length, ...tools.filter((t) => keep.has(t.name)));
        choice = { type: 'required' };
      }
      break;
    default:
      return { type: 'auto' };
  }
  return checkToolChoice(choice, tools, rule);
}
