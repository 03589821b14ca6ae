/**
 * A configuration the gateway cannot start with. `path` names the field
 * (`providers[0].kind`, `server.port`) or the env var (`env PORT`), so the message can
 * point at the line to fix; it never carries a secret value.
 */
export class ConfigError extends Error {
  readonly path: string;

  constructor(path: string, message: string) {
    super(path === '' ? `config: ${message}` : path.startsWith('env ') ? `${path}: ${message}` : `config ${path}: ${message}`);
    this.name = 'ConfigError';
    this.path = path;
  }
}
