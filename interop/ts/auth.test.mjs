// Interop tests of authentication: the official TypeScript SDK clients (v1
// @modelcontextprotocol/sdk and v2 @modelcontextprotocol/client, pinned in
// tools/npm) send a bearer token to ./examples/auth, which verifies it
// against a JWKS this test serves on loopback with an RSA key it generates;
// an API key works the same way, and a client without a credential is
// turned away with the challenge that leads to the metadata.
//
// Run from the repo root with Node >= 22: node --test interop/ts/auth.test.mjs

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createSign, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { limit, sdk } from './fixture.mjs';

const v1 = {
  Client: sdk('@modelcontextprotocol/sdk/client/index.js').Client,
  Transport: sdk('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport,
};
const v2 = sdk('@modelcontextprotocol/client');

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'ferry-interop-auth-'));
const bin = join(tmp, 'auth');
const issuer = 'https://login.example.com';
const apiKey = 'k-interop-5b1e9a2f';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'interop-1', alg: 'RS256', use: 'sig' };

const b64 = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

// token signs an RS256 access token for subject, valid for an hour.
function token(audience, subject, over = {}) {
  const now = Math.floor(Date.now() / 1000);
  const head = b64({ alg: 'RS256', typ: 'at+jwt', kid: jwk.kid });
  const body = b64({ iss: issuer, aud: audience, sub: subject, scope: 'orders:read', iat: now, exp: now + 3600, ...over });
  const sig = createSign('RSA-SHA256').update(`${head}.${body}`).sign(privateKey).toString('base64url');
  return `${head}.${body}.${sig}`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

let jwks, server, url, fetches = 0;

before(async () => {
  execFileSync('go', ['build', '-o', bin, './examples/auth'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  jwks = createServer((req, res) => {
    fetches++;
    res.setHeader('Content-Type', 'application/jwk-set+json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise((r) => jwks.listen(0, '127.0.0.1', r));
  const port = await freePort();
  url = new URL(`http://127.0.0.1:${port}/mcp`);
  server = spawn(bin, ['-http', `127.0.0.1:${port}`, '-resource', url.href, '-issuer', issuer,
    '-jwks', `http://127.0.0.1:${jwks.address().port}/jwks.json`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, FERRY_API_KEYS: `ci-bot:${apiKey}` },
  });
  let stderr = '';
  server.stderr.on('data', (b) => { stderr += b; });
  for (const deadline = Date.now() + 20_000; ;) {
    if (server.exitCode !== null) throw new Error(`examples/auth exited: ${stderr}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`nothing answers at ${url}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}, { timeout: 300_000 });

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  await new Promise((r) => (jwks ? jwks.close(r) : r()));
  rmSync(tmp, { recursive: true, force: true });
});

// whoami returns the subject the server saw.
async function whoami(client) {
  const res = await client.callTool({ name: 'whoami', arguments: {} });
  assert.ok(!res.isError, JSON.stringify(res));
  return res.structuredContent.subject;
}

describe('SDK v1 client', () => {
  test('a bearer JWT reaches the tool as its subject', limit, async () => {
    const client = new v1.Client({ name: 'ferry-interop-auth', version: '0.0.0' });
    await client.connect(new v1.Transport(url, { requestInit: { headers: { Authorization: `Bearer ${token(url.href, 'alice')}` } } }));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'whoami'));
      assert.equal(await whoami(client), 'alice');
    } finally {
      await client.close();
    }
  });

  test('an API key reaches the tool as its subject', limit, async () => {
    const client = new v1.Client({ name: 'ferry-interop-auth', version: '0.0.0' });
    await client.connect(new v1.Transport(url, { requestInit: { headers: { 'X-API-Key': apiKey } } }));
    try {
      assert.equal(await whoami(client), 'ci-bot');
    } finally {
      await client.close();
    }
  });

  test('without a credential, or with a token for another audience, connect fails', limit, async () => {
    for (const headers of [{}, { Authorization: `Bearer ${token('https://other.example.com/mcp', 'alice')}` }]) {
      const client = new v1.Client({ name: 'ferry-interop-auth', version: '0.0.0' });
      await assert.rejects(client.connect(new v1.Transport(url, { requestInit: { headers } })));
    }
  });
});

describe('SDK v2 client', () => {
  for (const [name, mode] of [['2026-07-28', { pin: '2026-07-28' }], ['legacy', 'legacy']]) {
    test(`${name}: a bearer JWT reaches the tool as its subject`, limit, async () => {
      const client = new v2.Client({ name: 'ferry-interop-auth-v2', version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode } });
      const transport = new v2.StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token(url.href, 'bob')}` } } });
      await client.connect(transport);
      try {
        assert.equal(await whoami(client), 'bob');
      } finally {
        await client.close();
      }
    });
  }
});

describe('the challenge', () => {
  test('401 names the metadata, which names the authorization server', limit, async () => {
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 401);
    const meta = `${url.origin}/.well-known/oauth-protected-resource/mcp`;
    assert.equal(res.headers.get('www-authenticate'), `Bearer scope="orders:read", resource_metadata="${meta}"`);
    const doc = await (await fetch(meta)).json();
    assert.deepEqual(doc, {
      resource: url.href, authorization_servers: [issuer], scopes_supported: ['orders:read'],
      bearer_methods_supported: ['header'], resource_name: 'Orders',
    });
  });

  test('the JWKS was fetched once for every token', limit, () => {
    assert.equal(fetches, 1);
  });
});
