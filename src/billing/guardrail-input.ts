import { RE2JS } from 're2js';
import { GatewayError } from '../errors/gateway-error.ts';
import { GUARDRAIL_DETECTORS, type GuardrailDetector, type GuardrailRule } from '../catalog/guardrail-rule.ts';

// An account's `guardrails` as the admin API takes them (docs/governance.md#guardrails):
// an array of {detector, action, pattern?, name?}, or null (none). Each refusal is a 400
// `invalid_parameter` naming the rule's field.

export const MAX_GUARDRAILS = 64;
export const MAX_GUARDRAIL_PATTERN_CHARS = 1000;
export const GUARDRAIL_NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const NAME_RE = new RegExp(GUARDRAIL_NAME_PATTERN);

export function readGuardrails(value: unknown): GuardrailRule[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length > MAX_GUARDRAILS) {
    throw new GatewayError('invalid_parameter', `"guardrails" must be an array of at most ${MAX_GUARDRAILS} rules, or null (none).`, {
      param: 'guardrails',
    });
  }
  const names = new Set<string>();
  return value.map((raw, i) => {
    const at = `guardrails[${i}]`;
    const bad = (field: string, why: string): GatewayError =>
      new GatewayError('invalid_parameter', `"${at}.${field}" ${why}`, { param: `${at}.${field}` });
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      throw new GatewayError('invalid_parameter', `"${at}" must be a rule object.`, { param: at });
    const r = raw as Record<string, unknown>;
    for (const k of Object.keys(r))
      if (!['detector', 'action', 'pattern', 'name'].includes(k))
        throw bad(k, 'is not a field of a rule (detector, action, pattern, name).');
    if (!GUARDRAIL_DETECTORS.includes(r.detector as GuardrailDetector))
      throw bad('detector', `must be one of ${GUARDRAIL_DETECTORS.join(', ')}.`);
    if (r.action !== 'block' && r.action !== 'redact') throw bad('action', 'must be "block" or "redact".');
    const rule: GuardrailRule = { detector: r.detector as GuardrailDetector, action: r.action };
    if (r.detector === 'pattern') {
      if (typeof r.pattern !== 'string' || r.pattern.length === 0 || r.pattern.length > MAX_GUARDRAIL_PATTERN_CHARS) {
        throw bad('pattern', `must be an RE2 pattern of 1 to ${MAX_GUARDRAIL_PATTERN_CHARS} characters.`);
      }
      try {
        RE2JS.compile(r.pattern);
      } catch (err) {
        throw bad(
          'pattern',
          `is not a pattern the linear-time (RE2) engine accepts: ${(err as Error).message.replace(/^error parsing regexp: /, '')}.`,
        );
      }
      if (r.name === undefined) throw bad('name', 'is required for a pattern rule (it names the rule in reasons and its placeholder).');
      rule.pattern = r.pattern;
    } else if (r.pattern !== undefined) {
      throw bad('pattern', 'is only for detector "pattern".');
    }
    if (r.name !== undefined) {
      if (typeof r.name !== 'string' || !NAME_RE.test(r.name)) throw bad('name', 'must be 1 to 64 letters, digits, "_" or "-".');
      rule.name = r.name;
    }
    const name = rule.name ?? rule.detector;
    if (names.has(name)) throw bad('name', `"${name}" names another rule already: give each rule its own name.`);
    names.add(name);
    return rule;
  });
}
