import { runConformance } from './run-conformance.ts';
import { GOOGLE_SUBJECT } from './subjects/google-subject.ts';

runConformance(GOOGLE_SUBJECT);
