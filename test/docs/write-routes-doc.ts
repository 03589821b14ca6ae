import { readFileSync, writeFileSync } from 'node:fs';
import { currentRoutesTable } from './routes-doc-gateway.ts';
import { withRoutesTable } from './render-routes-doc.ts';

// Rewrites docs/security.md's table of routes from the routes' declarations.
const path = new URL('../../docs/security.md', import.meta.url);
writeFileSync(path, withRoutesTable(readFileSync(path, 'utf8'), await currentRoutesTable()));
