import { describe, expect, it } from 'vitest'
import { CARATS } from '../../../game-core/carats'
import { validatePlay, type Play } from '../../../game-core/play'
import { formatSerial } from '../../../game-core/serial'
import { packPlay } from '../../ledger/play-codec'
import { packFastPlay, readFeedLineFast } from './feed-line'
import { feedLine } from './feed'
import { feedLineSchema } from './problems'
import { createSalesGenerator, seededRng } from '../simulator'

const W = CARATS.winningCells
const Y = CARATS.yoursCells

/** What the full path (JSON.parse, the schema, the rules) makes of a line: its fields and packed play, or null when it refuses it. */
function full(line: string) {
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch {
    return null
  }
  const p = feedLineSchema.safeParse(v)
  if (!p.success) return null
  const l = p.data
  let play: { code: number; events: Buffer } | null = null
  if (l.play) {
    const events = l.play.events as Record<string, unknown>[]
    if (
      events.some(
        (e) =>
          e === null ||
          typeof e !== 'object' ||
          Array.isArray(e) ||
          Object.keys(e).sort().join() !== 'cell,gesture,t,zone',
      )
    )
      return null
    if (validatePlay(l.play as Play, CARATS).length) return null
    play = packPlay(l.play as Play)
  }
  return { saleId: l.saleId, serial: l.serial, player: l.player, soldAt: l.soldAt, stakeCents: l.stakeCents, play }
}

/** The line read within a feed (a line after it) and alone at a feed's end: both must agree. */
function fast(line: string) {
  const inFeed = read(Buffer.from(`${line}\n${lines[0]}\n`), 0, Buffer.byteLength(line))
  expect(read(Buffer.from(line), 0, Buffer.byteLength(line))).toEqual(inFeed)
  return inFeed
}

function read(feed: Buffer, start: number, end: number) {
  const f = readFeedLineFast(feed, start, end)
  if (!f) return null
  const play = f.play === null ? null : packFastPlay(f.play, W, Y)
  if (f.play !== null && play === null) return null
  return { saleId: f.saleId, serial: f.serial, player: f.player, soldAt: f.soldAt, stakeCents: f.stakeCents, play }
}

const gen = createSalesGenerator({
  seed: 3,
  players: 500,
  count: 3000,
  fromMs: Date.parse('2025-01-02T00:00:00Z'),
  toMs: Date.parse('2025-02-01T00:00:00Z'),
  zones: CARATS,
})
const lines = Array.from({ length: 3000 }, (_, u) => {
  const d = gen.next()
  return feedLine({
    saleId: `F-${u}`,
    serial: formatSerial({ emission: 2, block: 1, unit: u }),
    player: d.player,
    soldAt: d.soldAt,
    stakeCents: 500,
    play: u % 50 === 7 ? null : d.play,
  })
})

