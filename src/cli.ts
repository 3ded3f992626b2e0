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
  // A subcommand's own options (--project P …): everything after its name.
  const rest = argv.slice(argv.indexOf(command) + 1);
  const overApi = await runOverApi(command, rest, values.help === true);
  if (overApi !== undefined) return overApi;
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'serve' || command === 'edge') {
    // FLAGSTAFF_WORKERS=N: this process only supervises N workers that share the port.
    const { workers } = loadConfig();
    if (workers > 1 && cluster.isPrimary) return runWorkers(workers, (line) => process.stderr.write(line));
  }
  if (command === 'edge') return runEdge();
  return runOnDatabase(command, rest);
}

/**
 * The commands that need no database configuration: keys (its own store, and its own --help),
 * and those over the API of a running server; undefined for any other command.
 */
async function runOverApi(
  command: string,
  rest: readonly string[],
  help: boolean,
): Promise<number | undefined> {
  if (command === 'keys') {
    const store = await openStore(loadConfig().databaseUrl);
    try {
      return await runKeysCommand(rest, store);
    } finally {
      await store.close();
    }
  }
  if (help) return undefined;
  if (command === 'pull' || command === 'plan' || command === 'apply') {
    // Over the API of a running server, not the database: no database configuration needed.
    return runFlagsAsCode(command, rest, processOutput);
  }
  if (command === 'refs') return runRefsCommand(rest, process.env, processOutput);
  // Like pull/plan/apply: over the API of a running server, as one key.
  if (command === 'mcp') return runMcpCommand(rest, process.env, processOutput);
  return undefined;
}

/** An edge, running until SIGINT or SIGTERM. */
async function runEdge(): Promise<number> {
  const edge = await startEdge(loadEdgeConfig());
  process.stdout.write(`Flagstaff edge is listening: ${edge.origin}, following ${edge.follower.upstream}\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void edge.close().then(() => process.exit(0)));
  }
  return 0;
}

/** The commands of a node on its database: serve, migrate, backup and restore, import and export. */
async function runOnDatabase(command: string, rest: readonly string[]): Promise<number> {
  const config = loadConfig();
  switch (command) {
    case 'serve':
      await serve(config);
      return 0;
    case 'migrate':
      return migrate(config.databaseUrl);
    case 'backup':
    case 'restore':
      return runBackupCommand(command, rest, config);
    case 'import':
    case 'export':
      return runFlagdCommand(command, rest, config);
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}

async function migrate(databaseUrl: string): Promise<number> {
  const { db } = openDatabase(databaseUrl);
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
