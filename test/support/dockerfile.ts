// The Dockerfile read as Docker reads it, for the tests that check the image without a
// Docker daemon: its stages, each stage's COPY, RUN, ENV and CMD, and .dockerignore's
// patterns (what of the build context a COPY sees).

export interface Instruction {
  op: string;
  args: string;
}

export interface Stage {
  name: string;
  instructions: Instruction[];
}

export interface Copy {
  /** The stage copied from; null: the build context. */
  from: string | null;
  sources: string[];
  dest: string;
}

/** The Dockerfile's stages, in order; continuation lines joined, comments and parser directives dropped. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n');
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    const m = /^(\S+)\s*(.*)$/.exec(line)!;
    const op = m[1]!.toUpperCase();
    const args = m[2]!.replace(/\s+/g, ' ').trim();
    if (op === 'FROM') {
      const as = /\s+AS\s+(\S+)$/i.exec(args);
      stages.push({ name: as?.[1] ?? String(stages.length), instructions: [] });
    }
    stages.at(-1)?.instructions.push({ op, args });
  }
  return stages;
}

export function stage(stages: Stage[], name: string): Stage {
  const s = stages.find((x) => x.name === name);
  if (s === undefined) throw new Error(`no stage ${name} in the Dockerfile`);
  return s;
}

export function args(s: Stage, op: string): string[] {
  return s.instructions.filter((i) => i.op === op).map((i) => i.args);
}

export function copies(s: Stage): Copy[] {
  return args(s, 'COPY').map((a) => {
    const words = a.split(' ');
    const from = words[0]!.startsWith('--from=') ? words.shift()!.slice('--from='.length) : null;
    if (words.some((w) => w.startsWith('--'))) throw new Error(`COPY ${a}: only --from= is understood here`);
    return { from, sources: words.slice(0, -1), dest: words.at(-1)! };
  });
}

/** The stage's ENV, in the KEY=value form. */
export function env(s: Stage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of args(s, 'ENV')) {
    for (const pair of a.split(' ')) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new Error(`ENV ${a}: only KEY=value is understood here`);
      out[pair.slice(0, eq)] = pair.slice(eq + 1).replace(/^"(.*)"$/, '$1');
    }
  }
  return out;
}

/** The stage's last CMD, which must be in the exec (JSON) form. */
export function command(s: Stage): string[] {
  const cmd = args(s, 'CMD').at(-1);
  if (cmd === undefined) throw new Error(`stage ${s.name} has no CMD`);
  return JSON.parse(cmd) as string[];
}

/**
 * .dockerignore as a predicate on context paths (relative, with /): a pattern matches the
 * path or one of its parent folders; `*` spans no `/`, `**` any number of folders; `!`
 * re-includes. The last matching pattern decides, as in Docker.
 */
export function ignoredBy(dockerignore: string): (path: string) => boolean {
  const rules = dockerignore
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const pattern = (negate ? l.slice(1) : l).replace(/^\/+|\/+$/g, '');
      const re = pattern
        .split('/')
        .map((part) =>
          part === '**'
            ? '(?:.*)'
            : part
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/')
        .replace(/\(\?:\.\*\)\//g, '(?:.*/)?');
      return { negate, re: new RegExp(`^${re}$`) };
    });
  return (path) => {
    const parts = path.split('/');
    let ignored = false;
    for (const { negate, re } of rules) {
      for (let i = 1; i <= parts.length; i++) {
        if (re.test(parts.slice(0, i).join('/'))) {
          ignored = !negate;
          break;
        }
      }
    }
    return ignored;
  };
}
