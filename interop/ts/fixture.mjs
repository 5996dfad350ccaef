// Shared helpers of the TypeScript SDK interop tests: the pinned SDK, the
// fixture server ./conformance/everything (built once per test file), and
// starting and stopping it.
//
// A test file calls useFixture() once at top level; it registers the hooks
// that build the server before the tests and stop every server it started
// after them. FERRY_EVERYTHING=/path/to/binary skips the build and tests that
// binary.

import { after, before } from 'node:test';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const npmDir = join(root, 'tools', 'npm');
if (!existsSync(join(npmDir, 'node_modules', '@modelcontextprotocol', 'sdk'))) {
  execFileSync(join(root, 'tools', 'npm.sh'), { stdio: ['ignore', 'ignore', 'inherit'] });
}
// The SDK ships CommonJS builds too; loading them through a require rooted at
// tools/npm avoids any dependence on the caller's module resolution paths.
export const sdk = createRequire(join(npmDir, 'package.json'));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');

const tmp = mkdtempSync(join(tmpdir(), 'ferry-interop-ts-'));
// bin is the fixture server binary.
export const bin = process.env.FERRY_EVERYTHING || join(tmp, 'everything');
const servers = new Set(); // HTTP server processes still running

// limit bounds each test and hook that talks to a server.
export const limit = { timeout: 30_000 };

// useFixture registers the hooks that build the fixture server before the
// file's tests and stop every HTTP server still running after them.
export function useFixture() {
  before(() => {
    if (process.env.FERRY_EVERYTHING) return;
    execFileSync('go', ['build', '-o', bin, './conformance/everything'], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }, { timeout: 300_000 });

  after(async () => {
    await Promise.all([...servers].map(stop));
    rmSync(tmp, { recursive: true, force: true });
  });
}
process.on('exit', () => { for (const p of servers) p.kill('SIGKILL'); });

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

// startHTTP runs the fixture with -http on a free port plus args and resolves to
// its endpoint URL once any HTTP request gets an answer.
export async function startHTTP(args) {
  const port = await freePort();
  const proc = spawn(bin, ['-http', `127.0.0.1:${port}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  servers.add(proc);
  let stderr = '';
  proc.stderr.on('data', (b) => { stderr += b; });
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  for (const deadline = Date.now() + 20_000; ;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`everything ${args.join(' ')} exited (${proc.exitCode ?? proc.signalCode}): ${stderr}`);
    }
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return { proc, url };
    } catch {
      if (Date.now() > deadline) throw new Error(`nothing answers at ${url}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

// stop ends an HTTP server started by startHTTP: SIGTERM, then SIGKILL after 5 s.
export async function stop(proc) {
  servers.delete(proc);
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

export function newClient() {
  return new Client({ name: 'ferry-interop-ts', version: '0.0.0' });
}

// text joins the text blocks of a tool result.
export function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}
