// Interop tests: prompts, resources, completions and resource subscriptions
// of the fixture server, driven by the official TypeScript SDK client over
// stateful Streamable HTTP and stdio (legacy era: SDK 1.32.2 negotiates at
// most 2025-11-25).
//
// Run from the repo root: node --test interop/ts/*.test.mjs

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bin, limit, newClient, sdk, startHTTP, stop, text, useFixture } from './fixture.mjs';

const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = sdk('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ErrorCode, McpError, ResourceUpdatedNotificationSchema } = sdk('@modelcontextprotocol/sdk/types.js');

useFixture();

const watched = 'test://watched-resource';
// notifyTimeout bounds the wait for notifications/resources/updated.
const notifyTimeout = 5_000;

// withTimeout rejects with what if p has not settled within ms.
function withTimeout(p, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

// exercise runs the prompt, resource, completion and subscription calls.
// ready, if given, resolves to the HTTP status of the stream on which the
// server pushes notifications outside a request (the stateful session's GET
// stream), once it is answered.
function exercise(getClient, ready) {
  test('prompts/get fills in the arguments', limit, async () => {
    const res = await getClient().getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
    const msgText = res.messages.filter((m) => m.content.type === 'text').map((m) => m.content.text).join('\n');
    assert.ok(res.messages.length > 0, 'no messages');
    assert.match(msgText, /arg1='a'/);
    assert.match(msgText, /arg2='b'/);
  });

  test('prompts/get without a required argument is Invalid params', limit, async () => {
    await assert.rejects(
      getClient().getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a' } }),
      (err) => {
        assert.ok(err instanceof McpError, `got ${err} (${err?.constructor?.name}), want McpError`);
        assert.equal(err.code, ErrorCode.InvalidParams, `code of ${err.message}`);
        return true;
      },
    );
  });

  test('resources/read of a template URI', limit, async () => {
    const uri = 'test://template/123/data';
    const res = await getClient().readResource({ uri });
    assert.equal(res.contents.length, 1, JSON.stringify(res.contents));
    assert.equal(res.contents[0].uri, uri);
    assert.match(res.contents[0].text, /123/);
  });

  test('completion/complete of a prompt argument', limit, async () => {
    const res = await getClient().complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'te' },
    });
    assert.deepEqual(res.completion.values, ['test', 'testing', 'tested']);
  });

  test('resources/subscribe, then touch_watched sends notifications/resources/updated', limit, async () => {
    const client = getClient();
    if (ready) {
      assert.equal(await withTimeout(ready, notifyTimeout, 'GET SSE stream'), 200, 'GET SSE stream status');
    }
    const before = await client.readResource({ uri: watched });
    let arrived;
    const updated = new Promise((resolve) => { arrived = resolve; });
    const seen = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      seen.push(n.params.uri);
      if (n.params.uri === watched) arrived(n);
    });
    try {
      await client.subscribeResource({ uri: watched });
      const res = await client.callTool({ name: 'touch_watched', arguments: {} });
      assert.ok(!res.isError, `touch_watched isError: ${text(res)}`);
      await withTimeout(updated, notifyTimeout, `notifications/resources/updated for ${watched} (saw ${JSON.stringify(seen)})`);
    } finally {
      client.removeNotificationHandler('notifications/resources/updated');
    }
    const afterTouch = await client.readResource({ uri: watched });
    assert.notEqual(afterTouch.contents[0].text, before.contents[0].text, 'watched resource unchanged by touch_watched');
    await client.unsubscribeResource({ uri: watched });
  });
}

describe('streamable HTTP, stateful', () => {
  let server, client;
  // getStream resolves to the status of the standalone GET SSE stream, which
  // the client opens by itself after initialize.
  let streamOpen;
  const getStream = new Promise((resolve) => { streamOpen = resolve; });
  before(async () => {
    server = await startHTTP([]);
    client = newClient();
    const watchGET = async (url, init) => {
      const resp = await fetch(url, init);
      if (init?.method === 'GET') streamOpen(resp.status);
      return resp;
    };
    await client.connect(new StreamableHTTPClientTransport(server.url, { fetch: watchGET }));
  }, limit);
  after(async () => {
    await client?.close();
    if (server) await stop(server.proc);
  }, limit);
  exercise(() => client, getStream);
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
