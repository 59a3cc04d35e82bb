/**
 * `npm run serve -- --db <file or postgresql:// URL> [--key-file <file>] [--port N]`: the browser host as a command. Prints exactly one
 * line on stdout, `listening on http://127.0.0.1:<port>/`; anything else goes to stderr. The
 * ledger is opened just after that line, while the browser loads the app; if it cannot be opened,
 * the host says why on stderr and exits with status 1.
 *
 * This file is bundled into out/main/host.js (electron.vite.config.ts), which the launcher
 * serve.mjs runs after building out/ if it is missing or stale: no TypeScript is compiled when
 * the host starts. It serves out/renderer, found from its own folder (out/main, or electron/host
 * when run from source with tsx).
 */
import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { isPostgresUrl } from '../ledger/location'
import { resolveLedger, userDataDir } from '../ledger/paths'
import { lazyBackend } from './lazy-backend'
import { createHost } from './server'

const PROJECT_ROOT = resolve(__dirname, '..', '..')

const USAGE =
  'usage: npm run serve -- [--db <file>|<postgresql://…>] [--key-file <file>] [--port N]\n' +
  '  default ledger: CARATS_DB, else the setting saved on the Ledger setting screen, else the per-user data folder;\n' +
  "  a PostgreSQL ledger needs --key-file, CARATS_KEY_FILE or the setting's key file"

/** The value of `--name <v>` or `--name=<v>`, if given. */
function optionValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.findIndex((a) => a === name || a.startsWith(`${name}=`))
  if (i < 0) return undefined
  const v = argv[i].startsWith(`${name}=`) ? argv[i].slice(name.length + 1) : argv[i + 1]
  if (!v || v.startsWith('--')) throw new Error(`${name} needs a value\n${USAGE}`)
  return v
}

function portArgument(argv: readonly string[]): number {
  const raw = optionValue(argv, '--port')
  if (raw === undefined) return 0
  const port = Number(raw)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port needs a port number from 0 to 65535, not ${raw ?? 'nothing'}`)
  return port
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  if (argv.includes('--help') || argv.includes('-h')) {
    console.error(USAGE)
    return
  }
  const known = new Set(['--db', '--port', '--key-file'])
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].split('=')[0]
    if (!known.has(name)) throw new Error(`unknown option ${argv[i]}\n${USAGE}`)
    if (!argv[i].includes('=')) i++
  }
  const port = portArgument(argv)
  // npm runs scripts from the package folder; INIT_CWD is where the user typed the command.
  const cwd = process.env.INIT_CWD || process.cwd()
  // --db > CARATS_DB > this workstation's setting (ledger.json) > the default file, as the Electron app
  const dataDir = userDataDir({ platform: process.platform, env: process.env, home: homedir() })
  const choice = resolveLedger({ argv, env: process.env, dataDir, cwd })
  const dbPath = choice.location
  // the workers and the CLI's helpers find the key file here too
  if (choice.keyFile) process.env.CARATS_KEY_FILE = choice.keyFile

  if (!isPostgresUrl(dbPath)) mkdirSync(dirname(dbPath), { recursive: true })
  // The ledger is opened once the host listens, while the browser loads the app (lazy-backend.ts);
  // the services' code is loaded then too. A ledger that cannot be opened stops the host.
  const backend = lazyBackend(
    async () => {
      const { openBackend, HOST_READ_THREADS } = await import('../app/backend')
      return openBackend({
        dbPath,
        keyFile: choice.keyFile,
        ledgerChoice: choice,
        readThreads: HOST_READ_THREADS,
        sendsToVault: true,
        expiresClaims: true,
        watchesChanges: true,
      })
    },
    (e) => {
      console.error(e instanceof Error ? e.message : String(e))
      process.exit(1)
    },
  )
  const host = await createHost({
    backend,
    staticDir: join(PROJECT_ROOT, 'out', 'renderer'),
    port,
    importWhileUploading: true,
  })
  console.log(`listening on ${host.url}`)
  backend.openWhenIdle(host.server)

  let stopping = false
  const stop = () => {
    if (stopping) {
      backend.close()
      process.exit(0)
    }
    stopping = true
    // Running tasks stop at their next checkpoint; a second signal does not wait for them.
    void host
      .close()
      .then(() => backend.closeGracefully())
      .finally(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((e: unknown) => {
  const err = e as { code?: string; message?: string }
  if (err.code === 'EADDRINUSE')
    console.error('that port is already in use: choose another with --port N, or --port 0 for any free port')
  else console.error(err.message ?? String(e))
  process.exit(1)
})
