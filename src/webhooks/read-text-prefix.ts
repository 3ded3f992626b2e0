/**
 * The first `limit` characters of a body, reading no more of it than they take (4 bytes a
 * character at most), then cancelling the rest: what a receiver sends beyond that is never
 * buffered. A body that fails midway gives what was read.
 */
export async function readTextPrefix(body: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < limit * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
    }
  } catch {
    // A receiver that breaks off its answer: what came is still worth showing.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, limit);
}
