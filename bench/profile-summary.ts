// Summarizes a V8 CPU profile: node bench/profile-summary.ts <file.cpuprofile> [top]
// (`npm run bench -- --profile` writes one for the gateway and prints this summary.)

import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatProfile, summarizeProfile } from './lib/profile.ts';

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: node bench/profile-summary.ts <file.cpuprofile> [top]\n');
  process.exit(2);
}
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
process.stdout.write(`${formatProfile(summarizeProfile(file, root, Number(process.argv[3] ?? 25)))}\n`);
