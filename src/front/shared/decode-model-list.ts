import type { ModelChoice } from '../../canonical/request.ts';
import { decodeProviderPreferences } from './decode-provider-preferences.ts';
import { MAX_MODEL_CHOICES, MAX_MODEL_ID_CHARS } from './input-limits.ts';
import { invalidType, invalidValue, isObject, missingParameter, type JsonObject } from './read-fields.ts';

// `model`, `models` and `fallbacks` → one ordered list of model choices: the primary
// first, then fallbacks in order, each model once (its first mention wins, so a primary
// is never demoted by a later duplicate). An absent `model` leaves the list to start
// with `models`/`fallbacks`, or empty: the pipeline then uses the account's default.
// `models` and `fallbacks` together hold at most MAX_MODEL_CHOICES entries, each id at
// most MAX_MODEL_ID_CHARS: the list is checked before any entry is read, and duplicates
// are found through a set, so the work stays linear and small.

export function decodeModelList(body: JsonObject): ModelChoice[] {
  const out: ModelChoice[] = [];
  const seen = new Set<string>();

  const model = body.model;
  if (model !== undefined && model !== null) {
    if (typeof model !== 'string') throw invalidType('model', 'a string', model);
    checkModelId(model, 'model');
    out.push({ model });
    seen.add(model);
  }

  const models = body.models;
  const fallbacks = body.fallbacks;
  if (models !== undefined && models !== null && !Array.isArray(models)) throw invalidType('models', 'an array of strings', models);
  if (fallbacks !== undefined && fallbacks !== null && !Array.isArray(fallbacks)) throw invalidType('fallbacks', 'an array', fallbacks);
  const count = (Array.isArray(models) ? models.length : 0) + (Array.isArray(fallbacks) ? fallbacks.length : 0);
  if (count > MAX_MODEL_CHOICES) {
    const param = Array.isArray(models) && models.length > 0 ? 'models' : 'fallbacks';
    throw invalidValue(param, `'models' and 'fallbacks' together may list at most ${MAX_MODEL_CHOICES} models, got ${count}`);
  }

  if (Array.isArray(models)) {
    for (let i = 0; i < models.length; i++) {
      const m: unknown = models[i];
      if (typeof m !== 'string') throw invalidType(`models[${i}]`, 'a string', m);
      checkModelId(m, `models[${i}]`);
      addChoice(out, seen, { model: m });
    }
  }

  if (Array.isArray(fallbacks)) {
    for (let i = 0; i < fallbacks.length; i++) addChoice(out, seen, decodeFallback(fallbacks[i], i));
  }
  return out;
}

function checkModelId(id: string, param: string): void {
  if (id.length === 0) throw invalidValue(param, 'must not be empty');
  if (id.length > MAX_MODEL_ID_CHARS) throw invalidValue(param, `must be at most ${MAX_MODEL_ID_CHARS} characters, got ${id.length}`);
}

function decodeFallback(entry: unknown, i: number): ModelChoice {
  if (typeof entry === 'string') {
    checkModelId(entry, `fallbacks[${i}]`);
    return { model: entry };
  }
  if (!isObject(entry)) throw invalidType(`fallbacks[${i}]`, 'a model string or an object {model, provider}', entry);
  const model = entry.model;
  if (model === undefined || model === null) throw missingParameter(`fallbacks[${i}].model`);
  if (typeof model !== 'string') throw invalidType(`fallbacks[${i}].model`, 'a string', model);
  checkModelId(model, `fallbacks[${i}].model`);
  const choice: ModelChoice = { model };
  const provider = decodeProviderPreferences(entry, 'provider', `fallbacks[${i}]`);
  if (provider !== undefined) choice.provider = provider;
  return choice;
}

function addChoice(list: ModelChoice[], seen: Set<string>, choice: ModelChoice): void {
  if (seen.has(choice.model)) return;
  seen.add(choice.model);
  list.push(choice);
}
