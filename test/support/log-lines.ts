import { Writable } from 'node:stream';

/** A stream for a logger that keeps each line it is given in `lines`, for a test to read back. */
export function collectLines(lines: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
}
