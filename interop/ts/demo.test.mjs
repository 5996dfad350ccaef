// Interop tests of `ferry demo`, the README's first command: the binary is
// built from ./cmd/ferry, started on a free port with a fresh database, and
// driven by the official TypeScript SDK clients with the key it prints: v1
// (@modelcontextprotocol/sdk, legacy era) and v2 (@modelcontextprotocol/client,
// 2026-07-28 pinned and auto), over Streamable HTTP and over --stdio. The REST
// API, called with the same key, must agree with the tools; a wrong key gets
// 401.
//
// Run from the repo root with Node >= 22: node --test interop/ts/demo.test.mjs

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { limit, sdk, text } from './fixture.mjs';

const v1 = {
  Client: sdk('@modelcontextprotocol/sdk/client/index.js').Client,
  HTTP: sdk('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport,
  Stdio: sdk('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport,
};
const v2 = {
  ...sdk('@modelcontextprotocol/client'),
  Stdio: sdk('@modelcontextprotocol/client/stdio').StdioClientTransport,
};

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'ferry-interop-demo-'));
const bin = join(tmp, 'ferry');
const db = join(tmp, 'demo.db');

const tools = ['aggregate_products', 'best_sellers', 'cancel_order', 'customer_spend', 'get_customer', 'get_order', 'get_product',
  'list_customers', 'list_orders', 'list_products', 'order_history', 'place_order', 'restock_report', 'ship_order'];

let server, base, key;

