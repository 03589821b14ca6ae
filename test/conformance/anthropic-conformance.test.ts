import { runConformance } from './run-conformance.ts';
import { ANTHROPIC_SUBJECT } from './subjects/anthropic-subject.ts';

runConformance(ANTHROPIC_SUBJECT);
