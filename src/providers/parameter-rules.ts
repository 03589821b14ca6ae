import { REQUEST_PARAMETERS, type RequestParameter } from '../canonical/request.ts';

// How one request parameter travels to one vendor, stated as data so that the catalog's
// `supported_parameters`, `require_parameters` routing and docs/providers.md all read the
// same answer. Every vendor table names every parameter: nothing is dropped by omission.
// Whatever the rule, `max_tokens` never exceeds the endpoint's own `maxOutputTokens`:
// asking for more than a model can write is refused by most vendors and means the same.

export type ParameterAction =
  /** Sent under its own (chat-table) name. */
  | 'pass'
  /** Sent under the vendor's name for it (`field`). */
  | 'rename'
  /** Sent, bounded to the vendor's documented range (`min`/`max`). */
  | 'clamp'
  /** Honoured by the gateway itself (nothing is sent). */
  | 'gateway'
  /** Not sent: the vendor rejects or ignores it (`note` says which). */
  | 'drop';

export interface ParameterRule {
  readonly action: ParameterAction;
  /** The body field it is sent as, when not its own name. */
  readonly field?: string;
  readonly min?: number;
  readonly max?: number;
  /** Why it is dropped or how the gateway honours it; shown in docs/providers.md. */
  readonly note?: string;
}

export type ParameterTable = Readonly<Record<RequestParameter, ParameterRule>>;

export const PASS: ParameterRule = { action: 'pass' };

export function rename(field: string): ParameterRule {
  return { action: 'rename', field };
}

export function clamp(min: number | undefined, max: number | undefined, field?: string): ParameterRule {
  const rule: { action: 'clamp'; min?: number; max?: number; field?: string } = { action: 'clamp' };
  if (min !== undefined) rule.min = min;
  if (max !== undefined) rule.max = max;
  if (field !== undefined) rule.field = field;
  return rule;
}

export function drop(note: string): ParameterRule {
  return { action: 'drop', note };
}

export function gateway(note: string): ParameterRule {
  return { action: 'gateway', note };
}

/** The parameters a table carries or honours: everything not dropped. */
export function supportedParameters(table: ParameterTable): ReadonlySet<RequestParameter> {
  return new Set(REQUEST_PARAMETERS.filter((name) => table[name].action !== 'drop'));
}

/** The body field a parameter is sent as. */
export function fieldOf(table: ParameterTable, name: RequestParameter): string {
  return table[name].field ?? name;
}

/** `value` within the rule's bounds (only `clamp` rules have any). */
export function bounded(rule: ParameterRule, value: number): number {
  if (rule.min !== undefined && value < rule.min) return rule.min;
  if (rule.max !== undefined && value > rule.max) return rule.max;
  return value;
}

/** Every parameter name, in the order docs list them. */
export const ALL_PARAMETERS: readonly RequestParameter[] = REQUEST_PARAMETERS;
