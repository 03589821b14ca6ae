import type { ModelChoice } from '../../canonical/request.ts';
import { decodeProviderPreferences } from './decode-provider-preferences.ts';
import { invalidType, invalidValue, isObject, missingParameter, type JsonObject } from './read-fields.ts';

// `model`, `models` and `fallbacks` → one ordered list of model choices: the primary
// first, then fallbacks in order, each model once (its first mention wins, so a primary
// is never demoted by a later duplicate). An absent `model` leaves the list to start
// with `models`/`fallbacks`, or empty: the pipeline then uses the account's default.

export function decodeModelList(body: JsonObject): ModelChoice[] {
  const out: ModelChoice[] = [];

  const model = body.model;
  if (model !== undefined && model !== null) {
    if (typeof model !== 'string') throw invalidType('model', 'a string', model);
    if (model.length === 0) throw invalidValue('model', 'must not be empty');
    out.push({ model });
  }

  const models = body.models;
  if (models !== undefined && models !== null) {
    if (!Array.isArray(models)) throw invalidType('models', 'an array of strings', models);
    for (let i = 0; i < models.length; i++) {
      const m: unknown = models[i];
      if (typeof m !== 'string') throw invalidType(`models[${i}]`, 'a string', m);
      if (m.length === 0) throw invalidValue(`models[${i}]`, 'must not be empty');
      addChoice(out, { model: m });
    }
  }

  const fallbacks = body.fallbacks;
  if (fallbacks !== undefined && fallbacks !== null) {
    if (!Array.isArray(fallbacks)) throw invalidType('fallbacks', 'an array', fallbacks);
    for (let i = 0; i < fallbacks.length; i++) addChoice(out, decodeFallback(fallbacks[i], i));
  }
  return out;
}

function decodeFallback(entry: unknown, i: number): ModelChoice {
  if (typeof entry === 'string') {
    if (entry.length === 0) throw invalidValue(`fallbacks[${i}]`, 'must not be empty');
    return { model: entry };
  }
  if (!isObject(entry)) throw invalidType(`fallbacks[${i}]`, 'a model string or an object {model, provider}', entry);
  const model = entry.model;
  if (model === undefined || model === null) throw missingParameter(`fallbacks[${i}].model`);
  if (typeof model !== 'string') throw invalidType(`fallbacks[${i}].model`, 'a string', model);
  if (model.length === 0) throw invalidValue(`fallbacks[${i}].model`, 'must not be empty');
  const choice: ModelChoice = { model };
  const provider = decodeProviderPreferences(entry, 'provider', `fallbacks[${i}]`);
  if (provider !== undefined) choice.provider = provider;
  return choice;
}

function addChoice(list: ModelChoice[], choice: ModelChoice): void {
  // Lists are a handful of entries: a linear scan beats building a Set.
  for (let i = 0; i < list.length; i++) if (list[i]!.model === choice.model) return;
  list.push(choice);
}
