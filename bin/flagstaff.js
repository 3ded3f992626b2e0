#!/usr/bin/env node
import { runCli } from '../src/cli.ts';

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
