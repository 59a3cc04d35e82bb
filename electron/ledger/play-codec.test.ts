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
    for (let c = 23; c >= 0; c--) events.push({ t: (t += c % 3 === 0 ? 0 : 35), zone: 'yours', cell: c, gesture: 'drag' })
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
        const play: Play = { mode, status, events: status === 'interrupted' ? [] : [{ t: 5, zone: 'winning', cell: 5, gesture: 'click' }] }
        const packed = packPlay(play)
        expect(unpackPlay(packed.code, packed.events)).toEqual(play)
      }
    }
    expect(unpackPlay(null, null)).toBeNull()
  })

  it('refuses a truncated blob', () => {
    const { code, events } = packPlay({ mode: 'play', status: 'interrupted', events: [{ t: 1000, zone: 'winning', cell: 0, gesture: 'click' }] })
    expect(() => unpackPlay(code, events.subarray(0, events.length - 1))).toThrow(/truncated/)
  })
})
