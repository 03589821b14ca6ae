import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalRequest } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { pdfEngineOf } from './file-parser-plugin.ts';

const withPlugins = (plugins: unknown): CanonicalRequest => ({
  models: [],
  messages: [],
  sampling: {},
  stream: false,
  extra: plugins === undefined ? {} : { plugins },
});

function refused(plugins: unknown): GatewayError {
  try {
    pdfEngineOf(withPlugins(plugins));
  } catch (err) {
    assert.ok(err instanceof GatewayError);
    return err;
  }
  assert.fail('expected a 400');
}

describe("the file-parser plugin's PDF engine", () => {
  test('auto without the plugin, or with a plugin that names no engine', () => {
    assert.equal(pdfEngineOf(withPlugins(undefined)), 'auto');
    assert.equal(pdfEngineOf(withPlugins([{ id: 'web' }])), 'auto');
    assert.equal(pdfEngineOf(withPlugins([{ id: 'file-parser' }])), 'auto');
    assert.equal(pdfEngineOf(withPlugins([{ id: 'file-parser', pdf: {} }])), 'auto');
    assert.equal(pdfEngineOf(withPlugins('not a list')), 'auto', 'the upstream judges other shapes, as before');
  });

  test('pdf-text and native, wherever the plugin sits in the list', () => {
    assert.equal(pdfEngineOf(withPlugins([{ id: 'file-parser', pdf: { engine: 'pdf-text' } }])), 'pdf-text');
    assert.equal(pdfEngineOf(withPlugins([{ id: 'web' }, { id: 'file-parser', pdf: { engine: 'native' } }])), 'native');
  });

  test('other engines and malformed options are a 400 invalid_parameter naming the field', () => {
    for (const engine of ['mistral-ocr', 'cloudflare-ai', 'PDF-TEXT', 7]) {
      const err = refused([{ id: 'file-parser', pdf: { engine } }]);
      assert.equal(err.code, 'invalid_parameter');
      assert.equal(err.param, 'plugins[0].pdf.engine');
      assert.match(err.message, /'pdf-text'.*'native'/);
    }
    assert.equal(refused([{ id: 'web' }, { id: 'file-parser', pdf: 'pdf-text' }]).param, 'plugins[1].pdf');
  });
});
