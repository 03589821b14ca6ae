import { ConfigError } from './config-error.ts';
import { at, optString, type Fields } from './read-fields.ts';
import type { ProviderInput } from './types.ts';

// The fields of the cloud-hosted kinds (docs/configuration.md): where the cloud serves
// (`region`, `project`) and which of its credentials to use (`aws_profile`,
// `credentials_file`). Secrets themselves never go here: AWS's credential chain and
// Google's ADC find them.

export const CLOUD_PROVIDER_KEYS = ['region', 'aws_profile', 'project', 'credentials_file'] as const;

/** Which kinds take which cloud field. */
const KINDS_OF: Readonly<Record<(typeof CLOUD_PROVIDER_KEYS)[number], readonly string[]>> = {
  region: ['bedrock', 'vertex'],
  aws_profile: ['bedrock'],
  project: ['vertex'],
  credentials_file: ['vertex'],
};

/** `vertex`'s profiles: the publisher whose models it serves, and so the wire it speaks. */
export const VERTEX_PROFILES: readonly string[] = ['google', 'anthropic'];

/** A region or project is a slug: it goes into a host name or a URL path. */
const CLOUD_NAME = /^[a-z0-9][a-z0-9-]*$/;

export function parseCloudFields(fields: Fields, out: ProviderInput, path: string): void {
  for (const key of CLOUD_PROVIDER_KEYS) {
    if (fields[key] === undefined || fields[key] === null) continue;
    if (out.kind === undefined || !KINDS_OF[key].includes(out.kind)) {
      throw new ConfigError(at(path, key), `only for providers of kind ${KINDS_OF[key].join(' or ')}`);
    }
  }
  const region = optString(fields, 'region', path);
  if (region !== undefined) out.region = cloudName(region, at(path, 'region'), 'a region such as us-east-1 or europe-west4');
  const project = optString(fields, 'project', path);
  if (project !== undefined) out.project = cloudName(project, at(path, 'project'), 'a Google Cloud project id such as my-project-123');
  const awsProfile = optString(fields, 'aws_profile', path);
  if (awsProfile !== undefined) out.awsProfile = awsProfile;
  const credentialsFile = optString(fields, 'credentials_file', path);
  if (credentialsFile !== undefined) out.credentialsFile = credentialsFile;

  if (out.kind === 'bedrock' && out.region === undefined) {
    throw new ConfigError(
      at(path, 'region'),
      'required for kind bedrock (the AWS region, e.g. us-east-1: it names the endpoint and signs each request)',
    );
  }
  if (out.kind === 'vertex') {
    if (out.region === undefined)
      throw new ConfigError(at(path, 'region'), 'required for kind vertex (e.g. us-east5, europe-west4, or global)');
    if (out.project === undefined) throw new ConfigError(at(path, 'project'), 'required for kind vertex (the Google Cloud project id)');
    if (out.profile !== undefined && !VERTEX_PROFILES.includes(out.profile)) {
      throw new ConfigError(at(path, 'profile'), `for kind vertex, one of ${VERTEX_PROFILES.join(', ')} (the publisher of its models)`);
    }
  }
}

function cloudName(value: string, path: string, what: string): string {
  if (!CLOUD_NAME.test(value)) throw new ConfigError(path, `"${value}" is not ${what}`);
  return value;
}
