import type { ModelInfo, ProviderConfig } from './types.ts';

/** Routing variants a model name may carry as a `:suffix` (OpenRouter's set). */
export const MODEL_VARIANTS: ReadonlySet<string> = new Set(['free', 'extended', 'thinking', 'online', 'nitro', 'floor', 'exacto']);

export interface ResolvedModel {
  readonly model: ModelInfo;
  readonly variant?: string;
}

/**
 * The models and providers the gateway serves. Immutable; every name a client may use
 * (ids, aliases, bare names) is put in one table at construction, so resolving a name on
 * the request path is one map lookup (two with a `:variant`).
 */
export class Catalog {
  /** Sorted by id. */
  readonly models: readonly ModelInfo[];
  /** Enabled providers that have an adapter. */
  readonly providers: ReadonlyMap<string, ProviderConfig>;
  /** Notes for the startup log: dropped endpoints and models, ignored aliases. Never secrets. */
  readonly warnings: readonly string[];
  readonly #byId: ReadonlyMap<string, ModelInfo>;
  readonly #byName: ReadonlyMap<string, ResolvedModel>;

  constructor(models: readonly ModelInfo[], providers: ReadonlyMap<string, ProviderConfig>, warnings: readonly string[] = []) {
    this.models = [...models].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.providers = providers;
    const notes = [...warnings];
    this.#byId = new Map(this.models.map((m) => [m.id, m]));
    this.#byName = buildNameTable(this.models, notes);
    this.warnings = notes;
  }

  get(id: string): ModelInfo | undefined {
    return this.#byId.get(id);
  }

  /**
   * A client's model name to a model: the exact id, an alias, `<author>/<alias>`, or the
   * bare name without author when only one model has it; each optionally followed by a
   * known `:variant`, which is returned apart. Case-sensitive.
   */
  resolve(name: string): ResolvedModel | undefined {
    const hit = this.#byName.get(name);
    if (hit !== undefined) return hit;
    const colon = name.lastIndexOf(':');
    if (colon <= 0) return undefined;
    const variant = name.slice(colon + 1);
    if (!MODEL_VARIANTS.has(variant)) return undefined;
    const base = this.#byName.get(name.slice(0, colon));
    return base === undefined ? undefined : { model: base.model, variant };
  }
}

/**
 * Precedence: ids, then explicit aliases, then derived names (`<author>/<alias>` and bare
 * names). An explicit alias claimed by two models resolves to neither (and is reported);
 * a derived name shared by two models is simply not derived.
 */
function buildNameTable(models: readonly ModelInfo[], warnings: string[]): Map<string, ResolvedModel> {
  const table = new Map<string, ResolvedModel>();
  const entries = new Map<ModelInfo, ResolvedModel>();
  const entryOf = (m: ModelInfo): ResolvedModel => {
    let e = entries.get(m);
    if (e === undefined) entries.set(m, (e = Object.freeze({ model: m })));
    return e;
  };
  for (const m of models) table.set(m.id, entryOf(m));

  const aliasOwners = new Map<string, ModelInfo[]>();
  for (const m of models) {
    for (const alias of m.aliases) {
      if (alias === m.id) continue;
      const owners = aliasOwners.get(alias);
      if (owners === undefined) aliasOwners.set(alias, [m]);
      else if (!owners.includes(m)) owners.push(m);
    }
  }
  const blocked = new Set<string>();
  for (const [alias, owners] of aliasOwners) {
    if (table.has(alias)) {
      warnings.push(`alias "${alias}" of ${owners.map((m) => m.id).join(', ')} ignored: it is the id of another model`);
    } else if (owners.length > 1) {
      warnings.push(`alias "${alias}" ignored: claimed by ${owners.map((m) => m.id).join(' and ')}`);
      blocked.add(alias);
    } else {
      table.set(alias, entryOf(owners[0]!));
    }
  }

  const derived = new Map<string, ModelInfo | null>();
  const offer = (name: string, m: ModelInfo): void => {
    if (table.has(name) || blocked.has(name)) return;
    const prev = derived.get(name);
    if (prev === undefined) derived.set(name, m);
    else if (prev !== m) derived.set(name, null);
  };
  for (const m of models) {
    offer(m.id.slice(m.id.indexOf('/') + 1), m);
    for (const alias of m.aliases) if (!alias.includes('/')) offer(`${m.author}/${alias}`, m);
  }
  for (const [name, m] of derived) if (m !== null) table.set(name, entryOf(m));
  return table;
}
