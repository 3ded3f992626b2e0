// The part of autocannon's API the HTTP benchmark uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    headers?: Record<string, string>;
  }

  export interface Result {
    /** Seconds. */
    duration: number;
    '2xx': number;
    non2xx: number;
    errors: number;
    timeouts: number;
  }

  /** Emits `response` (client, statusCode, bytes, responseTime in ms) for every response. */
  export type Instance = EventEmitter;

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
