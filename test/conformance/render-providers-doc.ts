// Renders the generated parts of docs/providers.md from the conformance subjects (which
// cases each provider passes, which it skips and why) and the adapters' parameter tables.
// providers-doc.test.ts fails when the doc and this disagree;
// `node test/conformance/write-providers-doc.ts` brings the doc up to date.

import { assertNever } from '../../src/canonical/stream-part.ts';
import { GEMINI_RULES } from '../../src/providers/google/gemini-parameters.ts';
import { OPENAI_PROFILES } from '../../src/providers/openai/openai-profiles.ts';
import { ALL_PARAMETERS, type ParameterRule, type ParameterTable } from '../../src/providers/parameter-rules.ts';
import type { CaseId, ConformanceSubject } from './conformance-types.ts';
import { CONFORMANCE_CASES } from './conformance-cases.ts';
import { ALL_SUBJECTS } from './subjects/all-subjects.ts';

export const DOC_PATH = new URL('../../docs/providers.md', import.meta.url);

const FEATURES: ReadonlyArray<{ title: string; cases: readonly CaseId[] }> = [
  { title: 'Streaming', cases: ['streaming'] },
  { title: 'Tools', cases: ['tool-call-round-trip', 'parallel-tool-calls'] },
  { title: 'Structured output', cases: ['structured-output'] },
  { title: 'Images', cases: ['image-input'] },
  { title: 'PDFs', cases: ['pdf-input'] },
  { title: 'Audio in', cases: ['audio-input'] },
  { title: 'Reasoning', cases: ['reasoning'] },
  { title: 'Caching', cases: ['prompt-caching'] },
];

function adapterOf(s: ConformanceSubject): string {
  const profile = s.config.profile;
  return profile === undefined ? `\`${s.adapter.kind}\`` : `\`${s.adapter.kind}\` (\`${profile}\`)`;
}

export function renderFeatureTable(subjects: readonly ConformanceSubject[] = ALL_SUBJECTS): string {
  const head = ['Provider', 'Adapter', ...FEATURES.map((f) => f.title), 'Provider-specific parameters'];
  const rows = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const s of subjects) {
    const cells = FEATURES.map((f) => (f.cases.every((c) => s.skips[c] === undefined) ? 'yes' : 'no'));
    const params = s.providerParameters.length === 0 ? '—' : s.providerParameters.map((p) => `\`${p}\``).join(', ');
    rows.push(`| \`${s.provider}\` | ${adapterOf(s)} | ${cells.join(' | ')} | ${params} |`);
  }
  return rows.join('\n');
}

export function renderSkips(subjects: readonly ConformanceSubject[] = ALL_SUBJECTS): string {
  const lines: string[] = [];
  for (const s of subjects) {
    const skipped = CONFORMANCE_CASES.filter((c) => s.skips[c.id] !== undefined);
    if (skipped.length === 0) {
      lines.push(`- \`${s.provider}\`: passes every case.`);
      continue;
    }
    // Cases skipped for one reason share a line.
    const byReason = new Map<string, string[]>();
    for (const c of skipped) {
      const reason = s.skips[c.id]!;
      byReason.set(reason, [...(byReason.get(reason) ?? []), `\`${c.id}\``]);
    }
    const parts = [...byReason].map(([reason, ids]) => `${ids.join(', ')}: ${reason}`);
    lines.push(`- \`${s.provider}\`: ${parts.join('; ')}.`);
  }
  return lines.join('\n');
}

/** The parameter tables, one column per provider. */
const PARAMETER_COLUMNS: ReadonlyArray<{ provider: string; table: ParameterTable }> = [
  ...['openai', 'azure', 'xai', 'mistral', 'groq', 'deepseek', 'together', 'fireworks', 'openrouter', 'ollama', 'vllm', 'generic'].map(
    (name) => ({ provider: name, table: OPENAI_PROFILES.get(name)!.rules }),
  ),
  { provider: 'google', table: GEMINI_RULES },
];

function cell(rule: ParameterRule, name: string): string {
  switch (rule.action) {
    case 'pass':
      return '✓';
    case 'rename':
      return `→ \`${rule.field}\``;
    case 'clamp':
      return `${rule.field !== undefined && rule.field !== name ? `→ \`${rule.field}\` ` : ''}[${rule.min ?? ''}, ${rule.max ?? ''}]`;
    case 'gateway':
      return 'gateway';
    case 'drop':
      return '✗';
    default:
      return assertNever(rule.action);
  }
}

export function renderParameterTable(): string {
  const head = ['Parameter', ...PARAMETER_COLUMNS.map((c) => `\`${c.provider}\``)];
  const rows = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const name of ALL_PARAMETERS) {
    rows.push(`| \`${name}\` | ${PARAMETER_COLUMNS.map((c) => cell(c.table[name], name)).join(' | ')} |`);
  }
  return rows.join('\n');
}

export function renderDropNotes(): string {
  const lines: string[] = [];
  for (const { provider, table } of PARAMETER_COLUMNS) {
    const byNote = new Map<string, string[]>();
    for (const name of ALL_PARAMETERS) {
      const rule = table[name];
      if (rule.action !== 'drop' && rule.action !== 'gateway') continue;
      byNote.set(rule.note!, [...(byNote.get(rule.note!) ?? []), `\`${name}\``]);
    }
    const parts = [...byNote].map(([note, names]) => `${names.join(', ')}: ${note}`);
    lines.push(`- \`${provider}\`: ${parts.join('; ')}.`);
  }
  return lines.join('\n');
}

const SECTIONS: Readonly<Record<string, () => string>> = {
  'feature-table': () => renderFeatureTable(),
  skips: () => renderSkips(),
  'parameter-table': () => renderParameterTable(),
  'parameter-notes': () => renderDropNotes(),
};

/** The doc with every generated section re-rendered. */
export function renderDoc(doc: string): string {
  let out = doc;
  for (const [name, render] of Object.entries(SECTIONS)) {
    const begin = `<!-- generated:${name} -->`;
    const end = `<!-- /generated:${name} -->`;
    const from = out.indexOf(begin);
    const to = out.indexOf(end);
    if (from === -1 || to === -1 || to < from) throw new Error(`docs/providers.md lacks the ${name} markers`);
    out = `${out.slice(0, from + begin.length)}\n${render()}\n${out.slice(to)}`;
  }
  return out;
}
