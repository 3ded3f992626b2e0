import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { BACKUP_USAGE, runBackupCommand } from './cli/backup.ts';
import { REFS_USAGE, runRefsCommand } from './cli/code-references/command.ts';
import { FLAGD_USAGE, runFlagdCommand } from './cli/flagd.ts';
import { FLAGS_AS_CODE_USAGE, runFlagsAsCode } from './cli/flags-as-code/command.ts';
import { runKeysCommand } from './cli/keys.ts';
import { MCP_USAGE, runMcpCommand } from './cli/mcp.ts';
import { processOutput } from './cli/operator.ts';
import { runWorkers } from './cli/workers.ts';
import { loadConfig, loadEdgeConfig } from './config.ts';
import { startEdge } from './edge/edge-node.ts';
import { serve } from './main.ts';
import { migrateToLatest, openDatabase } from './storage/open-database.ts';
import { openStore } from './storage/open-store.ts';

const USAGE = `Usage: flagstaff <command>

Commands:
  serve      run the API and dashboard (default)
  edge       run an edge: evaluation close to applications, following FLAGSTAFF_UPSTREAM_URL with
             FLAGSTAFF_EDGE_KEY, its last snapshot kept in FLAGSTAFF_EDGE_CACHE (docs/edge.md)
  migrate    bring the database schema up to date and exit
${FLAGD_USAGE}
${FLAGS_AS_CODE_USAGE}
${BACKUP_USAGE}
${MCP_USAGE}
${REFS_USAGE}
  keys       create, list or revoke API keys: flagstaff keys --help

Configuration comes from FLAGSTAFF_* environment variables (see README).`;

/** The `flagstaff` command line; returns the process exit code (serve keeps running). */
export async function runCli(argv: readonly string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: false,
    options: { help: { type: 'boolean', short: 'h' } },
  });
  const [command = 'serve'] = positionals;
  if (command === 'keys') {
    // Its own options (--project P …): parsed by the subcommand from everything after "keys".
    const store = await openStore(loadConfig().databaseUrl);
    try {
      return await runKeysCommand(argv.slice(argv.indexOf('keys') + 1), store);
    } finally {
      await store.close();
    }
  }
  if ((command === 'pull' || command === 'plan' || command === 'apply') && !values.help) {
    // Over the API of a running server, not the database: no database configuration needed.
    return runFlagsAsCode(command, argv.slice(argv.indexOf(command) + 1), processOutput);
  }
  if (command === 'refs' && !values.help) {
    return runRefsCommand(argv.slice(argv.indexOf(command) + 1), process.env, processOutput);
  }
  if (command === 'mcp' && !values.help) {
    // Like pull/plan/apply: over the API of a running server, as one key.
    return runMcpCommand(argv.slice(argv.indexOf(command) + 1), process.env, processOutput);
  }
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'serve' || command === 'edge') {
    // FLAGSTAFF_WORKERS=N: this process only supervises N workers that share the port.
    const { workers } = loadConfig();
    if (workers > 1 && cluster.isPrimary) return runWorkers(workers, (line) => process.stderr.write(line));
  }
  if (command === 'edge') {
    const edge = await startEdge(loadEdgeConfig());
    process.stdout.write(
      `Flagstaff edge is listening: ${edge.origin}, following ${edge.follower.upstream}\n`,
    );
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => void edge.close().then(() => process.exit(0)));
    }
    return 0;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      await serve(config);
      return 0;
    case 'migrate': {
      const { db } = openDatabase(config.databaseUrl);
      try {
        const applied = await migrateToLatest(db);
        process.stdout.write(
          applied.length ? `Applied: ${applied.join(', ')}\n` : 'The database is up to date.\n',
        );
      } finally {
        await db.destroy();
      }
      return 0;
    }
    case 'backup':
    case 'restore':
      return runBackupCommand(command, argv.slice(argv.indexOf(command) + 1), config);
    case 'import':
    case 'export':
      return runFlagdCommand(command, argv.slice(argv.indexOf(command) + 1), config);
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}
