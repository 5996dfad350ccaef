// Interop tests of the OpenAPI gateway: the TypeScript SDK clients, v1
// (@modelcontextprotocol/sdk) and v2 (@modelcontextprotocol/client, pinned
// to 2026-07-28 and in legacy mode), against `ferry serve -openapi`, built
// from ./cmd/ferry, in front of a real HTTP service this test runs on
// loopback (the items API of openapi/testdata/gateway/openapi.yaml): calls,
// the API's refusals, an API that is slow, huge, failing, down or
// redirecting elsewhere, hostile values, and the credential rules.
//
// Run from the repo root with Node >= 22: node --test interop/ts/openapi.test.mjs

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { limit, sdk, stop, text } from './fixture.mjs';

const V1 = {
  Client: sdk('@modelcontextprotocol/sdk/client/index.js').Client,
  Transport: sdk('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport,
};
const V2 = {
  Client: sdk('@modelcontextprotocol/client').Client,
  Transport: sdk('@modelcontextprotocol/client').StreamableHTTPClientTransport,
};

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const doc = join(root, 'openapi', 'testdata', 'gateway', 'openapi.yaml');
const tmp = mkdtempSync(join(tmpdir(), 'ferry-interop-openapi-'));
const bin = join(tmp, 'ferry');

// The API: counts what reaches it, and what its endless answer wrote.
const api = { hits: 0, huge: 0, elsewhere: 0 };
let apiServer, elsewhereServer, apiURL, elsewhereURL;

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
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

// handle is the items API under /v1.
function handle(req, res) {
  api.hits++;
  const url = new URL(req.url, 'http://x');
  let body = '';
  req.on('data', (b) => { body += b; });
  req.on('end', () => {
    const echo = (status) => {
      const header = {};
      for (const k of ['x-api-key', 'x-client', 'authorization', 'cookie', 'mcp-session-id']) {
        if (req.headers[k]) header[k] = req.headers[k];
      }
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, uri: req.url, body, header }));
    };
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /v1/items':
        return echo(200);
      case 'POST /v1/items':
        res.writeHead(422, { 'Content-Type': 'application/problem+json' });
        return res.end(JSON.stringify({ detail: 'The item is not valid.', errors: [{ location: 'body.name', message: 'must be a plain name' }] }));
      case 'GET /v1/slow':
        return; // never answers; the gateway gives up
      case 'GET /v1/huge': {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        const chunk = Buffer.alloc(32 << 10, 'x');
        let sent = 0;
        const more = () => {
          while (sent < 2048) {
            sent++;
            api.huge += chunk.length;
            if (!res.write(chunk)) return res.once('drain', more);
          }
          res.end();
        };
        res.on('close', () => { sent = 2048; });
        return more();
      }
      case 'GET /v1/broken':
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        return res.end('panic at items.js:42');
      case 'GET /v1/moved':
        res.writeHead(302, { Location: `${elsewhereURL}/v1/items/stolen` });
        return res.end();
      default:
        if (req.method === 'GET' && url.pathname.startsWith('/v1/items/')) return echo(200);
        res.writeHead(404);
        return res.end();
    }
  });
}

