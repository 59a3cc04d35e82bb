import { describe, expect, it } from 'vitest'
import { CARATS } from './carats'
import {
  dragPaths,
  playDuration,
  validatePlay,
  visibleAfterEvents,
  visibleAt,
  type Play,
  type RevealEvent,
} from './play'

const zones = { winningCells: CARATS.winningCells, yoursCells: CARATS.yoursCells }
const W = zones.winningCells
const Y = zones.yoursCells

const ev = (t: number, zone: 'winning' | 'yours', cell: number, gesture: 'click' | 'drag' = 'click'): RevealEvent => ({
  t,
  zone,
  cell,
  gesture,
})

/** All 30 cells clicked one by one, winning zone first, 400 ms apart. */
function clickPlay(): Play {
  const events: RevealEvent[] = []
  for (let c = 0; c < W; c++) events.push(ev(400 * events.length, 'winning', c))
  for (let c = Y - 1; c >= 0; c--) events.push(ev(400 * events.length, 'yours', c)) // any order within a zone
  return { mode: 'play', status: 'complete', events }
}

/** One drag over the winning zone, then clicks and two drags over "your numbers". */
function dragPlay(): Play {
  const events: RevealEvent[] = []
  let t = 1000
  for (let c = 0; c < W; c++) events.push(ev((t += 30), 'winning', c, 'drag'))
  events.push(ev((t += 700), 'yours', 0))
  for (let c = 1; c < 12; c++) events.push(ev((t += 25), 'yours', c, 'drag'))
  events.push(ev((t += 600), 'yours', 12))
  for (let c = 13; c < Y; c++) events.push(ev(c === 13 ? (t += 300) : (t += 25), 'yours', c, 'drag'))
  return { mode: 'play', status: 'complete', events }
}

/** "Auto": the game reveals everything, several cells at the same instant. */
function autoPlay(): Play {
  const events: RevealEvent[] = []
  for (let c = 0; c < W; c++) events.push(ev(0, 'winning', c))
  for (let c = 0; c < Y; c++) events.push(ev(200 + 50 * Math.floor(c / 6), 'yours', c))
  return { mode: 'auto', status: 'complete', events }
}

function expectOneError(play: Play, message: RegExp) {
  const errors = validatePlay(play, zones)
  expect(errors, JSON.stringify(errors)).toHaveLength(1)
  expect(errors[0]).toMatch(message)
}

describe('validatePlay accepts good plays', () => {
  it('a complete click play of all 30 cells', () => {
    expect(clickPlay().events).toHaveLength(30)
    expect(validatePlay(clickPlay(), zones)).toEqual([])
  })

  it('a drag play', () => {
    expect(validatePlay(dragPlay(), zones)).toEqual([])
  })

  it('an auto play (events at the same time are fine)', () => {
    expect(validatePlay(autoPlay(), zones)).toEqual([])
  })

  it('interrupted plays: after some winning numbers, after some of your numbers, before anything was shown', () => {
    const full = clickPlay().events
    for (const n of [0, 1, W, W + 1, 29]) {
      expect(
        validatePlay({ mode: 'play', status: 'interrupted', events: full.slice(0, n) }, zones),
        `${n} events`,
      ).toEqual([])
    }
    expect(
      validatePlay({ mode: 'auto', status: 'interrupted', events: autoPlay().events.slice(0, 10) }, zones),
    ).toEqual([])
  })
})

