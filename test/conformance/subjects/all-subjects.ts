import type { ConformanceSubject } from '../conformance-types.ts';
import { ANTHROPIC_SUBJECT } from './anthropic-subject.ts';
import { BEDROCK_SUBJECT } from './bedrock-subject.ts';
import { GOOGLE_SUBJECT } from './google-subject.ts';
import { OPENAI_SUBJECTS } from './openai-subjects.ts';
import { SIM_SUBJECT } from './sim-subject.ts';
import { VERTEX_ANTHROPIC_SUBJECT, VERTEX_GEMINI_SUBJECT } from './vertex-subjects.ts';

/** Every subject the suite runs, in the order docs/providers.md lists them. */
export const ALL_SUBJECTS: readonly ConformanceSubject[] = [
  OPENAI_SUBJECTS[0]!, // openai
  OPENAI_SUBJECTS[1]!, // azure
  ANTHROPIC_SUBJECT,
  GOOGLE_SUBJECT,
  BEDROCK_SUBJECT,
  VERTEX_GEMINI_SUBJECT,
  VERTEX_ANTHROPIC_SUBJECT,
  ...OPENAI_SUBJECTS.slice(2),
  SIM_SUBJECT,
];
