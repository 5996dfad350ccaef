// Interop tests: the TypeScript SDK clients, v1 (@modelcontextprotocol/sdk)
// and v2 (@modelcontextprotocol/client, pinned to 2026-07-28 and in legacy
// mode), against examples/orders, whose tools are bound to its REST routes:
// list, call, a refusal from the service, and one from its API-key
// middleware, over Streamable HTTP.
//
// Run from the repo root with Node >= 22: node --test interop/ts/route.test.mjs

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
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
const tmp = mkdtempSync(join(tmpdir(), 'ferry-interop-orders-'));
const bin = join(tmp, 'orders');
const KEYS = 'k-ada=ada:write,k-bob=bob:read';

before(() => {
  execFileSync('go', ['build', '-o', bin, '.'], { cwd: join(root, 'examples', 'orders'), stdio: ['ignore', 'inherit', 'inherit'] });
}, { timeout: 300_000 });
after(() => rmSync(tmp, { recursive: true, force: true }));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

// startOrders runs the service over a new database and resolves to its
// process and MCP endpoint once it answers.
async function startOrders(name) {
  const port = await freePort();
  const proc = spawn(bin, ['-addr', `127.0.0.1:${port}`, '-db', join(tmp, `${name}.db`), '-keys', KEYS, '-seed'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (b) => { stderr += b; });
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  for (const deadline = Date.now() + 20_000; ;) {
    if (proc.exitCode !== null) throw new Error(`orders exited (${proc.exitCode}): ${stderr}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return { proc, url };
    } catch {
      if (Date.now() > deadline) throw new Error(`nothing answers at ${url}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

// connect returns a client of the given SDK that sends key as its
// credentials, as a client configured for the service does.
async function connect(SDK, url, key, options) {
  const client = new SDK.Client({ name: 'ferry-interop-orders', version: '0.0.0' }, options);
  const transport = new SDK.Transport(url, { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  // v1 has no getNegotiatedProtocolVersion; its transport keeps the version.
  client.negotiated = () => (client.getNegotiatedProtocolVersion ? client.getNegotiatedProtocolVersion() : transport.protocolVersion);
  return client;
}

const clients = [
  { name: 'v1', SDK: V1, version: '2025-11-25' },
  { name: 'v2 pinned 2026-07-28', SDK: V2, version: '2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
  { name: 'v2 legacy', SDK: V2, version: '2025-11-25', options: { versionNegotiation: { mode: 'legacy' } } },
];

for (const [i, c] of clients.entries()) {
  describe(`${c.name} client, route-bound tools`, () => {
    let server, ada, bob;
    before(async () => {
      server = await startOrders(`c${i}`);
      ada = await connect(c.SDK, server.url, 'k-ada', c.options);
      bob = await connect(c.SDK, server.url, 'k-bob', c.options);
    }, limit);
    after(async () => {
      await ada?.close();
      await bob?.close();
      if (server) await stop(server.proc);
    });

    test(`negotiates ${c.version}`, limit, () => {
      assert.equal(ada.negotiated(), c.version);
    });

    test('lists the tools with the hints of their methods', limit, async () => {
      const { tools } = await ada.listTools();
      const readOnly = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint === true]));
      assert.deepEqual(readOnly, {
        cancel_order: false, create_order: false, get_invoice: true, get_order: true, list_orders: true, month_end: false,
      });
    });

    test('calls a tool: the route answers', limit, async () => {
      const res = await ada.callTool({ name: 'get_order', arguments: { id: 'A-1' } });
      assert.ok(!res.isError, text(res));
      assert.deepEqual(res.structuredContent,
        { id: 'A-1', customer: 'Ada Lovelace', status: 'open', lines: [{ sku: 'PEN-BLUE', qty: 3 }] });
    });

    test('a problem document is a refusal the model reads', limit, async () => {
      const res = await ada.callTool({ name: 'cancel_order', arguments: { id: 'A-2' } });
      assert.equal(res.isError, true);
      assert.equal(text(res), 'conflict: Order A-2 has shipped; it can no longer be cancelled.');
      const invalid = await ada.callTool({
        name: 'create_order', arguments: { id: 'B-7', customer: 'Bo', lines: [{ sku: 'NOPE', qty: 1 }] },
      });
      assert.equal(text(invalid), 'invalid: The order is not valid.\n- lines[0].sku: no product has this SKU');
    });

    test("the service's middleware refuses a read key's write", limit, async () => {
      const res = await bob.callTool({ name: 'cancel_order', arguments: { id: 'A-1' } });
      assert.equal(res.isError, true);
      assert.equal(text(res), 'forbidden: This API key may only read; bob cannot change orders.');
    });

    test('a job stops at the first refusal', limit, async () => {
      const first = await ada.callTool({ name: 'month_end', arguments: { period: '2026-10' } });
      assert.equal(text(first), 'Closed 2026-10: the accruals are posted and the period is locked.');
      const again = await ada.callTool({ name: 'month_end', arguments: { period: '2026-10' } });
      assert.equal(again.isError, true);
      assert.equal(text(again), 'conflict: Period 2026-10 is locked.');
    });
  });
}
