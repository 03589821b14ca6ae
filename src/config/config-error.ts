/**
 * A configuration the gateway cannot start with. `path` names the field
 * (`providers[0].kind`, `server.port`) or the env var (`env PORT`), so the message can
 * point at the line to fix; it never carries a secret value. `detail` is what is wrong
 * (and how to fix it); `file`, when known, is the config file the path is in.
 */
export class ConfigError extends Error {
  readonly path: string;
  readonly detail: string;
  readonly file: string | undefined;

  constructor(path: string, detail: string, file?: string) {
    super(formatConfigError(path, detail, file));
    this.name = 'ConfigError';
    this.path = path;
    this.detail = detail;
    this.file = file;
  }
}

function formatConfigError(path: string, detail: string, file: string | undefined): string {
  if (path.startsWith('env ')) return `${path}: ${detail}`;
  const where = file === undefined ? 'config' : `config error in ${file}`;
  if (path === '') return `${where}: ${detail}`;
  return file === undefined ? `config ${path}: ${detail}` : `${where} at ${path}: ${detail}`;
}

/** Where a loaded config came from: what an error needs to point at the cause. */
export interface ConfigSource {
  /** The YAML file, or undefined when none was given (all defaults). */
  file: string | undefined;
  /** Field path → names of `${VAR}` references in it whose variable was unset or empty (no default). */
  unsetReferences: ReadonlyMap<string, readonly string[]>;
  /** The file's YAML as written (`${VAR}` references unresolved), for the operator's view of it; undefined without a file. */
  tree?: unknown;
}

/**
 * The same error with the file named and, when the field at fault came from a `${VAR}`
 * that is not set, the variable named and how to set it. Other errors pass through.
 */
export function explainConfigError(err: unknown, source: ConfigSource | undefined): unknown {
  if (!(err instanceof ConfigError) || source === undefined) return err;
  if (err.file !== undefined || err.path.startsWith('env ')) return err;
  let detail = err.detail;
  const names = unsetNamesAt(err.path, source.unsetReferences);
  if (names.length > 0) {
    const list = names.map((n) => `\${${n}}`).join(', ');
    detail += ` (the value comes from ${list}, and ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not set: set ${names.length === 1 ? 'it' : 'them'} in the environment, or give a default: \${${names[0]}:-value})`;
  }
  return source.file === undefined && detail === err.detail ? err : new ConfigError(err.path, detail, source.file);
}

function unsetNamesAt(path: string, refs: ReadonlyMap<string, readonly string[]>): string[] {
  const out = new Set<string>();
  for (const [refPath, names] of refs) {
    const related = refPath === path || refPath.startsWith(`${path}.`) || refPath.startsWith(`${path}[`);
    if (related) for (const n of names) out.add(n);
  }
  return [...out];
}
