import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The cloud kinds' fields through the real CLI (`config check`): `bedrock` needs a region,
// `vertex` a region and a project, `profile` of a vertex provider names its publisher, and
// each mistake is an error naming the field.

const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;

const MODELS = `models:
  - id: acme/cloud-model
    context_length: 200000
    endpoints:
      - provider: cloud
        model: some-model
        pricing: { prompt: "0.000003", completion: "0.000015" }
`;

describe('config check: bedrock and vertex providers', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-cloud-config-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function check(name: string, provider: string) {
    const path = join(dir, name);
    writeFileSync(path, `sim: false\nproviders:\n  - id: cloud\n${provider}${MODELS}`);
    const r = spawnSync(process.execPath, [BIN, 'config', 'check', '--config', path], {
      env: { ...process.env, SWITCHYARD_CONFIG: '', DATABASE_URL: '', SWITCHYARD_DATA_DIR: join(dir, 'data') },
      encoding: 'utf8',
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  }

  test('a bedrock provider with a region and a vertex provider with a project and region are enabled, no base_url needed', () => {
    const bedrock = check('bedrock-ok.yaml', '    kind: bedrock\n    region: eu-west-1\n    aws_profile: prod\n');
    assert.equal(bedrock.code, 0, bedrock.err);
    assert.match(bedrock.out, /^ {2}cloud +bedrock +enabled/m);
    const vertex = check(
      'vertex-ok.yaml',
      '    kind: vertex\n    profile: anthropic\n    project: my-project-123\n    region: us-east5\n    credentials_file: /etc/switchyard/sa.json\n',
    );
    assert.equal(vertex.code, 0, vertex.err);
    assert.match(vertex.out, /^ {2}cloud +vertex +enabled/m);
  });

  test('bedrock without a region names the field', () => {
    const r = check('bedrock-no-region.yaml', '    kind: bedrock\n');
    assert.equal(r.code, 1);
    assert.match(r.err, /at providers\[0\]\.region: required for kind bedrock/);
  });

  test('vertex without a project, or with an unknown profile, names the field', () => {
    const noProject = check('vertex-no-project.yaml', '    kind: vertex\n    region: us-central1\n');
    assert.equal(noProject.code, 1);
    assert.match(noProject.err, /at providers\[0\]\.project: required for kind vertex/);
    const badProfile = check('vertex-bad-profile.yaml', '    kind: vertex\n    region: us-central1\n    project: p\n    profile: openai\n');
    assert.equal(badProfile.code, 1);
    assert.match(badProfile.err, /at providers\[0\]\.profile: for kind vertex, one of google, anthropic/);
  });

  test('a cloud field on another kind, or a region that is not one, names the field', () => {
    const misplaced = check('misplaced.yaml', '    kind: openai\n    base_url: http://127.0.0.1:9/v1\n    region: us-east-1\n');
    assert.equal(misplaced.code, 1);
    assert.match(misplaced.err, /at providers\[0\]\.region: only for providers of kind bedrock or vertex/);
    const awsOnVertex = check('aws-on-vertex.yaml', '    kind: vertex\n    region: us-central1\n    project: p\n    aws_profile: prod\n');
    assert.match(awsOnVertex.err, /at providers\[0\]\.aws_profile: only for providers of kind bedrock/);
    const badRegion = check('bad-region.yaml', '    kind: bedrock\n    region: "US East"\n');
    assert.equal(badRegion.code, 1);
    assert.match(badRegion.err, /at providers\[0\]\.region: "US East" is not a region/);
  });
});