describe('validatePlay rejects each kind of bad play with a clear message', () => {
  it('"your numbers" before all winning numbers are shown', () => {
    const p = clickPlay()
    ;[p.events[5], p.events[6]] = [
      { ...p.events[6], t: p.events[5].t },
      { ...p.events[5], t: p.events[6].t },
    ]
    expectOneError(p, /event 6: "your numbers" revealed before the winning numbers \(5 of 6 shown\)/)
    const first = { mode: 'play', status: 'interrupted', events: [ev(0, 'yours', 3)] } as Play
    expectOneError(first, /event 1: "your numbers" revealed before the winning numbers \(0 of 6 shown\)/)
  })

  it('a cell revealed twice', () => {
    const p = clickPlay()
    p.events.push(ev(20_000, 'yours', 7))
    expectOneError(p, /event 31: yours cell 7 is revealed twice/)
    const q = clickPlay()
    q.events.splice(2, 0, ev(q.events[1].t, 'winning', 1))
    const errors = validatePlay(q, zones)
    expect(errors).toEqual(expect.arrayContaining([expect.stringMatching(/event 3: winning cell 1 is revealed twice/)]))
  })

  it('a cell out of range, or not a whole number', () => {
    for (const [zone, cell, range] of [
      ['winning', 6, '0–5'],
      ['winning', -1, '0–5'],
      ['yours', 24, '0–23'],
      ['yours', 2.5, '0–23'],
    ] as const) {
      const p: Play = {
        mode: 'play',
        status: 'interrupted',
        events: [...clickPlay().events.slice(0, W), ev(9000, zone, cell)],
      }
      expectOneError(p, new RegExp(`event 7: cell ${cell} is outside the ${zone} zone \\(${range}\\)`))
    }
  })

  it('t going back in time', () => {
    const p = clickPlay()
    p.events[10] = { ...p.events[10], t: p.events[9].t - 1 }
    expectOneError(p, /event 11: t goes back in time \(3599 ms after 3600 ms\)/)
  })

  it('negative or fractional t', () => {
    const p = clickPlay()
    p.events[0] = { ...p.events[0], t: -5 }
    expectOneError(p, /event 1: t must be a whole number of milliseconds ≥ 0, got -5/)
    const q = clickPlay()
    q.events[3] = { ...q.events[3], t: 1200.5 }
    expectOneError(q, /event 4: t must be a whole number of milliseconds ≥ 0, got 1200.5/)
  })

  it('a complete play that misses cells', () => {
    const p = clickPlay()
    p.events.pop()
    expectOneError(p, /a complete play reveals all 30 cells, this one reveals 29/)
    expectOneError({ mode: 'play', status: 'complete', events: [] }, /reveals all 30 cells, this one reveals 0/)
    const a = autoPlay()
    a.events.splice(0, 1) // winning cell 0 never shown (so "your numbers" also come too early)
    expect(validatePlay(a, zones)).toEqual(
      expect.arrayContaining([expect.stringMatching(/a complete play reveals all 30 cells, this one reveals 29/)]),
    )
  })

  it('an interrupted play that reveals every cell', () => {
    expectOneError(
      { ...clickPlay(), status: 'interrupted' },
      /the play reveals all 30 cells, so it is complete, not interrupted/,
    )
  })

  it('a drag in an auto play', () => {
    const p = autoPlay()
    p.events[8] = { ...p.events[8], gesture: 'drag' }
    expectOneError(p, /event 9: an auto play is revealed by the game, not by a drag/)
  })

  it('a bad mode, status, gesture, zone, event or event list', () => {
    expectOneError({ ...clickPlay(), mode: 'scratch' as never }, /mode must be "play" or "auto", got "scratch"/)
    expectOneError(
      { ...clickPlay(), status: 'done' as never },
      /status must be "complete" or "interrupted", got "done"/,
    )
    const g = clickPlay()
    g.events[0] = { ...g.events[0], gesture: 'swipe' as never }
    expectOneError(g, /event 1: gesture must be "click" or "drag", got "swipe"/)
    const z = clickPlay()
    z.events.push({ ...ev(99_999, 'yours', 0), zone: 'bonus' as never })
    expectOneError(z, /event 31: zone must be "winning" or "yours", got "bonus"/)
    const n = clickPlay()
    n.events.push(null as never)
    expectOneError(n, /event 31: not an event/)
    expect(validatePlay({ mode: 'play', status: 'complete', events: 'all' as never }, zones)).toEqual([
      'events must be a list',
    ])
    expect(validatePlay(null as never, zones)).toEqual(['a play must be an object with mode, status and events'])
  })

  it('lists every fault of a play with several', () => {
    const p: Play = {
      mode: 'auto',
      status: 'interrupted',
      events: [ev(10, 'yours', 0, 'drag'), ev(5, 'winning', 9), ev(20, 'winning', 0), ev(30, 'winning', 0)],
    }
    const errors = validatePlay(p, zones)
    expect(errors).toEqual([
      expect.stringMatching(/event 1: an auto play is revealed by the game, not by a drag/),
      expect.stringMatching(/event 1: "your numbers" revealed before the winning numbers/),
      expect.stringMatching(/event 2: t goes back in time/),
      expect.stringMatching(/event 2: cell 9 is outside the winning zone/),
      expect.stringMatching(/event 4: winning cell 0 is revealed twice/),
    ])
  })
})

