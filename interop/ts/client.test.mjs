// Interop tests: the official TypeScript SDK client (tools/npm, pinned) against the
// Go fixture server ./conformance/everything over stdio and Streamable HTTP.
//
// Run from the repo root with Node >= 20 (CI uses tools/node22.sh):
//
//	node --test interop/ts/*.test.mjs
//
// The SDK is installed on first use by tools/npm.sh (npm ci from the lockfile).
// FERRY_EVERYTHING=/path/to/binary skips the build and tests that binary.
// Shared helpers live in fixture.mjs.
//
// SDK 1.32.2 negotiates at most protocol 2025-11-25: it has no support for
// 2026-07-28; client_v2.test.mjs runs the v2 client in both eras.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bin, limit, newClient, sdk, startHTTP, stop, text, useFixture } from './fixture.mjs';

const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = sdk('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { LATEST_PROTOCOL_VERSION } = sdk('@modelcontextprotocol/sdk/types.js');

useFixture();

// exercise runs the calls every transport must support against a connected client.
function exercise(getClient) {
  test('tools/list includes the fixture tools', limit, async () => {
    const { tools } = await getClient().listTools();
    const names = tools.map((t) => t.name);
    for (const want of ['test_simple_text', 'echo', 'add', 'place_order']) {
      assert.ok(names.includes(want), `tool ${want} missing from ${names.join(', ')}`);
    }
  });

  test('echo returns its text', limit, async () => {
    const res = await getClient().callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.ok(!res.isError, `isError result: ${text(res)}`);
    assert.equal(text(res), 'hi');
  });

  test('add returns structured content', limit, async () => {
    const res = await getClient().callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.ok(!res.isError, `isError result: ${text(res)}`);
    assert.deepEqual(res.structuredContent, { sum: 5 });
  });

  // place_order is a typed tool: its schemas and validation come from Go types.
  const order = (over) => ({
    customer: 'Ada', email: 'ada@example.com', items: [{ sku: 'X1', quantity: 2 }, { sku: 'Y2', quantity: 1 }], ...over,
  });
  const place = (args) => getClient().callTool({ name: 'place_order', arguments: args });

  test('typed tool: nested input, structured output checked by the client', limit, async () => {
    const res = await place(order({ express: true }));
    assert.ok(!res.isError, `isError result: ${text(res)}`);
    assert.deepEqual(res.structuredContent, { id: 'o-1', lines: 2, units: 3, express: true });
    assert.deepEqual(JSON.parse(text(res)), res.structuredContent);
  });

  test('typed tool: an invalid call lists every violation', limit, async () => {
    const res = await place(order({ email: 'not-an-email', items: [{ sku: 'ABCDEFGHIJKLMNOPQRSTUVW', quantity: 0 }] }));
    assert.equal(res.isError, true);
    const msg = text(res);
    assert.match(msg, /email: /);
    assert.match(msg, /items\[0\]\.sku: must be at most 20 characters, got 23/);
    assert.match(msg, /items\[0\]\.quantity: must be at least 1, got 0/);
  });

  test('typed tool: unambiguous strings are coerced', limit, async () => {
    const res = await place(order({ items: [{ sku: 'X1', quantity: '4' }], express: 'true' }));
    assert.ok(!res.isError, `isError result: ${text(res)}`);
    assert.deepEqual(res.structuredContent, { id: 'o-1', lines: 1, units: 4, express: true });
  });

  test('typed tool: a refusal reads code: message', limit, async () => {
    const res = await place(order({ customer: 'ghost' }));
    assert.equal(res.isError, true);
    assert.equal(text(res), 'not-found: No such customer.');
  });

  test('typed tool: a panic is masked behind a reference', limit, async () => {
    const res = await place(order({ customer: 'panic' }));
    assert.equal(res.isError, true);
    assert.match(text(res), /^the tool failed unexpectedly \(ref [0-9a-f]+\)$/);
  });

  test('test_simple_text returns text', limit, async () => {
    const res = await getClient().callTool({ name: 'test_simple_text', arguments: {} });
    assert.ok(!res.isError, `isError result: ${text(res)}`);
    assert.equal(res.content[0]?.type, 'text');
    assert.ok(res.content[0].text.length > 0, 'empty text');
  });
}

// describeHTTP connects over Streamable HTTP to a fixture started with args and
// checks the negotiated protocol version (and, if stateful, the session ID).
function describeHTTP(name, { args, version, stateful }) {
  describe(name, () => {
    let server, client, transport;
    before(async () => {
      server = await startHTTP(args);
      client = newClient();
      transport = new StreamableHTTPClientTransport(server.url);
      await client.connect(transport);
    }, limit);
    after(async () => {
      await client?.close();
      if (server) await stop(server.proc);
    }, limit);

    test(`negotiates ${version}`, limit, () => {
      // The client accepts any version it supports and sends it as mcp-protocol-version.
      assert.equal(transport.protocolVersion, version);
      assert.ok(client.getServerVersion()?.name, 'serverInfo.name is empty');
    });
    if (stateful) {
      // Stateless mode may still send a (signed, self-contained) Mcp-Session-Id,
      // so only the stateful mode is checked.
      test('assigns a session ID', limit, () => {
        assert.equal(typeof transport.sessionId, 'string');
      });
    }
    exercise(() => client);
  });
}

describeHTTP('streamable HTTP, stateful', { args: [], version: LATEST_PROTOCOL_VERSION, stateful: true });
describeHTTP('streamable HTTP, stateless', { args: ['-stateless'], version: LATEST_PROTOCOL_VERSION, stateful: false });
describeHTTP('streamable HTTP, server limited to 2025-06-18', {
  args: ['-versions', '2025-06-18'],
  version: '2025-06-18',
  stateful: true,
});

describe('stdio', () => {
  let client;
  before(async () => {
    client = newClient();
    await client.connect(new StdioClientTransport({ command: bin, args: [], stderr: 'inherit' }));
  }, limit);
  after(async () => {
    await client?.close();
  }, limit);
  exercise(() => client);
});
