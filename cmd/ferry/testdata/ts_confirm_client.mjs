// The TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in
// tools/npm), pinned to 2026-07-28, answering the confirmation that
// `ferry serve -confirm` asks before delete_product runs: the client's
// elicitation handler is the user, and the SDK retries the call with the
// answer and the request state. serve_confirm_test.go runs it and checks
// the database between runs.
//
// usage: node ts_confirm_client.mjs URL refuse|accept ID
//
// refuse: decline, cancel, a handler that fails (no answer), a client
// without the elicitation capability, and an approval replayed with other
// arguments; each line printed is one case's outcome as JSON. accept:
// the user accepts, and the product ID is deleted.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const sdk = createRequire(join(root, 'tools', 'npm', 'package.json'));
const { Client, StreamableHTTPClientTransport } = sdk('@modelcontextprotocol/client');

const [url, mode, id] = process.argv.slice(2);
const MODERN = '2026-07-28';

async function connect({ answer, elicitation = true, manual = false }) {
  const client = new Client(
    { name: 'ferry-confirm-ts-v2', version: '0.0.0' },
    {
      capabilities: elicitation ? { elicitation: {} } : {},
      versionNegotiation: { mode: { pin: MODERN } },
      ...(manual && { inputRequired: { autoFulfill: false } }),
    },
  );
  const asked = [];
  if (elicitation) {
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(req.params.message);
      return answer();
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, asked };
}

const text = (res) => (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');

async function outcome(name, f) {
  try {
    const { res, asked } = await f();
    console.log(JSON.stringify({ case: name, isError: res.isError === true, resultType: res.resultType, text: text(res), asked }));
  } catch (err) {
    console.log(JSON.stringify({ case: name, rejected: String(err && err.message || err) }));
  }
}

const call = (client, args, options) => client.callTool({ name: 'delete_product', arguments: args }, options);

if (mode === 'accept') {
  await outcome('accept', async () => {
    const { client, asked } = await connect({ answer: () => ({ action: 'accept', content: {} }) });
    const res = await call(client, { id: Number(id) });
    await client.close();
    return { res, asked };
  });
} else {
  for (const action of ['decline', 'cancel']) {
    await outcome(action, async () => {
      const { client, asked } = await connect({ answer: () => ({ action }) });
      const res = await call(client, { id: Number(id) });
      await client.close();
      return { res, asked };
    });
  }
  await outcome('no answer', async () => {
    const { client, asked } = await connect({ answer: () => { throw new Error('the user walked away'); } });
    try {
      const res = await call(client, { id: Number(id) });
      return { res, asked };
    } finally {
      await client.close();
    }
  });
  await outcome('no capability', async () => {
    const { client, asked } = await connect({ elicitation: false });
    const res = await call(client, { id: Number(id) });
    await client.close();
    return { res, asked };
  });
  await outcome('replay with other arguments', async () => {
    const { client, asked } = await connect({ manual: true });
    // The question for product 1, answered for product ID.
    const first = await call(client, { id: 1 }, { allowInputRequired: true });
    if (first.resultType !== 'input_required') throw new Error(`first call: ${JSON.stringify(first)}`);
    const res = await client.callTool({
      name: 'delete_product', arguments: { id: Number(id) },
      inputResponses: { 'ferry.confirm': { action: 'accept', content: {} } },
      requestState: first.requestState,
    }, { allowInputRequired: true });
    await client.close();
    return { res, asked };
  });
}