// startGateway runs ferry serve -openapi against upstream and resolves to
// its process and MCP endpoint once it answers.
async function startGateway(upstream, args = [], env = {}) {
  const port = await freePort();
  const proc = spawn(bin, ['serve', '-openapi', doc, '-upstream', upstream, '-http', `127.0.0.1:${port}`, '-writes',
    '-upstream-timeout', '1s', '-upstream-max-bytes', '65536', ...args],
  { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  proc.stderr.on('data', (b) => { stderr += b; });
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  for (const deadline = Date.now() + 20_000; ;) {
    if (proc.exitCode !== null) throw new Error(`ferry serve exited (${proc.exitCode}): ${stderr}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return { proc, url };
    } catch {
      if (Date.now() > deadline) throw new Error(`nothing answers at ${url}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

before(async () => {
  execFileSync('go', ['build', '-o', bin, '.'], { cwd: join(root, 'cmd', 'ferry'), stdio: ['ignore', 'inherit', 'inherit'] });
  apiServer = createServer(handle);
  elsewhereServer = createServer((req, res) => { api.elsewhere++; res.end(); });
  apiURL = await listen(apiServer);
  elsewhereURL = await listen(elsewhereServer);
}, { timeout: 300_000 });
after(() => {
  apiServer?.closeAllConnections();
  apiServer?.close();
  elsewhereServer?.close();
  rmSync(tmp, { recursive: true, force: true });
});

// connect returns a client of the given SDK that sends the MCP client's
// own token, which the API must never see unless the operator passes it.
async function connect(SDK, url, options) {
  const client = new SDK.Client({ name: 'ferry-interop-openapi', version: '0.0.0' }, options);
  await client.connect(new SDK.Transport(url, { requestInit: { headers: { Authorization: 'Bearer mcp-client-token' } } }));
  return client;
}

const clients = [
  { name: 'v1', SDK: V1 },
  { name: 'v2 pinned 2026-07-28', SDK: V2, options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
  { name: 'v2 legacy', SDK: V2, options: { versionNegotiation: { mode: 'legacy' } } },
];

for (const c of clients) {
  describe(`${c.name} client through ferry serve -openapi`, () => {
    let gw, passing, down, client, passClient, downClient;
    before(async () => {
      const key = { ITEMS_KEY: 'X-Api-Key: k-configured' };
      gw = await startGateway(`${apiURL}/v1`, ['-upstream-header-env', 'ITEMS_KEY'], key);
      passing = await startGateway(`${apiURL}/v1`, ['-upstream-header-env', 'ITEMS_KEY', '-upstream-pass-header', 'Authorization'], key);
      down = await startGateway(`http://127.0.0.1:${await freePort()}`);
      client = await connect(c.SDK, gw.url, c.options);
      passClient = await connect(c.SDK, passing.url, c.options);
      downClient = await connect(c.SDK, down.url, c.options);
    }, { timeout: 60_000 });
    after(async () => {
      for (const cl of [client, passClient, downClient]) await cl?.close();
      for (const s of [gw, passing, down]) if (s) await stop(s.proc);
    });

    const seen = async (cl, name, args) => {
      const res = await cl.callTool({ name, arguments: args });
      assert.ok(!res.isError, text(res));
      return JSON.parse(text(res));
    };

    test('calls reach the API with their arguments escaped, and its key from the environment', limit, async () => {
      assert.equal((await seen(client, 'get_item', { id: 'a/b c' })).uri, '/v1/items/a%2Fb%20c');
      const s = await seen(client, 'search_items', { q: 'x&admin=true' });
      assert.equal(s.uri, '/v1/items?q=x%26admin%3Dtrue');
      assert.deepEqual(s.header, { 'x-api-key': 'k-configured' });
    });

    test("the MCP client's token reaches the API only through a passed header", limit, async () => {
      const s = await seen(passClient, 'search_items', { q: 'x' });
      assert.equal(s.header.authorization, 'Bearer mcp-client-token');
      assert.equal(s.header.cookie, undefined);
    });

    test('hostile values are refused before anything is sent', limit, async () => {
      const before = api.hits;
      const traversal = await client.callTool({ name: 'get_item', arguments: { id: '../../admin' } });
      assert.equal(traversal.isError, true);
      assert.equal(text(traversal), 'invalid arguments:\n- id: must not hold "." or ".." between slashes: it fills a segment of the route\'s path');
      const crlf = await client.callTool({ name: 'search_items', arguments: { q: 'x', 'X-Client': 'a\r\nX-Api-Key: stolen' } });
      assert.equal(text(crlf), 'invalid arguments:\n- X-Client: must not hold control characters: it goes in a header');
      assert.equal(api.hits, before);
    });

    test("the API's refusals and failures are refusals the model reads", limit, async () => {
      const cases = [
        ['create_item', { name: '<b>' }, 'invalid: The item is not valid.\n- name: must be a plain name'],
        ['slow', {}, 'unavailable: The API did not answer within 1s; try again later.'],
        ['broken', {}, 'unavailable: The API failed: it answered 500 Internal Server Error.'],
        ['moved', {}, 'unavailable: The API redirected the request to another host, which this gateway does not follow.'],
      ];
      for (const [name, args, want] of cases) {
        const res = await client.callTool({ name, arguments: args });
        assert.equal(res.isError, true, name);
        assert.equal(text(res), want);
      }
      assert.equal(api.elsewhere, 0);
      const res = await downClient.callTool({ name: 'get_item', arguments: { id: '1' } });
      assert.equal(text(res), 'unavailable: The API cannot be reached; try again later.');
    });

    test('a huge answer is cut at the bound, and not read on', limit, async () => {
      const res = await client.callTool({ name: 'huge', arguments: {} });
      const t = text(res);
      assert.ok(t.endsWith('[cut: the answer is longer than 65536 bytes, which is all this tool reads]'), t.slice(-120));
      assert.ok(t.length < 70 << 10, `${t.length} bytes`);
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(api.huge < 16 << 20, `the API wrote ${api.huge} bytes`);
    });
  });
}
