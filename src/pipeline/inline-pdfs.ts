import type { CanonicalRequest } from '../canonical/request.ts';
import type { ModelAccess } from '../catalog/model-access.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { AttemptPlanner } from '../routing/plan-attempts.ts';
import type { FileParser } from './file-parser/file-parser.ts';
import { pdfEngineOf } from './file-parser/file-parser-plugin.ts';

/**
 * The request's inline PDFs become their text when its `file-parser` plugin asks for
 * `pdf-text`, or, without the plugin, when no endpoint of its plan reads PDFs (a plan
 * whose context the PDFs as files overflow counts as one that does not). `native` keeps
 * them as files. Throws the plugin's 400 and the extraction's 400 and 413. Done at
 * admission before the estimate: a PDF sent as its text is held and charged as text.
 */
export async function readInlinePdfs(
  req: CanonicalRequest,
  files: FileParser | undefined,
  planner: AttemptPlanner,
  access: ModelAccess | null,
): Promise<void> {
  if (files === undefined) return;
  const engine = pdfEngineOf(req);
  if (req.inlinePdfs === undefined || engine === 'native') return;
  if (engine === 'auto' && planReadsPdf(req, files, planner, access)) return;
  await files.replacePdfs(req);
}

function planReadsPdf(req: CanonicalRequest, files: FileParser, planner: AttemptPlanner, access: ModelAccess | null): boolean {
  let plan: PlannedAttempt[];
  try {
    plan = planner.plan(req, undefined, null, access);
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'context_length_exceeded') return false;
    throw err;
  }
  return plan.some((a) => files.readsPdf(a.endpoint));
}
