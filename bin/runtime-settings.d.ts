// The types of runtime-settings.js, for the TypeScript that reads it (bench/child.ts).
export declare const V8_FLAGS: string[];
export declare const MALLOC_ARENAS: string;
export declare const COMPILE_CACHE: string;
