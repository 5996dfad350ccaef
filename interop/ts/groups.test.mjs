// Interop tests of groups and progressive discovery with the official
// TypeScript SDK clients: the v2 client (@modelcontextprotocol/client,
// 2026-07-28 pinned) at a group endpoint of `ferry demo` (/mcp/orders) and
// against `ferry serve -discovery on`, where it searches with search_tools
// and calls what it found with call_tool; and the v1 client
// (@modelcontextprotocol/sdk, legacy era) over `ferry serve -stdio
// -toolsets`, where it enables a group with the toolsets tool, hears
// notifications/tools/list_changed, and lists again.
//
// Run from the repo root with Node >= 22: node --test interop/ts/groups.test.mjs

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
  Stdio: sdk('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport,
  ListChanged: sdk('@modelcontextprotocol/sdk/types.js').ToolListChangedNotificationSchema,
};
const v2 = sdk('@modelcontextprotocol/client');

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'ferry-interop-groups-'));
const bin = join(tmp, 'ferry');
const db = join(tmp, 'demo.db');
const procs = [];

// start runs ferry with args and resolves to the groups of the first
// line of its stderr that matches re.
function start(args, re) {
  const proc = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  procs.push(proc);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ferry ${args[0]}: no start line within 60 s: ${stderr}`)), 60_000);
    proc.stderr.on('data', (b) => {
      stderr += b;
      const m = stderr.match(re);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    proc.once('exit', (code) => reject(new Error(`ferry ${args[0]} exited ${code}: ${stderr}`)));
  });
}

let demoBase, key, serveURL;

before(async () => {
  execFileSync('go', ['build', '-o', bin, './cmd/ferry'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  const m = await start(['demo', '--http', '127.0.0.1:0', '--db', db, '--api-key', 'groups-interop-key-0123'],
    /listening on (http:\/\/\S+) [^]*each group of tools at its own endpoint/);
  [demoBase, key] = [m[1], 'groups-interop-key-0123'];
  // The demo created and seeded the database: ferry serve reads it too.
  serveURL = (await start(['serve', '-db', db, '-http', '127.0.0.1:0', '-discovery', 'on'], /listening on (http:\/\/\S+\/mcp)/))[1];
}, { timeout: 300_000 });

after(async () => {
  await Promise.all(procs.filter((p) => p.exitCode === null).map((p) => {
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    return exited;
  }));
  rmSync(tmp, { recursive: true, force: true });
});

async function v2Client(url, headers) {
  const client = new v2.Client({ name: 'ferry-groups-v2', version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new v2.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe('SDK v2 client at a group endpoint of ferry demo', () => {
  let client;
  before(async () => { client = await v2Client(`${demoBase}/mcp/orders`, { Authorization: `Bearer ${key}` }); });
  after(() => client?.close());

  test('lists the group\'s tools only, and calls one', limit, async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['cancel_order', 'get_order', 'list_orders', 'order_history', 'place_order', 'ship_order']);
    const res = await client.callTool({ name: 'get_order', arguments: { id: 7 } });
    assert.ok(!res.isError, text(res));
    assert.equal(res.structuredContent.id, 7);
  });

  test('a tool of another group is unknown there', limit, async () => {
    await assert.rejects(client.callTool({ name: 'get_product', arguments: { sku: 'TEA-001' } }), /get_product/);
  });
});

describe('SDK v2 client against ferry serve in discovery mode', () => {
  let client;
  before(async () => { client = await v2Client(serveURL, {}); });
  after(() => client?.close());

  test('lists the two discovery tools', limit, async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['call_tool', 'search_tools']);
    const call = tools.find((t) => t.name === 'call_tool');
    assert.equal(call.annotations.readOnlyHint, false);
    assert.equal(call.annotations.destructiveHint, true);
  });

  test('searches, then calls what it found', limit, async () => {
    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'look up one customer by id' } });
    assert.ok(!found.isError, text(found));
    const names = found.structuredContent.tools.map((t) => t.name);
    assert.ok(names.includes('get_customer'), names.join(', '));
    const got = await client.callTool({ name: 'call_tool', arguments: { name: 'get_customer', arguments: { id: 3 } } });
    assert.ok(!got.isError, text(got));
    assert.equal(got.structuredContent.data.id, 3);
  });

  test('a write tool of a read-only server is neither found nor called', limit, async () => {
    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'delete a customer' } });
    assert.ok(!found.structuredContent.tools.some((t) => t.name.startsWith('delete_')));
    await assert.rejects(client.callTool({ name: 'call_tool', arguments: { name: 'delete_customer', arguments: { id: 3 } } }), /unknown tool/);
  });
});

describe('SDK v1 client choosing toolsets over ferry serve -stdio -toolsets', () => {
  let client;
  const heard = [];
  before(async () => {
    client = new v1.Client({ name: 'ferry-groups-v1', version: '0.0.0' });
    client.setNotificationHandler(v1.ListChanged, () => { heard.push('notifications/tools/list_changed'); });
    await client.connect(new v1.Stdio({ command: bin, args: ['serve', '-db', db, '-stdio', '-toolsets', '-discovery', 'off'], stderr: 'ignore' }));
  });
  after(() => client?.close());

  test('starts with the toolsets tool, enables a group, hears the change and lists it', limit, async () => {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['toolsets']);
    const listed = await client.callTool({ name: 'toolsets', arguments: {} });
    assert.ok(listed.structuredContent.groups.some((g) => g.name === 'customers' && !g.enabled), text(listed));
    const res = await client.callTool({ name: 'toolsets', arguments: { enable: ['customers'] } });
    assert.ok(!res.isError, text(res));
    assert.deepEqual(heard, ['notifications/tools/list_changed']);
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['get_customer', 'list_customers', 'toolsets']);
    const got = await client.callTool({ name: 'get_customer', arguments: { id: 2 } });
    assert.ok(!got.isError, text(got));
  });
});
