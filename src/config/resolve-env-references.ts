import { ConfigError } from './config-error.ts';

type Env = Record<string, string | undefined>;

// `$${...}` is the escape for a literal `${...}`; `[^}]*` so a bad name is reported, not skipped.
const REFERENCE = /\$(\$?)\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string scalar of a parsed YAML tree.
 * Working on the tree, not the raw text, means a value can never inject YAML structure,
 * and an error can name the field. An unset variable becomes the empty string (and an
 * empty optional field counts as absent), as in shells and compose files; `:-` also
 * applies the default when the variable is set but empty.
 */
export function resolveEnvReferences(node: unknown, env: Env, path = '', unset?: Map<string, string[]>): unknown {
  if (typeof node === 'string') return node.includes('${') ? substitute(node, env, path, unset) : node;
  if (Array.isArray(node)) return node.map((item, i) => resolveEnvReferences(item, env, `${path}[${i}]`, unset));
  if (node !== null && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = resolveEnvReferences(value, env, path === '' ? key : `${path}.${key}`, unset);
    }
    return out;
  }
  return node;
}

/**
 * `unset`, when given, collects field path → the variables referenced there without a
 * default that were unset or empty, so an error about that field can name them.
 */
function substitute(text: string, env: Env, path: string, unset: Map<string, string[]> | undefined): string {
  return text.replace(REFERENCE, (_match, escaped: string, body: string) => {
    if (escaped === '$') return '${' + body + '}';
    const split = body.indexOf(':-');
    const name = split === -1 ? body : body.slice(0, split);
    if (!NAME.test(name))
      throw new ConfigError(path, `"\${${body}}" is not a valid environment reference (use \${NAME} or \${NAME:-default})`);
    const value = env[name];
    if (split === -1) {
      if ((value === undefined || value === '') && unset !== undefined) unset.set(path, [...(unset.get(path) ?? []), name]);
      return value ?? '';
    }
    return value === undefined || value === '' ? body.slice(split + 2) : value;
  });
}
