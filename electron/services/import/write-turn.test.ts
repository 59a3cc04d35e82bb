/**
 * The write turn between the host's thread and an import worker: never both at once, the host's
 * thread never blocked while it waits, and neither side shut out by the other.
 */
import { buildSync } from 'esbuild'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it } from 'vitest'
import { WriteTurn } from './write-turn'

/** A worker that holds the turn for `ms` when asked, and says when it took it and gave it back. */
const DRIVER = `
const { parentPort, workerData } = require('node:worker_threads')
const turn = WriteTurn.of(workerData)
const nap = new Int32Array(new SharedArrayBuffer(4))
parentPort.on('message', ({ ms }) => {
  const asked = Date.now()
  parentPort.postMessage({ asking: true })
  // both stamped while the turn is held: a stamp taken after the turn was given back could come
  // a millisecond after the other side's entry
  const [took, gave] = turn.hold(() => {
    const t = Date.now()
    parentPort.postMessage({ holding: true })
    Atomics.wait(nap, 0, 0, ms)
    return [t, Date.now()]
  })
  parentPort.postMessage({ asked, took, gave })
})`

function importWorker(turn: WriteTurn): Worker {
  const lib = buildSync({
    entryPoints: [join(__dirname, 'write-turn.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'turnLib',
    platform: 'node',
    write: false,
  }).outputFiles[0].text
  return new Worker(`${lib}\nconst { WriteTurn } = turnLib\n${DRIVER}`, { eval: true, workerData: turn.memory })
}

interface Held {
  asked: number
  took: number
  gave: number
}

/** Asks the worker to hold the turn for `ms`: `holding` once it has it, `done` once it gave it back. */
function holdIn(w: Worker, ms: number): { asking: Promise<void>; holding: Promise<void>; done: Promise<Held> } {
  let asking: () => void = () => {}
  let holding: () => void = () => {}
  let done: (h: Held) => void = () => {}
  const listen = (m: Held | { holding: true } | { asking: true }) => {
    if ('asking' in m) return asking()
    if ('holding' in m) return holding()
    w.off('message', listen)
    done(m)
  }
  w.on('message', listen)
  w.postMessage({ ms })
  return {
    asking: new Promise((r) => (asking = r)),
    holding: new Promise((r) => (holding = r)),
    done: new Promise((r) => (done = r)),
  }
}
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('the write turn', () => {
  let worker: Worker | null = null
  afterEach(async () => {
    await worker?.terminate()
  })

  it('keeps a call waiting while the import holds it, with the event loop free, and lets it in after', async () => {
    const turn = WriteTurn.create()
    worker = importWorker(turn)
    const held = holdIn(worker, 300)
    await held.holding
    let ticks = 0
    const ticker = setInterval(() => ticks++, 10)
    const giveBack = await turn.enter()
    const entered = Date.now()
    clearInterval(ticker)
    giveBack()
    const h = await held.done
    expect(entered).toBeGreaterThanOrEqual(h.gave)
    // the host went on answering meanwhile: its timers ran while the call waited
    expect(ticks).toBeGreaterThan(5)
  })

  it('keeps the import waiting while calls hold it, and new calls wait behind that import', async () => {
    const turn = WriteTurn.create()
    worker = importWorker(turn)
    const first = await turn.enter()
    const held = holdIn(worker, 50)
    // the worker waits for the turn
    await held.asking
    await delay(50)
    // an import waits: a call arriving now waits for it
    let laterIn = 0
    const later = turn.enter().then((give) => {
      laterIn = Date.now()
      give()
    })
    await delay(50)
    expect(laterIn).toBe(0)
    const firstOut = Date.now()
    first()
    const h = await held.done
    await later
    expect(h.took).toBeGreaterThanOrEqual(firstOut)
    expect(laterIn).toBeGreaterThanOrEqual(h.gave)
  })

  it('lets the calls that waited in before the next import', async () => {
    const turn = WriteTurn.create()
    worker = importWorker(turn)
    const w = worker
    const one = holdIn(w, 200)
    await one.holding
    const entered: number[] = []
    const calls = [0, 1, 2].map(() => turn.enter().then((give) => (entered.push(Date.now()), delay(20).then(give))))
    const h1 = await one.done
    const two = holdIn(w, 10)
    await Promise.all(calls)
    const h2 = await two.done
    expect(entered).toHaveLength(3)
    for (const t of entered) {
      expect(t).toBeGreaterThanOrEqual(h1.gave)
      expect(t).toBeLessThanOrEqual(h2.took)
    }
  })
})
