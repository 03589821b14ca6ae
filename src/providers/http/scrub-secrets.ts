import { GatewayError } from '../../errors/gateway-error.ts';

// What leaves the gateway (error answers, in-stream errors, log lines) never carries an
// upstream credential, even when an upstream repeats our request headers in its error. Two
// nets: the configured secrets themselves (provider keys, provider header values, the
// moderation key), known at boot; and credential shapes, for whatever else may come back
// (Bearer tokens, OpenAI/Anthropic/Google/AWS keys, header and query-string echoes). Both
// replace the secret with [REDACTED]; values under a credential-named key are replaced whole.

export const REDACTED = '[REDACTED]';

/** Configured secrets shorter than this are not searched for: they would redact ordinary words. */
const MIN_SECRET_LENGTH = 8;

const CREDENTIAL_NAMES = 'authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie|x-amz-security-token';
const CREDENTIAL_KEY = new RegExp(`^(?:${CREDENTIAL_NAMES}|api_key|apikey|access_token|secret_access_key|aws_secret_access_key)$`, 'i');

/** Each pattern keeps its group 1 (the name, or the scheme) and redacts the rest of the match. */
const PATTERNS: readonly RegExp[] = [
  // A header echoed as JSON ("authorization":"..."), as text (x-api-key: ...), or as a query parameter.
  new RegExp(`((?:${CREDENTIAL_NAMES})\\\\?"\\s*:\\s*\\\\?")[^"\\\\\\r\\n]+`, 'gi'),
  new RegExp(`(\\b(?:${CREDENTIAL_NAMES})\\s*[:=]\\s*)(?:(?:Bearer|Basic)\\s+)?[^\\s,;"'\\\\}]+`, 'gi'),
  /([?&](?:key|api_key|api-key|access_token)=)[^&\s"'\\]+/gi,
  /(\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]+/gi,
  /()\bsk-[A-Za-z0-9_-]{16,}/g, // OpenAI (sk-, sk-proj-) and Anthropic (sk-ant-) keys
  /()\bAIza[0-9A-Za-z_-]{30,}/g, // Google API keys
  /()\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /((?:aws_secret_access_key|secretaccesskey)\\?"?\s*[:=]\s*\\?"?)[A-Za-z0-9/+=]{40}/gi,
];

/** Short texts scrubbed are remembered (per scrubber), at most this many, this long. */
const MEMO_ENTRIES = 256;
const MEMO_MAX_LENGTH = 256;

export class SecretScrubber {
  private readonly secrets: readonly string[];
  /**
   * Short texts already scrubbed, and what they became: the request log scrubs the same
   * few model names, titles and referers on every request, and each pass is 8 regular
   * expressions over the text (issue 29: the request log's cost). A pure function of the
   * text and this scrubber's secrets, so the memo answers what a new pass would.
   */
  private readonly memo = new Map<string, string>();

  constructor(secrets: Iterable<string>) {
    const unique = new Set<string>();
    for (const s of secrets) if (s.length >= MIN_SECRET_LENGTH) unique.add(s);
    // Longest first, so a secret containing another is replaced whole.
    this.secrets = [...unique].sort((a, b) => b.length - a.length);
  }

  /** This scrubber and `other`'s secrets together. */
  with(other: SecretScrubber): SecretScrubber {
    return new SecretScrubber([...this.secrets, ...other.secrets]);
  }

  text(text: string): string {
    if (text.length > MEMO_MAX_LENGTH) return this.scrub(text);
    const known = this.memo.get(text);
    if (known !== undefined) return known;
    const out = this.scrub(text);
    if (this.memo.size >= MEMO_ENTRIES) this.memo.clear();
    this.memo.set(text, out);
    return out;
  }

  private scrub(text: string): string {
    let out = text;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    for (const pattern of PATTERNS) out = out.replace(pattern, redactAfterGroup);
    return out;
  }

  /** A JSON-like value with every string scrubbed and credential-named fields redacted whole. */
  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[this.text(k)] = CREDENTIAL_KEY.test(k) && v !== null && v !== undefined ? REDACTED : this.value(v);
    return out;
  }

  /** The error as sent to a client: its message and metadata scrubbed, all else as it was. */
  error(err: GatewayError): GatewayError {
    const opts: ConstructorParameters<typeof GatewayError>[2] = { retryable: err.retryable, status: err.status };
    if (err.metadata !== undefined) opts.metadata = this.value(err.metadata) as Record<string, unknown>;
    if (err.headers !== undefined) opts.headers = err.headers;
    if (err.param !== undefined) opts.param = err.param;
    if (err.detail !== undefined) opts.detail = this.text(err.detail);
    return new GatewayError(err.code, this.text(err.message), opts);
  }
}

function redactAfterGroup(_match: string, kept: string): string {
  return `${kept}${REDACTED}`;
}

// The process's own log lines (stderr) go through every secret any gateway of this process
// was configured with: code that logs (an internal error's stack) has no services at hand.
let processScrubber = new SecretScrubber([]);

/** Adds a gateway's secrets to those scrubbed from the process's log lines (called at boot). */
export function scrubInProcessLogs(scrubber: SecretScrubber): void {
  processScrubber = processScrubber.with(scrubber);
}

/** Writes one line to stderr, scrubbed. */
export function logSafely(line: string): void {
  process.stderr.write(`${processScrubber.text(line)}\n`);
}