before(async () => {
  execFileSync('go', ['build', '-o', bin, './cmd/ferry'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  const env = { ...process.env };
  delete env.FERRY_DEMO_API_KEY; // the demo generates and prints one
  server = spawn(bin, ['demo', '--http', '127.0.0.1:0', '--db', db], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 60 s: ${stderr}`)), 60_000);
    server.stderr.on('data', (b) => {
      stderr += b;
      const url = stderr.match(/listening on (http:\/\/\S+) /);
      const k = stderr.match(/API key: (\S+) /);
      if (url && k) {
        clearTimeout(timer);
        [base, key] = [url[1], k[1]];
        resolve();
      }
    });
    server.once('exit', (code) => reject(new Error(`ferry demo exited ${code}: ${stderr}`)));
  });
}, { timeout: 300_000 });

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
    assert.equal(server.exitCode, 0, 'ferry demo did not exit 0 on SIGTERM');
  }
  rmSync(tmp, { recursive: true, force: true });
});

const auth = () => ({ Authorization: `Bearer ${key}` });

// rest calls the demo's REST API with the key.
async function rest(method, path, body) {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: { ...auth(), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

// exercise runs the calls every connection must support.
function exercise(get, { http }) {
  test('tools/list: every shop tool, with hints', limit, async () => {
    const { tools: listed } = await get().listTools();
    assert.deepEqual(listed.map((t) => t.name).sort(), tools);
    const hints = Object.fromEntries(listed.map((t) => [t.name, t.annotations]));
    assert.equal(hints.list_products.readOnlyHint, true);
    assert.equal(hints.best_sellers.readOnlyHint, true); // a curated SQL query
    assert.equal(hints.cancel_order.destructiveHint, true);
    assert.equal(hints.ship_order.destructiveHint, true);
    assert.equal(hints.place_order.readOnlyHint, false);
  });

  test('get_order answers what GET /api/orders/{id} does', limit, async () => {
    const res = await get().callTool({ name: 'get_order', arguments: { id: 7 } });
    assert.ok(!res.isError, text(res));
    if (http) assert.deepEqual(res.structuredContent, (await rest('GET', '/orders/7')).body);
    assert.equal(res.structuredContent.id, 7);
  });

  test('list_products searches and pages', limit, async () => {
    const res = await get().callTool({ name: 'list_products', arguments: { search: 'tea', top: 2 } });
    assert.ok(!res.isError, text(res));
    assert.equal(res.structuredContent.data.length, 2);
    assert.equal(res.structuredContent.paging.hasMore, true);
  });

  test('place_order, then cancel_order, seen by the REST API', limit, async () => {
    const placed = await get().callTool({ name: 'place_order', arguments: { customer_id: 4, lines: [{ sku: 'TEA-002', qty: 1 }] } });
    assert.ok(!placed.isError, text(placed));
    const id = placed.structuredContent.id;
    if (http) assert.equal((await rest('GET', `/orders/${id}`)).body.status, 'placed');
    const cancelled = await get().callTool({ name: 'cancel_order', arguments: { id, reason: 'interop test' } });
    assert.ok(!cancelled.isError, text(cancelled));
    assert.equal(cancelled.structuredContent.status, 'cancelled');
    if (http) {
      const { body } = await rest('GET', `/orders/${id}/history`);
      assert.deepEqual(body.events.map((e) => e.event), ['placed', 'cancelled']);
    }
  });

  test('cancel_order of a shipped order is a conflict', limit, async () => {
    const res = await get().callTool({ name: 'cancel_order', arguments: { id: 1 } });
    assert.equal(res.isError, true);
    assert.match(text(res), /^conflict: Order 1 has shipped/);
  });

  test('restock_report asks the API about several products', limit, async () => {
    const res = await get().callTool({ name: 'restock_report', arguments: { skus: ['TEA-001', 'TEA-004', 'NOP-000'] } });
    assert.ok(!res.isError, text(res));
    assert.deepEqual(res.structuredContent.unknown, ['NOP-000']);
    assert.equal(res.structuredContent.low.length + res.structuredContent.ok.length, 2);
    const bad = await get().callTool({ name: 'restock_report', arguments: { skus: ['TEA-001', '../orders/1'] } });
    assert.equal(bad.isError, true);
    assert.equal(text(bad), 'invalid: skus[1] "../orders/1" is not a SKU such as TEA-003; list_products finds them');
  });

  test('prompts, completions and resources', limit, async () => {
    const { prompts } = await get().listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['order_summary', 'restock_plan']);
    const plan = await get().getPrompt({ name: 'restock_plan', arguments: { category: 'tea' } });
    assert.match(plan.messages[0].content.text, /restock_report/);
    const done = await get().complete({ ref: { type: 'ref/prompt', name: 'restock_plan' }, argument: { name: 'category', value: 'c' } });
    assert.deepEqual(done.completion.values, ['coffee', 'cups']);
    const { resourceTemplates } = await get().listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'shop://orders/{id}'));
    const order = await get().readResource({ uri: 'shop://orders/3' });
    assert.equal(JSON.parse(order.contents[0].text).id, 3);
    const schemas = await get().readResource({ uri: 'shop://schemas/place_order' });
    assert.ok(JSON.parse(schemas.contents[0].text).input.properties.lines);
  });
}

describe('SDK v1 client over HTTP (legacy era)', () => {
  let client;
  before(async () => {
    client = new v1.Client({ name: 'ferry-demo-v1', version: '0.0.0' });
    await client.connect(new v1.HTTP(new URL(`${base}/mcp`), { requestInit: { headers: auth() } }));
  });
  after(() => client?.close());
  exercise(() => client, { http: true });
});

for (const [name, mode] of [['2026-07-28 pinned', { pin: '2026-07-28' }], ['auto', 'auto']]) {
  describe(`SDK v2 client over HTTP (${name})`, () => {
    let client;
    before(async () => {
      client = new v2.Client({ name: 'ferry-demo-v2', version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode } });
      await client.connect(new v2.StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: auth() } }));
    });
    after(() => client?.close());
    test('negotiates 2026-07-28', limit, () => assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28'));
    exercise(() => client, { http: true });
  });
}

describe('a wrong key', () => {
  test('gets 401 at /mcp and /api', limit, async () => {
    for (const path of ['/mcp', '/api/orders/1']) {
      const res = await fetch(base + path, {
        method: path === '/mcp' ? 'POST' : 'GET',
        headers: { Authorization: `Bearer ${key}x`, 'Content-Type': 'application/json' },
        body: path === '/mcp' ? '{}' : undefined,
      });
      assert.equal(res.status, 401, path);
    }
  });
  test('is refused to the v1 client', limit, async () => {
    const client = new v1.Client({ name: 'ferry-demo-v1', version: '0.0.0' });
    await assert.rejects(client.connect(new v1.HTTP(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: 'Bearer wrong-key-0123456789' } } })));
  });
});

describe('SDK v1 client over --stdio', () => {
  let client;
  before(async () => {
    client = new v1.Client({ name: 'ferry-demo-v1', version: '0.0.0' });
    await client.connect(new v1.Stdio({ command: bin, args: ['demo', '--stdio', '--db', db], stderr: 'ignore' }));
  });
  after(() => client?.close());
  exercise(() => client, { http: false });
});

describe('SDK v2 client over --stdio (2026-07-28)', () => {
  let client;
  before(async () => {
    client = new v2.Client({ name: 'ferry-demo-v2', version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new v2.Stdio({ command: bin, args: ['demo', '--stdio', '--db', db], stderr: 'ignore' }));
  });
  after(() => client?.close());
  test('negotiates 2026-07-28', limit, () => assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28'));
  exercise(() => client, { http: false });
});
