/**
 * Asks `probe` again (every 20 ms) until it returns true, for at most `withinMs`; returns whether
 * it did. For what docs/product.md promises within a bound ("within 1 s on every other node").
 */
export async function eventually(probe: () => Promise<boolean>, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
