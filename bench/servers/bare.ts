import Fastify from 'fastify';

// The HTTP benchmark's baseline: a bare Fastify route at the same path that returns the JSON
// Flagstaff returned (passed by the parent as argv[2]), with nothing else: no auth, no logger,
// no schema, no evaluation. What Flagstaff does beyond this is what the ratio measures.

const body = JSON.parse(process.argv[2] ?? '{}') as object;
const app = Fastify({ logger: false });
app.get('/v1/flags/:flagKey', async () => body);
await app.listen({ port: 0, host: '127.0.0.1' });

const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('no TCP address');
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'cpu') process.send?.({ type: 'cpu', usage: process.cpuUsage() });
});
process.send?.({ type: 'ready', port: address.port });
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void app.close().then(() => process.exit(0)));
