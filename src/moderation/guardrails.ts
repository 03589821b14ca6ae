import { RE2JS } from 're2js';
import { assertNever } from '../canonical/assert-never.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { detect, spansOf, type Span } from './guardrail-detectors.ts';
import type { GuardrailRule } from '../catalog/guardrail-rule.ts';

export type { GuardrailRule } from '../catalog/guardrail-rule.ts';
import { moderatedTexts } from './moderated-texts.ts';

// An account's guardrails (docs/governance.md#guardrails): rules applied to every text the
// model will read, before any upstream call. A rule detects (email, phone, payment card,
// IBAN, credentials, or a custom RE2 pattern) and acts: `block` refuses the request (403
// `content_filtered`, `metadata.reasons` naming the rules), `redact` replaces each match by
// a typed placeholder (`[EMAIL]`). A redact rule that matches a text the gateway cannot
// rewrite (a file, reasoning sent back with its signature, a tool definition) blocks: the
// match never leaves. Which rules fired is reported, never the text.

interface CompiledRule {
  name: string;
  detector: string;
  action: 'block' | 'redact';
  placeholder: string;
  find: (text: string) => Span[];
}

/** A rule that fired on a request: its name, detector and action (never what it matched). */
export interface GuardHit {
  name: string;
  detector: string;
  action: 'block' | 'redact';
}

/** What guarding a request did: the rules that redacted, and those that block it (empty: it may go). */
export interface GuardOutcome {
  hits: GuardHit[];
  blocked: string[];
}

const compiledOf = new WeakMap<readonly GuardrailRule[], readonly CompiledRule[]>();

/** Compiles a rule list once (per stored list object); throws an Error naming a pattern RE2 refuses. */
export function compileGuardrails(rules: readonly GuardrailRule[]): readonly CompiledRule[] {
  let out = compiledOf.get(rules);
  if (out === undefined) {
    out = rules.map((rule) => {
      const name = rule.name ?? rule.detector;
      const placeholder = `[${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}]`;
      if (rule.detector === 'pattern') {
        const re = RE2JS.compile(rule.pattern ?? '');
        return { name, detector: 'pattern', action: rule.action, placeholder, find: (text: string) => spansOf(re, text) };
      }
      const detector = rule.detector;
      return { name, detector, action: rule.action, placeholder, find: (text: string) => detect(detector, text) };
    });
    compiledOf.set(rules, out);
  }
  return out;
}

/**
 * Applies the rules to `req` in place: redacts what it can rewrite, then checks every text
 * the model will read; `blocked` names the rules that refuse it (guardrailRefusal).
 */
export function guardRequest(req: CanonicalRequest, rules: readonly GuardrailRule[]): GuardOutcome {
  const compiled = compileGuardrails(rules);
  // Block rules read the texts as sent (a redaction must not hide a card number from them).
  const blockers = compiled.filter((r) => r.action === 'block');
  const blocking = blockers.length === 0 ? [] : matching(moderatedTexts(req), blockers);
  if (blocking.length > 0) return { hits: blocking.map((r) => hit(r, 'block')), blocked: blocking.map((r) => r.name) };
  const redacting = compiled.filter((r) => r.action === 'redact');
  if (redacting.length === 0) return { hits: [], blocked: [] };
  const fired = new Set<CompiledRule>();
  rewriteTexts(req, (text) => {
    let out = text;
    for (const rule of redacting) {
      const spans = rule.find(out);
      if (spans.length === 0) continue;
      fired.add(rule);
      out = replaceSpans(out, spans, rule.placeholder);
    }
    return out;
  });
  // What a redact rule still finds is in a text the gateway could not rewrite: it blocks.
  const left = matching(moderatedTexts(req), redacting);
  const hits = [...fired].map((r) => hit(r, 'redact'));
  for (const r of left) hits.push(hit(r, 'block'));
  return { hits, blocked: left.map((r) => r.name) };
}

function hit(rule: CompiledRule, action: 'block' | 'redact'): GuardHit {
  return { name: rule.name, detector: rule.detector, action };
}

/** The rules that match any of the texts, in rule order. */
function matching(texts: readonly string[], rules: readonly CompiledRule[]): CompiledRule[] {
  const out: CompiledRule[] = [];
  for (const rule of rules) {
    if (texts.some((text) => rule.find(text).length > 0)) out.push(rule);
  }
  return out;
}

/** The 403 of a request the guardrails refuse: `content_filtered` (as moderation's), `metadata.reasons` the rules' names. */
export function guardrailRefusal(blocked: readonly string[]): GatewayError {
  return new GatewayError('content_filtered', `The input was refused by the account's guardrails (${blocked.join(', ')}).`, {
    metadata: { reasons: [...blocked], guardrails: true },
  });
}

function replaceSpans(text: string, spans: readonly Span[], placeholder: string): string {
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    if (start < at) continue;
    out += text.slice(at, start) + placeholder;
    at = end;
  }
  return out + text.slice(at);
}

/**
 * Rewrites, in place, every text of the request the gateway may change without changing
 * its meaning to the upstream: task inputs, message texts (system, user, assistant, tool
 * results), refusals and tool-call arguments. Files, reasoning (signed) and tool
 * definitions are left as they are (guardRequest blocks what a rule still finds there).
 */
function rewriteTexts(req: CanonicalRequest, fn: (text: string) => string): void {
  const task = req.task;
  if (task !== undefined) {
    switch (task.kind) {
      case 'embedding':
        task.input = task.input.map((input) => (typeof input === 'string' ? fn(input) : input)) as typeof task.input;
        break;
      case 'image':
        task.prompt = fn(task.prompt);
        break;
      case 'speech':
        task.input = fn(task.input);
        if (task.instructions !== undefined) task.instructions = fn(task.instructions);
        break;
      case 'transcription':
        if (task.prompt !== undefined) task.prompt = fn(task.prompt);
        break;
      default:
        assertNever(task);
    }
  }
  for (const m of req.messages) {
    switch (m.role) {
      case 'system':
        for (const p of m.content) p.text = fn(p.text);
        break;
      case 'user':
        for (const p of m.content) if (p.type === 'text') p.text = fn(p.text);
        break;
      case 'assistant':
        if (m.refusal !== undefined) m.refusal = fn(m.refusal);
        for (const p of m.content) {
          if (p.type === 'text') p.text = fn(p.text);
          else if (p.type === 'tool-call') p.arguments = fn(p.arguments);
        }
        break;
      case 'tool':
        for (const p of m.content) {
          if (typeof p.content === 'string') p.content = fn(p.content);
          else for (const c of p.content) if (c.type === 'text') c.text = fn(c.text);
        }
        break;
      default:
        assertNever(m);
    }
  }
}
