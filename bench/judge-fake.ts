/**
 * What-if helper for bench/judge.ts: the fake OpenAI server of test/fake-openai/server.ts, started as
 * its standalone mode does, but with the HTTP server's keep-alive timeout forced to --keep-alive-ms.
 *
 *   tsx bench/judge-fake.ts --keep-alive-ms 5000 [--port 0] [--latency-ms 100] [--api-key K]
 *
 * The fake sets `server.keepAliveTimeout = 1_000`, so every answer carries `Keep-Alive: timeout=1`;
 * Node's fetch (undici) subtracts its keepAliveTimeoutThreshold (2 s) from that hint, gets ≤ 0 and
 * closes the socket after each response: one new TCP connection per LLM call. This helper shows what
 * the benchmark measures once the fake keeps connections open like a real endpoint does. It wraps
 * node:http's createServer (before the fake is imported) so the fake's own assignment is ignored;
 * nothing under test/ is changed.
 */
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'latency-ms': { type: 'string', default: '0' },
    'api-key': { type: 'string' },
    'keep-alive-ms': { type: 'string', default: '5000' },
  },
});
const keepAliveMs = Number(values['keep-alive-ms']);
if (!Number.isInteger(keepAliveMs) || keepAliveMs < 0) throw new Error('--keep-alive-ms needs a whole number of milliseconds');

const originalCreateServer = http.createServer;
http.createServer = ((...args: Parameters<typeof http.createServer>) => {
  const server = originalCreateServer(...args);
  // The fake assigns keepAliveTimeout right after createServer; this accessor keeps the what-if value.
  Object.defineProperty(server, 'keepAliveTimeout', { get: () => keepAliveMs, set: () => {}, configurable: true });
  return server;
}) as typeof http.createServer;
syncBuiltinESMExports(); // the fake's `import { createServer } from 'node:http'` now sees the wrapper

const { startFakeOpenAI, DEFAULT_FAKE_MODELS } = await import('../test/fake-openai/server.ts');
const latencyMs = Number(values['latency-ms']);
const fake = await startFakeOpenAI({
  port: Number(values.port),
  latencyMs,
  maxRecorded: 1_000,
  models: DEFAULT_FAKE_MODELS,
  ...(values['api-key'] !== undefined ? { apiKey: values['api-key'] } : {}),
});
// Same line as the standalone fake, which bench/judge.ts reads the port from.
console.log(`fake OpenAI listening on ${fake.baseURL} (latency ${latencyMs} ms; keep-alive ${keepAliveMs} ms [what-if]; counts at /__fake/counts)`);
const stop = (): void => { void fake.close().then(() => process.exit(0)); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
