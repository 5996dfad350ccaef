// A stdio MCP server built with the official TypeScript SDK (v1, the
// version tools/npm pins), for the tests of ferry's client commands
// against a server that is not Ferry. It speaks the legacy era only.
const { createRequire } = require('node:module');
const { join } = require('node:path');

const sdk = createRequire(join(__dirname, '..', '..', '..', 'tools', 'npm', 'package.json'));
const { McpServer } = sdk('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = sdk('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = sdk('zod');

const server = new McpServer({ name: 'ts-shop', version: '1.0.0' });

server.registerTool('add', {
  title: 'Add',
  description: 'Adds two numbers and returns their sum.',
  inputSchema: { a: z.number().describe('The first number.'), b: z.number().describe('The second number.') },
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));

server.registerTool('fail', {
  description: 'Fails',
  inputSchema: { why: z.string() },
}, async ({ why }) => ({ isError: true, content: [{ type: 'text', text: 'failed: ' + why }] }));

server.registerPrompt('greet', {
  description: 'Greets a customer by name, warmly.',
  argsSchema: { name: z.string() },
}, ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: 'Greet ' + name } }] }));

server.registerResource('notes', 'notes://today', { description: 'Today\'s notes.' },
  async (uri) => ({ contents: [{ uri: uri.href, text: 'buy milk' }] }));

server.connect(new StdioServerTransport());
