// One rule of an account's guardrails, as stored and as the admin API takes it (the
// detectors and the rule's application: moderation/guardrails.ts; docs/governance.md#guardrails).

export type GuardrailDetector = 'email' | 'phone' | 'payment_card' | 'iban' | 'credentials' | 'pattern';
export const GUARDRAIL_DETECTORS: readonly GuardrailDetector[] = ['email', 'phone', 'payment_card', 'iban', 'credentials', 'pattern'];

export interface GuardrailRule {
  /** A built-in detector, or `pattern` with `pattern` set. */
  detector: GuardrailDetector;
  action: 'block' | 'redact';
  /** The RE2 pattern of a `pattern` rule (case-sensitive unless it says `(?i)`). */
  pattern?: string;
  /** The rule's name in reasons and metrics, and its placeholder (`[NAME]`); default the detector's. */
  name?: string;
}
