/**
 * The sales-feed import from the app against the command line, in one process and one ledger:
 * the same kind of feed (the next units of one emission, with their plays) imported through the
 * browser host over HTTP as the screen sends it, from Chromium (the file chosen in a file input,
 * its bytes read and posted as the body, as ImportSalesModal and the renderer's httpTransport do;
 * the import on the host's worker thread with its own connection) and as `carats sales import`
 * does (the file read in place, imported on this thread). Runs alternate which goes first; the
 * figure is the ratio of the medians of lines per second. `npm run bench -- import` (electron/services/import/README.md).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { BYTES_ARGS_HEADER, BYTES_CONTENT_TYPE } from '../../electron/contract/feed'
import type { Envelope } from '../../electron/contract/errors'
import { openBackend, type Backend } from '../../electron/app/backend'
import { feedLine, readFeedFile, warmFeedReader } from '../../electron/services/import'
import { createSalesGenerator } from '../../electron/services/simulator'
import { createHost, type Host } from '../../electron/host/server'
import { launchBrowser } from '../e2e/support/browser'
import type { Page } from 'playwright-core'
import { fmt, printTable, type BenchLine } from './stats'
import { completeCeremony } from '../support/ceremony'

/**
 * The page the browser imports from, served by the host: a file input, and the screen's request
 * (ImportSalesModal reads the chosen file's bytes; renderer/src/api/transports.ts posts them, in a
 * Blob, with these headers). A script of its own: the host's Content-Security-Policy allows no inline one.
 */
const PAGE = '<!doctype html><meta charset="utf-8"><input type="file" id="feed"><script src="bench.js"></script>'
const SCRIPT = `window.importFeed = async (token) => {
  const f = document.getElementById('feed').files[0]
  const start = performance.now()
  const bytes = new Uint8Array(await f.arrayBuffer())
  const headers = { 'content-type': '${BYTES_CONTENT_TYPE}', '${BYTES_ARGS_HEADER}': encodeURIComponent(JSON.stringify({ fileName: f.name })), authorization: 'Bearer ' + token }
  const res = await fetch('/api/sales:import', { method: 'POST', headers, body: new Blob([bytes]) })
  const envelope = await res.json()
  return { seconds: (performance.now() - start) / 1000, envelope }
}`

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** A feed of `count` lines of the emission's units from `from`, as the platform sends it. */
function writeFeed(path: string, emission: number, from: number, count: number, seed: number): number {
  const gen = createSalesGenerator({
    seed,
    players: Math.ceil(count / 20),
    count,
    fromMs: Date.parse('2025-01-02T00:00:00Z'),
    toMs: Date.parse('2025-02-01T00:00:00Z'),
    zones: CARATS,
  })
  const lines = Array.from({ length: count }, (_, i) => {
    const d = gen.next()
    return feedLine({
      saleId: `B-${from + i}`,
      serial: formatSerial({ emission, block: 1, unit: from + i }),
      player: d.player,
      soldAt: d.soldAt,
      stakeCents: CARATS.unitPriceCents,
      play: d.play,
    })
  })
  const text = lines.join('\n') + '\n'
  writeFileSync(path, text)
  return Buffer.byteLength(text)
}

/** An emission of the real game, one block generated (after its key ceremony), verified and opened. */
async function openEmission(b: Backend): Promise<number> {
  const s = b.services
  const e = s.emissions.create(b.actor, { blocks: 1, startsOn: '2025-01-01', demo: false })
  completeCeremony(s.ceremony, e.emission, { starter: b.actor })
  for (const start of [
    () => s.emissions.generate(b.actor, e.emission),
    () => s.emissions.verify(b.actor, e.emission),
  ]) {
    const end = await s.jobs.wait(start().id)
    if (end.state !== 'done') throw new Error(`${end.kind} ended ${end.state}: ${end.message}`)
  }
  s.emissions.open(b.actor, e.emission)
  return e.emission
}

