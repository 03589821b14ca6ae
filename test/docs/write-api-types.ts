import { writeFileSync } from 'node:fs';
import { API_TYPES_FILE, currentApiTypes } from './api-types.ts';

// Rewrites web/src/api/schema.ts from the gateway's OpenAPI document (test/docs/api-types.ts).
writeFileSync(API_TYPES_FILE, await currentApiTypes());
