import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** An npm to run `npm start` with: the one running this test, or one on PATH; null when there is none. */
export function npmCommand(): string[] | null {
  const cli = process.env.npm_execpath;
  if (cli !== undefined && cli.endsWith('.js') && existsSync(cli)) return [process.execPath, cli];
  return spawnSync('npm', ['--version']).status === 0 ? ['npm'] : null;
}
