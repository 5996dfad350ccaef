// Interop tests: the TypeScript SDK clients, v1 (@modelcontextprotocol/sdk)
// and v2 (@modelcontextprotocol/client, pinned to 2026-07-28 and in legacy
// mode), against protomcp's test server (protomcp/internal/testserver): a
// protobuf service compiled at run time, served as Connect at / and as MCP
// tools and a prompt at /mcp, each tool call dispatched in process through
// the Connect handler and its interceptor. Schemas, a valid call, calls
// violating a rule (a buf.validate field rule, a CEL rule, an unknown
// field), Connect errors mapped to refusals (from the implementation and
// from the interceptor), and the prompt rendered and refused without its
// required argument.
//
// Run from the repo root with Node >= 22: node --test interop/ts/protomcp.test.mjs

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
const tmp = mkdtempSync(join(tmpdir(), 'ferry-interop-protomcp-'));
const bin = join(tmp, 'testserver');

before(() => {
  execFileSync('go', ['build', '-o', bin, './internal/testserver'], { cwd: join(root, 'protomcp'), stdio: ['ignore', 'inherit', 'inherit'] });
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

// start runs the test server and resolves to its process and base URL once
// it answers.
async function start() {
  const port = await freePort();
  const proc = spawn(bin, ['-addr', `127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (b) => { stderr += b; });
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 20_000; ;) {
    if (proc.exitCode !== null) throw new Error(`testserver exited (${proc.exitCode}): ${stderr}`);
    try {
      await fetch(`${base}/mcp`, { signal: AbortSignal.timeout(1000) });
      return { proc, base };
    } catch {
      if (Date.now() > deadline) throw new Error(`nothing answers at ${base}/mcp: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function connect(SDK, base, token, options) {
  const client = new SDK.Client({ name: 'ferry-interop-protomcp', version: '0.0.0' }, options);
  const transport = new SDK.Transport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  client.negotiated = () => (client.getNegotiatedProtocolVersion ? client.getNegotiatedProtocolVersion() : transport.protocolVersion);
  return client;
}

const clients = [
  { name: 'v1', SDK: V1, version: '2025-11-25' },
  { name: 'v2 pinned 2026-07-28', SDK: V2, version: '2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
  { name: 'v2 legacy', SDK: V2, version: '2025-11-25', options: { versionNegotiation: { mode: 'legacy' } } },
];

let server;
before(async () => { server = await start(); }, limit);
after(async () => { if (server) await stop(server.proc); });

for (const c of clients) {
  describe(`${c.name} client, protobuf tools`, () => {
    let ada, blocked;
    before(async () => {
      ada = await connect(c.SDK, server.base, 'ada', c.options);
      blocked = await connect(c.SDK, server.base, 'blocked', c.options);
    }, limit);
    after(async () => {
      await ada?.close();
      await blocked?.close();
    });

    test(`negotiates ${c.version}`, limit, () => {
      assert.equal(ada.negotiated(), c.version);
    });

    test('lists the methods as tools with schemas and hints from the .proto', limit, async () => {
      const { tools } = await ada.listTools();
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      assert.deepEqual(Object.keys(byName).sort(), ['fail', 'get_item', 'place_order']);
      const get = byName.get_item;
      assert.equal(get.description, 'GetItem returns an item by its SKU.');
      assert.equal(get.annotations.readOnlyHint, true);
      assert.equal(get.annotations.idempotentHint, true);
      assert.equal(byName.place_order.annotations.destructiveHint, true);
      assert.equal(get.inputSchema.type, 'object');
      assert.equal(get.inputSchema.properties.sku.type, 'string');
      assert.equal(get.inputSchema.properties.sku.minLength, 3);
      assert.equal(get.outputSchema.properties.priceCents.type, 'string', 'int64 is a string in protojson');
      assert.ok(byName.place_order.inputSchema.properties.lines, 'place_order takes lines');
    });

    test('a valid call reaches the implementation; the response is structured and text', limit, async () => {
      const res = await ada.callTool({ name: 'get_item', arguments: { sku: 'BOOK-1' } });
      assert.ok(!res.isError, text(res));
      const want = { sku: 'BOOK-1', name: 'Item BOOK-1', priceCents: '1250', tags: ['new'], kind: 'KIND_BOOK' };
      assert.deepEqual(res.structuredContent, want);
      assert.deepEqual(JSON.parse(text(res)), want);
      const order = await ada.callTool({
        name: 'place_order',
        arguments: { customerEmail: 'ada@example.com', lines: [{ sku: 'BOOK-1', quantity: 2 }], invoiceRef: 'inv-7', labels: { cost_center: 'cc-1' } },
      });
      assert.ok(!order.isError, text(order));
      assert.equal(order.structuredContent.totalCents, '2500');
    });

    test('a call violating the rules is refused with every field path', limit, async () => {
      const res = await ada.callTool({
        name: 'place_order',
        arguments: { customerEmail: 'not-an-email', lines: [{ sku: 'X', quantity: 0 }], invoiceRef: 'inv-7' },
      });
      assert.equal(res.isError, true);
      const msg = text(res);
      assert.match(msg, /^invalid arguments:/);
      assert.match(msg, /- customerEmail: must be a valid email address/);
      assert.match(msg, /- lines\[0\]\.sku: must be at least 3 characters/);
      assert.match(msg, /- lines\[0\]\.quantity: must be greater than or equal to 1/);
      assert.match(msg, /- an invoice order needs a cost_center label/, 'the CEL rule');
    });

    test('an unknown field is refused by name', limit, async () => {
      const res = await ada.callTool({ name: 'get_item', arguments: { sku: 'BOOK-1', colour: 'red' } });
      assert.equal(res.isError, true);
      assert.match(text(res), /- colour: is not allowed: unknown property "colour"; known properties: sku/);
    });

    test('a Connect error is a refusal with its code', limit, async () => {
      const missing = await ada.callTool({ name: 'get_item', arguments: { sku: 'MISSING' } });
      assert.equal(missing.isError, true);
      assert.equal(text(missing), 'not-found: no item has the SKU MISSING');
      const details = await ada.callTool({ name: 'fail', arguments: { code: 'invalid_argument', message: 'the order cannot be placed', badRequest: true } });
      assert.equal(text(details), 'invalid: the order cannot be placed:\n- lines[0].sku: no such SKU\n- customer_email: is blocked');
      const internal = await ada.callTool({ name: 'fail', arguments: { code: 'internal', message: 'database password is hunter2' } });
      assert.match(text(internal), /^the tool failed unexpectedly \(ref [0-9a-f]+\)$/);
    });

    test("the service's interceptor sees the caller's credentials and refuses", limit, async () => {
      const res = await blocked.callTool({ name: 'get_item', arguments: { sku: 'BOOK-1' } });
      assert.equal(res.isError, true);
      assert.equal(text(res), 'forbidden: this token may not call /shop.v1.ShopService/GetItem');
    });

    test('the prompt from the .proto renders, and is refused without its required argument', limit, async () => {
      const { prompts } = await ada.listPrompts();
      const p = prompts.find((x) => x.name === 'order_help');
      assert.ok(p, JSON.stringify(prompts));
      assert.deepEqual(p.arguments.map((a) => [a.name, a.required === true]), [['customer', true], ['sku', false]]);
      const got = await ada.getPrompt({ name: 'order_help', arguments: { customer: 'Ada', sku: 'BOOK-1' } });
      assert.equal(got.messages[0].content.text, 'Help Ada order the item BOOK-1.\n\nTool preference: the customer names an item');
      await assert.rejects(ada.getPrompt({ name: 'order_help', arguments: { sku: 'BOOK-1' } }), /argument "customer" is required/);
    });
  });
}
