import { runConformance } from './run-conformance.ts';
import { OPENAI_SUBJECTS } from './subjects/openai-subjects.ts';

for (const subject of OPENAI_SUBJECTS) runConformance(subject);