describe('the fast feed-line reader', () => {
  it('reads the usual lines exactly as JSON.parse, the schema and the codec do', () => {
    for (const l of lines) {
      const f = fast(l)
      expect(f).not.toBeNull()
      expect(f).toEqual(full(l))
    }
  })

  it('reads other key orders the same, and leaves whitespace, escapes, duplicates and odd numbers to the full path', () => {
    const o = JSON.parse(lines[0])
    const reordered = JSON.stringify({
      play: o.play,
      stakeCents: o.stakeCents,
      soldAt: o.soldAt,
      player: o.player,
      serial: o.serial,
      saleId: o.saleId,
    })
    expect(fast(reordered)).toEqual(full(reordered))
    // events with their keys in another order, some or all of them
    type Ev = { t: number; zone: string; cell: number; gesture: string }
    const back = (e: Ev) => ({ gesture: e.gesture, cell: e.cell, zone: e.zone, t: e.t })
    for (const pick of [(i: number) => i % 2 === 0, () => true]) {
      const l = { ...o, play: { ...o.play, events: o.play.events.map((e: Ev, i: number) => (pick(i) ? back(e) : e)) } }
      const text = JSON.stringify(l)
      expect(fast(text)).not.toBeNull()
      expect(fast(text)).toEqual(full(text))
    }
    for (const odd of [
      JSON.stringify(o, null, 1),
      lines[0].replace('"F-0"', '"F\\u002d0"'),
      lines[0].replace('"stakeCents":500', '"stakeCents":5e2'),
      lines[0].replace('"stakeCents":500', '"stakeCents":500.0'),
      lines[0].replace('"stakeCents":500', '"stakeCents":500,"stakeCents":500'),
      lines[0].replace('"stakeCents":500', '"stakeCents":-500'),
      lines[0].replace('"stakeCents":500', '"stakeCents":0500'),
      lines[0].replace('"saleId":"F-0"', '"saleId":" F-0"'),
      lines[0].replace('"saleId":"F-0"', `"saleId":"${'x'.repeat(65)}"`),
      lines[0].replace('"t":', '"t":-'),
      lines[0].replace('"cell":0', '"cell":0,"extra":1'),
      lines[0] + ' ',
      lines[0].slice(0, -1),
    ])
      expect(fast(odd)).toBeNull()
  })

  it('reads names written in any script the same as the full path (UTF-8 of one to four bytes a character)', () => {
    const o = JSON.parse(lines[1])
    for (const player of ['Zoé', 'Łukasz Żółć', 'Ξένια', '李小龍', 'Ana 😀', 'é'.repeat(64), '😀'.repeat(32)]) {
      const text = JSON.stringify({ ...o, player })
      expect(fast(text)?.player).toBe(player)
      expect(fast(text)).toEqual(full(text))
    }
    // past 64 UTF-16 units the fast reader steps aside, and the schema (which counts characters) decides
    const long = JSON.stringify({ ...o, player: '😀'.repeat(33) })
    expect(fast(long)).toBeNull()
    expect(full(long)?.player).toBe('😀'.repeat(33))
  })

  it('never accepts a line that the full path refuses, nor reads one differently (random damage)', () => {
    const rng = seededRng(11)
    const alphabet = '{}[]":,0123456789-.eE tzonecllgsurkiwyfapd\\'
    let accepted = 0
    for (let k = 0; k < 20_000; k++) {
      const l = lines[Math.floor(rng() * lines.length)]
      const at = Math.floor(rng() * l.length)
      const ch = alphabet[Math.floor(rng() * alphabet.length)]
      const r = rng()
      const damaged =
        r < 0.4
          ? l.slice(0, at) + ch + l.slice(at + 1)
          : r < 0.7
            ? l.slice(0, at) + l.slice(at + 1)
            : l.slice(0, at) + ch + l.slice(at)
      const f = fast(damaged)
      if (f) {
        accepted++
        expect(f).toEqual(full(damaged))
      }
    }
    expect(accepted).toBeGreaterThan(0)
  })
  it('reads a line in place within the feed, and never past its end into the next line', () => {
    const bytes = (s: string) => Buffer.from(s)
    const second = readFeedLineFast(bytes(lines[1]))
    expect(second).not.toBeNull()
    const feed = bytes(lines.slice(0, 3).join('\n'))
    const [a, b] = [lines[0].length, lines[0].length + 1 + lines[1].length]
    expect(readFeedLineFast(feed, a + 1, b)).toEqual(second)
    const rng = seededRng(5)
    for (let k = 0; k < 2000; k++) {
      // the first line cut short anywhere, the second right after it
      const cut = 1 + Math.floor(rng() * (lines[0].length - 1))
      const text = bytes(lines[0].slice(0, cut) + '\n' + lines[1] + '\n' + lines[2])
      expect(readFeedLineFast(text, 0, cut)).toBeNull()
      expect(readFeedLineFast(text, cut + 1, cut + 1 + lines[1].length)).toEqual(second)
    }
  })
})
