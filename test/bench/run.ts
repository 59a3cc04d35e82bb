/**
 * `npm run bench`: figures for this machine. Medians over several runs; machines are noisy, so
 * read ratios and medians, and never turn these into test assertions.
 * `npm run bench -- core` runs one section.
 */
import { cpus, totalmem } from 'node:os'
import { benchCore } from './core'
import { benchUi } from './ui'
import { benchLedger } from './ledger'
import { benchRecall } from './recall'
import { benchCli } from './cli'
import { benchImport } from './import'
import { benchClaims } from './claims'
import { benchLoad } from './load'
import { benchVault } from './vault'
import { benchVerify } from './verify'

const sections: Record<string, () => Promise<unknown>> = {
  core: () => benchCore({ runs: 5 }),
  ui: () => benchUi({ runs: 5 }),
  ledger: () => benchLedger({ importLines: 200_000 }),
  recall: () => benchRecall(),
  cli: () => benchCli({ runs: 10 }),
  claims: () => benchClaims(),
  load: () => benchLoad(),
  vault: () => benchVault(),
  verify: () => benchVerify(),
  import: () => benchImport({ lines: Number(process.env.CARATS_BENCH_IMPORT_LINES || 100_000), runs: 5 }),
}

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'))
  const names = wanted.length > 0 ? wanted : Object.keys(sections)
  console.log(
    `# carats benchmarks: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
  )
  for (const n of names) {
    if (!sections[n]) throw new Error(`unknown section ${n} (have: ${Object.keys(sections).join(', ')})`)
    await sections[n]()
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e)
  process.exit(1)
})
