import { GatewayError } from '../errors/gateway-error.ts';
import { MAX_AMOUNT_NANOS, MAX_AMOUNT_USD } from '../money/amount-bounds.ts';
import { usdToNanos } from '../money/money.ts';
import { BUDGET_RESETS, MEMBER_ROLES, type BudgetReset, type MemberRole } from '../store/member-store.ts';
import { checkName } from './account-input.ts';

// The fields of a member as the management API, the admin API and the CLI take them; each
// refusal is a 400 naming the field.

export const MAX_EMAIL_CHARS = 254;
/** Entries of `allowed_models` (ids and globs), and characters of each. */
export const MAX_ALLOWED_MODELS = 256;
const MAX_MODEL_CHARS = 200;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkEmail(v: unknown, field = 'email'): string {
  if (typeof v !== 'string' || v.length > MAX_EMAIL_CHARS || !EMAIL.test(v.trim())) {
    throw new GatewayError('invalid_parameter', `"${field}" must be an email address (at most ${MAX_EMAIL_CHARS} characters).`, {
      param: field,
    });
  }
  return v.trim();
}

export function checkRole(v: unknown, field = 'role'): MemberRole {
  if (typeof v !== 'string' || !(MEMBER_ROLES as readonly string[]).includes(v)) {
    throw new GatewayError('invalid_parameter', `"${field}" must be one of ${MEMBER_ROLES.join(', ')}.`, { param: field });
  }
  return v as MemberRole;
}

export function checkMemberName(v: unknown, field = 'name'): string {
  if (typeof v !== 'string') throw new GatewayError('invalid_parameter', `"${field}" must be a non-empty string.`, { param: field });
  return checkName(v.trim(), field);
}

/** `allowed_models`: model ids and globs (`anthropic/*`), or null (the account's). */
export function checkAllowedModels(v: unknown, field = 'allowed_models'): string[] | null {
  if (v === null) return null;
  if (
    !Array.isArray(v) ||
    v.length > MAX_ALLOWED_MODELS ||
    !v.every((m) => typeof m === 'string' && m.trim() !== '' && m.length <= MAX_MODEL_CHARS)
  ) {
    throw new GatewayError(
      'invalid_parameter',
      `"${field}" must be null or an array of at most ${MAX_ALLOWED_MODELS} model ids or globs (non-empty strings of at most ${MAX_MODEL_CHARS} characters).`,
      { param: field },
    );
  }
  return [...new Set((v as string[]).map((m) => m.trim()))];
}

/** `budget`: {amount: USD, reset: daily|weekly|monthly|none}, or null (none). Refusals name the field (`budget.amount`...). */
export function checkBudget(v: unknown, field = 'budget'): { amountNanos: bigint; reset: BudgetReset } | null {
  if (v === null) return null;
  const bad = (param: string, what: string): GatewayError => new GatewayError('invalid_parameter', `"${param}" ${what}`, { param });
  if (typeof v !== 'object' || Array.isArray(v)) throw bad(field, 'must be null or an object {amount, reset}.');
  const { amount, reset, ...rest } = v as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw bad(`${field}.${unknown}`, 'is not a budget field (known: amount, reset).');
  if (amount === undefined) throw bad(`${field}.amount`, 'is required: a USD amount.');
  const text = typeof amount === 'number' || typeof amount === 'string' ? String(amount) : '';
  const amountRule = `must be a USD amount from 0 to ${MAX_AMOUNT_USD} with at most 9 decimals.`;
  if (text.length > 64 || !/^\d+(\.\d{1,9})?$/.test(text)) throw bad(`${field}.amount`, amountRule);
  const nanos = usdToNanos(text);
  if (nanos > MAX_AMOUNT_NANOS) throw bad(`${field}.amount`, amountRule);
  const r = reset ?? 'none';
  if (typeof r !== 'string' || !(BUDGET_RESETS as readonly string[]).includes(r))
    throw bad(`${field}.reset`, `must be one of ${BUDGET_RESETS.join(', ')}.`);
  return { amountNanos: nanos, reset: r as BudgetReset };
}