/** The screen's way, in Chromium: the file chosen, its bytes read and posted to the host, the envelope read back. */
async function importViaApp(page: Page, token: string, path: string): Promise<number> {
  await page.locator('#feed').setInputFiles(path)
  const r = (await page.evaluate(`importFeed(${JSON.stringify(token)})`)) as {
    seconds: number
    envelope: Envelope<unknown>
  }
  if (!r.envelope.ok) throw new Error(`the app's import failed: ${r.envelope.error.message}`)
  return r.seconds
}

/** The command line's way (electron/cli/import-commands.ts): the file read in place, imported on this thread. */
function importViaCli(b: Backend, path: string): number {
  const start = performance.now()
  warmFeedReader()
  const bytes = readFeedFile(path)
  const r = b.services.importer.importHere(b.actor, bytes, 'bench-cli.jsonl')
  if (r.imported === 0) throw new Error('the command line imported nothing')
  return (performance.now() - start) / 1000
}

export async function benchImport(opts: { lines: number; runs: number }): Promise<BenchLine[]> {
  const log = (m: string) => process.stderr.write(`  ${m}\n`)
  const dir = mkdtempSync(join(tmpdir(), 'carats-bench-import-'))
  const b = openBackend({ dbPath: join(dir, 'ledger.db') })
  let host: Host | null = null
  const browser = await launchBrowser()
  try {
    log('generating and verifying a block of the real game…')
    const emission = await openEmission(b)
    b.services.users.create(b.actor, { name: 'bench-operator', role: 'operator', password: 'bench-password' })
    const { token } = await b.services.users.login('bench-operator', 'bench-password')
    const site = join(dir, 'site')
    mkdirSync(site)
    writeFileSync(join(site, 'index.html'), PAGE)
    writeFileSync(join(site, 'bench.js'), SCRIPT)
    host = await createHost({
      backend: b,
      staticDir: site,
      importWhileUploading: true,
      onError: (e) => log(`host: ${String(e)}`),
    })
    const page = await (await browser.newContext()).newPage()
    await page.goto(host.url)
    let next = 0
    const feed = (name: string, count: number, seed: number) => {
      const path = join(dir, name)
      const size = writeFeed(path, emission, next, count, seed)
      next += count
      return { path, size }
    }
    // warm both ways (the worker's code, the reader thread, the ledger's pages) on a small feed
    await importViaApp(page, token, feed('warm-app.jsonl', 2000, 1).path)
    importViaCli(b, feed('warm-cli.jsonl', 2000, 2).path)

    const app: number[] = []
    const cli: number[] = []
    let bytes = 0
    for (let run = 0; run < opts.runs; run++) {
      // alternate which goes first, so that neither always meets the other's checkpoint; each
      // feed is the emission's next units when its turn comes
      for (const way of run % 2 === 0 ? ['app', 'cli'] : ['cli', 'app']) {
        const f = feed(`${way}-${run}.jsonl`, opts.lines, (way === 'app' ? 10 : 100) + run)
        bytes = f.size
        if (way === 'app') app.push(opts.lines / (await importViaApp(page, token, f.path)))
        else cli.push(opts.lines / importViaCli(b, f.path))
        rmSync(f.path)
      }
      log(`run ${run + 1}: app ${fmt(app.at(-1)!, 0)}, command line ${fmt(cli.at(-1)!, 0)} lines/s`)
    }
    const ratio = median(app) / median(cli)
    const lines: BenchLine[] = [
      {
        name: `import ${opts.lines.toLocaleString('en-US')} lines (${fmt(bytes / opts.lines, 0)} B each) from the app (Chromium, HTTP host, bytes), median lines/s`,
        value: fmt(median(app), 0),
      },
      { name: '  runs', value: app.map((x) => fmt(x, 0)).join(', ') },
      { name: '  the same from the command line (file read in place), median lines/s', value: fmt(median(cli), 0) },
      { name: '  runs', value: cli.map((x) => fmt(x, 0)).join(', ') },
      { name: '  app ÷ command line', value: fmt(ratio, 2), target: '≥ 0.80', ok: ratio >= 0.8 },
    ]
    printTable('Import: app against command line', lines)
    return lines
  } finally {
    await browser.close()
    await host?.close()
    await b.closeGracefully()
    rmSync(dir, { recursive: true, force: true })
  }
}
