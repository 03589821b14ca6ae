import { runConformance } from './run-conformance.ts';
import { VERTEX_ANTHROPIC_SUBJECT, VERTEX_GEMINI_SUBJECT } from './subjects/vertex-subjects.ts';

runConformance(VERTEX_GEMINI_SUBJECT);
runConformance(VERTEX_ANTHROPIC_SUBJECT);
