#!/usr/bin/env node
// Flagstaff is TypeScript run by Node 24's type stripping. An operator may start this file
// with an older system Node (18, 20): then it runs itself again under the Node 24 that
// `npm install` brought (the `node` package), with the same arguments, output and exit code.
// Plain JavaScript that Node 18 can parse, and no static import of the TypeScript code.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPILE_CACHE, MALLOC_ARENAS, V8_FLAGS } from './runtime-settings.js';

const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);

/** The V8_FLAGS this process was not started with. */
function missingV8Flags() {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return V8_FLAGS.filter((flag) => {
    const name = flag.split('=')[0];
    return !given.some((arg) => arg === name || arg.startsWith(`${name}=`));
  });
}

/** The environment Flagstaff runs in: the operator's, with MALLOC_ARENA_MAX unless they set it. */
function runtimeEnvironment(extra) {
  return { MALLOC_ARENA_MAX: MALLOC_ARENAS, ...process.env, ...extra };
}

/**
 * Replaces this process by the same command with the V8 flags it lacks and the malloc setting
 * (same pid: glibc reads it only as a process starts); returns when nothing is missing.
 */
function execWithRuntimeSettings() {
  const missing = missingV8Flags();
  const needed = missing.length > 0 || process.env.MALLOC_ARENA_MAX === undefined;
  // process.execve is Node 24's exec(2): not on Windows, where Flagstaff runs with V8's defaults.
  if (needed && typeof process.execve === 'function' && process.env.FLAGSTAFF_V8_FLAGS !== '1') {
    try {
      process.execve(
        process.execPath,
        [process.execPath, ...process.execArgv, ...missing, ...process.argv.slice(1)],
        runtimeEnvironment({ FLAGSTAFF_V8_FLAGS: '1' }),
      );
    } catch {
      // Not replaced (a sandbox refusing exec): run here with V8's defaults.
    }
  }
}

if (major >= REQUIRED_MAJOR) {
  execWithRuntimeSettings();
  module.enableCompileCache?.(COMPILE_CACHE);
  const { runCli } = await import('../src/cli.ts');
  runCli(process.argv.slice(2)).then(
    (code) => {
      if (code !== 0) process.exit(code);
    },
    (error) => {
      process.stderr.write(
        `flagstaff: ${error?.name === 'ConfigError' ? error.message : (error?.stack ?? error)}\n`,
      );
      process.exit(1);
    },
  );
} else {
  runUnderBundledNode();
}

/** The Node 24 binary installed by the `node` package, wherever npm placed it; undefined if absent. */
function bundledNode() {
  try {
    const pkg = createRequire(import.meta.url).resolve('node/package.json');
    const bin = join(dirname(pkg), 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

function runUnderBundledNode() {
  const node = bundledNode();
  // The variable guards against a loop should the bundled binary itself be an old Node.
  if (node === undefined || process.env.FLAGSTAFF_REEXECUTED === '1') {
    process.stderr.write(
      `flagstaff: needs Node.js ${REQUIRED_MAJOR} or newer (this is ${process.version}); ` +
        `run \`npm install\` in ${dirname(dirname(fileURLToPath(import.meta.url)))} to bring it, or start flagstaff with Node ${REQUIRED_MAJOR}\n`,
    );
    process.exit(1);
  }
  const child = spawn(node, [...missingV8Flags(), process.argv[1], ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: runtimeEnvironment({ FLAGSTAFF_REEXECUTED: '1' }),
  });
  // Ctrl-C reaches the whole process group anyway; a `kill <pid>` reaches only this process.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => {
    if (signal) {
      // End the way the child ended, so a supervisor sees the same signal.
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}
