import { runConformance } from './run-conformance.ts';
import { SIM_SUBJECT } from './subjects/sim-subject.ts';

runConformance(SIM_SUBJECT);
