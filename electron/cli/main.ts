/**
 * `carats`: the command line over the same game core and services as the app.
 * Usage: npm run --silent carats -- [--db <file>] [--json] <command> …
 * `--json` prints one JSON document on stdout; progress goes to stderr; an error exits non-zero
 * with a one-line message.
 *
 * Bundled into out/main/cli.js (electron.vite.config.ts), which the launcher carats.mjs runs
 * after building out/ if it is missing or stale: no TypeScript is compiled when `carats` starts.
 * `node out/main/cli.js …` and, from source, `npx tsx electron/cli/main.ts …` run it directly.
 */
import { resolve } from 'node:path'
import { blockCommands } from './block-commands'
import { claimCommands, claimSynopsis } from './claim-commands'
import { liabilityCommands, liabilitySynopsis } from './liability-commands'
import { ceremonyCommands, ceremonySynopsis } from './ceremony-commands'
import { integrityCommands } from './integrity-commands'
import { ledgerCommands, ledgerSynopsis } from './ledger-commands'
import { verdictCommands } from './verdict-commands'
import { playerCommands } from './player-commands'
import { proofCommands } from './proof-commands'
import { publishCommands, publishSynopsis } from './publish-commands'
import { userCommands } from './user-commands'
import { vaultCommands, vaultSynopsis } from './vault-commands'
import { stdio, UsageError, type Command } from './io'
import { AppError } from '../contract/errors'

const commands: Record<string, Command> = {
  ...blockCommands,
  ...ledgerCommands,
  ...ceremonyCommands,
  ...playerCommands,
  ...verdictCommands,
  ...integrityCommands,
  ...proofCommands,
  ...publishCommands,
  ...claimCommands,
  ...liabilityCommands,
  ...userCommands,
  ...vaultCommands,
}

/** Commands whose arguments `carats help` spells out (the others: by name). */
const SYNOPSIS: Record<string, string[]> = {
  ...ledgerSynopsis,
  ...ceremonySynopsis,
  ...publishSynopsis,
  ...claimSynopsis,
  ...liabilitySynopsis,
  ...vaultSynopsis,
}

const USAGE = `usage: carats [--db <file>|<postgresql://…>] [--key-file <file>] [--json] <command>
commands:
${Object.keys(commands)
  .flatMap((c) => (SYNOPSIS[c] ?? [c]).map((line) => `  ${line}`))
  .join('\n')}`

export async function runCli(argv: string[], io = stdio()): Promise<number> {
  const rest: string[] = []
  let json = false
  let db = process.env.CARATS_DB || undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (rest.length === 0 && (a === '--key-file' || a.startsWith('--key-file='))) {
      // before the command only: `restore` has a --key-file of its own (the backup's key)
      const file = a === '--key-file' ? argv[++i] : a.slice('--key-file='.length)
      if (!file) {
        io.err('carats: --key-file needs a file name\n')
        return 2
      }
      process.env.CARATS_KEY_FILE = resolve(file)
    } else if (a === '--json') json = true
    else if (a === '--db') {
      db = argv[++i]
      if (!db) {
        io.err('carats: --db needs a file name\n')
        return 2
      }
    } else if (a.startsWith('--db=')) db = a.slice(5)
    else rest.push(a)
  }
  if (rest.length === 0 || rest[0] === 'help' || rest[0] === '--help') {
    io.out(USAGE + '\n')
    return rest.length === 0 ? 2 : 0
  }
  const name = [2, 1].map((n) => rest.slice(0, n).join(' ')).find((n) => commands[n])
  if (!name) {
    io.err(`carats: unknown command "${rest.slice(0, 2).join(' ')}" (try: carats help)\n`)
    return 2
  }
  try {
    return await commands[name]({ args: rest.slice(name.split(' ').length), json, db, io })
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    io.err(`carats ${name}: ${message.split('\n')[0]}\n`)
    if (
      e instanceof UsageError ||
      (e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'))
    )
      return 2
    return e instanceof AppError ? 1 : 1
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code
  })
}