describe('replay: visibleAt, visibleAfterEvents, playDuration', () => {
  const p = clickPlay()

  it('shows nothing before the first event and everything after the last', () => {
    const before = visibleAt(p, zones, -1)
    expect(before.eventsShown).toBe(0)
    expect(before.winning).toEqual(new Array(W).fill(false))
    expect(before.yours).toEqual(new Array(Y).fill(false))
    const after = visibleAt(p, zones, playDuration(p))
    expect(after.eventsShown).toBe(30)
    expect(after.winning.every(Boolean) && after.yours.every(Boolean)).toBe(true)
    expect(playDuration(p)).toBe(29 * 400)
    expect(playDuration({ ...p, events: [] })).toBe(0)
  })

  it('shows exactly the cells revealed at or before t', () => {
    const v = visibleAt(p, zones, 400 * 7) // events 0..7: the 6 winning cells, yours cells 23 and 22
    expect(v.eventsShown).toBe(8)
    expect(v.winning).toEqual(new Array(W).fill(true))
    expect(v.yours.flatMap((s, i) => (s ? [i] : []))).toEqual([22, 23])
    expect(visibleAt(p, zones, 400 * 7 - 1).eventsShown).toBe(7)
    // cells revealed at the same instant appear together
    const a = autoPlay()
    expect(visibleAt(a, zones, 0).winning).toEqual(new Array(W).fill(true))
    expect(visibleAt(a, zones, 0).yours.some(Boolean)).toBe(false)
    expect(visibleAt(a, zones, 250).yours.filter(Boolean)).toHaveLength(12)
  })

  it('steps event by event', () => {
    const a = autoPlay()
    expect(visibleAfterEvents(a, zones, 0).eventsShown).toBe(0)
    expect(visibleAfterEvents(a, zones, 3).winning).toEqual([true, true, true, false, false, false])
    expect(visibleAfterEvents(a, zones, 3).eventsShown).toBe(3)
    expect(visibleAfterEvents(a, zones, 100).eventsShown).toBe(30)
    for (let n = 0; n <= 30; n++)
      expect(visibleAfterEvents(p, zones, n)).toEqual(visibleAt(p, zones, n === 0 ? -1 : p.events[n - 1].t))
  })

  it('stepping through a play with no events shows nothing (an interrupted play may have none)', () => {
    const empty: Play = { mode: 'play', status: 'interrupted', events: [] }
    expect(validatePlay(empty, zones)).toEqual([])
    expect(visibleAfterEvents(empty, zones, 1).eventsShown).toBe(0)
  })
})

describe('dragPaths', () => {
  it('groups consecutive drag events into paths, in order', () => {
    const paths = dragPaths(dragPlay())
    expect(paths.map((path) => path.map((e) => `${e.zone[0]}${e.cell}`).join(' '))).toEqual([
      'w0 w1 w2 w3 w4 w5',
      'y1 y2 y3 y4 y5 y6 y7 y8 y9 y10 y11',
      'y13 y14 y15 y16 y17 y18 y19 y20 y21 y22 y23',
    ])
  })

  it('has no path for a click play', () => {
    expect(dragPaths(clickPlay())).toEqual([])
    expect(dragPaths({ mode: 'play', status: 'interrupted', events: [] })).toEqual([])
  })
})
