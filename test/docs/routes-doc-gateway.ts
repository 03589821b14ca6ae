import { SIM_ONLY, startTestGateway } from '../support/test-gateway.ts';
import { describeRoutes } from '../../src/server/route-access.ts';
import { renderRoutesTable } from './render-routes-doc.ts';

/** The routes table of a gateway built with the default config (and a metrics token, so /metrics shows its kind). */
export async function currentRoutesTable(): Promise<string> {
  const gw = await startTestGateway({ yaml: `${SIM_ONLY}metrics:\n  token: docs-token\n` });
  try {
    return renderRoutesTable(describeRoutes(gw.app), gw.services.inForce.config.server.bodyLimitBytes);
  } finally {
    await gw.close();
  }
}
