import { runConformance } from './run-conformance.ts';
import { BEDROCK_SUBJECT } from './subjects/bedrock-subject.ts';

runConformance(BEDROCK_SUBJECT);
