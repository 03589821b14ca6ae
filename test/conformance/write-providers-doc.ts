// Rewrites the generated sections of docs/providers.md: node test/conformance/write-providers-doc.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { DOC_PATH, renderDoc } from './render-providers-doc.ts';

writeFileSync(DOC_PATH, renderDoc(readFileSync(DOC_PATH, 'utf8')));
