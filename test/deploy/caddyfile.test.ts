import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { SHIPPED_CADDYFILE } from '../support/caddy.js';

// The domains tests run Caddy on this file templated for their ports; this checks the file as operators get it.
test('deploy/Caddyfile as shipped: on-demand TLS that asks the service at its default address, and HSTS', (t) => {
  if (!existsSync('/usr/bin/caddy')) {
    t.skip('/usr/bin/caddy is not installed (Debian caddy package)');
    return;
  }
  const result = spawnSync(
    '/usr/bin/caddy',
    ['adapt', '--config', SHIPPED_CADDYFILE, '--adapter', 'caddyfile'],
    {
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  assert.equal(result.status, 0, result.stderr);
  const config = JSON.stringify(JSON.parse(result.stdout));
  assert.match(config, /"ask":"http:\/\/127\.0\.0\.1:8080\/internal\/tls\/ask"/);
  assert.match(config, /"on_demand":true/);
  assert.match(config, /"dial":"127\.0\.0\.1:8080"/);
  assert.match(config, /"Strict-Transport-Security":\["max-age=31536000"\]/);
});
