import { describe, expect, it } from 'vitest'
import { packPlay, unpackPlay } from './play-codec'
import type { Play } from '../../game-core/play'
import { validatePlay } from '../../game-core/play'

describe('play codec', () => {
  it('round-trips a drag play with long pauses and stays small', () => {
    const events: Play['events'] = []
    let t = 0
    for (let c = 0; c < 6; c++) events.push({ t: (t += 400), zone: 'winning', cell: c, gesture: 'click' })
    t += 70_000 // a long pause needs a three-byte varint
    for (let c = 23; c >= 0; c--)
      events.push({ t: (t += c % 3 === 0 ? 0 : 35), zone: 'yours', cell: c, gesture: 'drag' })
    const play: Play = { mode: 'play', status: 'complete', events }
    expect(validatePlay(play, { winningCells: 6, yoursCells: 24 })).toEqual([])
    const { code, events: blob } = packPlay(play)
    // 6 events with a 2-byte delay, one with a 3-byte delay, 23 with a 1-byte delay (< 128 ms)
    expect(blob.length).toBe(6 * 3 + 1 * 4 + 23 * 2)
    expect(unpackPlay(code, blob)).toEqual(play)
  })

  it('round-trips every mode and status, and an empty interrupted play', () => {
    for (const mode of ['play', 'auto'] as const) {
      for (const status of ['complete', 'interrupted'] as const) {
        const play: Play = {
          mode,
          status,
          events: status === 'interrupted' ? [] : [{ t: 5, zone: 'winning', cell: 5, gesture: 'click' }],
        }
        const packed = packPlay(play)
        expect(unpackPlay(packed.code, packed.events)).toEqual(play)
      }
    }
    expect(unpackPlay(null, null)).toBeNull()
  })

  it('refuses a truncated blob', () => {
    const { code, events } = packPlay({
      mode: 'play',
      status: 'interrupted',
      events: [{ t: 1000, zone: 'winning', cell: 0, gesture: 'click' }],
    })
    expect(() => unpackPlay(code, events.subarray(0, events.length - 1))).toThrow(/truncated/)
  })
})

describe('isValidPlayFast agrees with validatePlay', () => {
  it('on valid plays and on every kind of broken play', async () => {
    const { isValidPlayFast } = await import('./play-codec')
    const zones = { winningCells: 6, yoursCells: 24 }
    // a small deterministic generator (the test must be reproducible)
    let s = 12345
    const rnd = (n: number) => (s = (s * 1103515245 + 12345) & 0x7fffffff) % n
    let agreeValid = 0
    let agreeInvalid = 0
    for (let k = 0; k < 20000; k++) {
      const events: Play['events'] = []
      let t = 0
      const w = [0, 1, 2, 3, 4, 5].sort(() => rnd(3) - 1)
      const y = Array.from({ length: 24 }, (_, i) => i).sort(() => rnd(3) - 1)
      const mode = rnd(2) ? 'play' : 'auto'
      for (const c of w) events.push({ t: (t += rnd(300)), zone: 'winning', cell: c, gesture: 'click' })
      for (const c of y)
        events.push({
          t: (t += rnd(80)),
          zone: 'yours',
          cell: c,
          gesture: mode === 'play' && rnd(2) ? 'drag' : 'click',
        })
      let status: Play['status'] = 'complete'
      if (rnd(4) === 0) {
        events.length = rnd(events.length)
        status = 'interrupted'
      }
      const play = { mode, status, events } as Play
      // break it in one of many ways, or not at all
      const e = events.length ? events[rnd(events.length)] : null
      const r = rnd(16)
      const mutable = e as unknown as Record<string, unknown>
      if (e && r === 0) mutable.t = -1
      if (e && r === 1) mutable.t = 1.5
      if (e && r === 2) mutable.cell = 24
      if (e && r === 3) mutable.cell = e.zone === 'winning' ? 6 : -1
      if (e && r === 4) mutable.zone = 'other'
      if (e && r === 5) mutable.gesture = 'drag'
      if (e && r === 6) mutable.gesture = 'tap'
      if (r === 7 && events.length > 1) events.push({ ...events[0], t: t + 1 })
      if (r === 8 && events.length > 2) {
        const a = events[1]
        events[1] = events[2]
        events[2] = a
      }
      if (r === 9)
        (play as unknown as Record<string, unknown>).status = status === 'complete' ? 'interrupted' : 'complete'
      if (r === 10) (play as unknown as Record<string, unknown>).mode = 'manual'
      if (e && r === 11) mutable.t = (e.t as number) + 100000
      const slow = validatePlay(play, zones).length === 0
      expect(isValidPlayFast(play, 6, 24)).toBe(slow)
      if (slow) agreeValid++
      else agreeInvalid++
    }
    // both sides were exercised
    expect(agreeValid).toBeGreaterThan(1000)
    expect(agreeInvalid).toBeGreaterThan(1000)
  })
})
