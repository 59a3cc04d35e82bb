// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { nextTick } from 'vue'
import ScratchReplay from './ScratchReplay.vue'
import { LEAD_IN_MS, TAIL_MS } from './useReplay'
import { mountWithApp } from '../testing'
import type { Play, RevealEvent } from '../../../game-core/play'

const ticket = {
  winning: [3, 17, 22, 31, 40, 48],
  numbers: [17, 1, 2, 4, 6, 7, 8, 9, 11, 12, 13, 14, 16, 18, 19, 20, 21, 23, 24, 25, 26, 27, 28, 29],
  amountsCents: new Array(24).fill(1000),
  matches: [0],
  prizeCents: 1000,
}

// Winning cells clicked every 100 ms, then "your numbers" dragged over every 50 ms.
function handPlay(yoursShown = 24): Play {
  const events: RevealEvent[] = []
  for (let c = 0; c < 6; c++) events.push({ t: c * 100, zone: 'winning', cell: c, gesture: 'click' })
  for (let c = 0; c < yoursShown; c++) events.push({ t: 1000 + c * 50, zone: 'yours', cell: c, gesture: 'drag' })
  return { mode: 'play', status: yoursShown === 24 ? 'complete' : 'interrupted', events }
}

const revealed = (w: ReturnType<typeof mountWithApp>) =>
  w.findAll('.cell').filter((c) => !c.classes().includes('hidden')).length

describe('ScratchReplay', () => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['requestAnimationFrame', 'cancelAnimationFrame', 'setTimeout', 'clearTimeout', 'performance', 'Date'],
    })
  })
  afterEach(() => vi.useRealTimers())

  it('starts covered, then reveals cell by cell at the original pace', async () => {
    const w = mountWithApp(ScratchReplay, { props: { ticket, play: handPlay() } })
    expect(revealed(w)).toBe(0)
    await w.get('[data-test="toggle"]').trigger('click')
    vi.advanceTimersByTime(LEAD_IN_MS + 250)
    await nextTick()
    // t ≈ 250 ms: the winning cells clicked at 0, 100 and 200 ms (one frame of slack).
    expect(revealed(w)).toBeGreaterThanOrEqual(3)
    expect(revealed(w)).toBeLessThanOrEqual(4)
    vi.advanceTimersByTime(2000 + TAIL_MS)
    await nextTick()
    expect(revealed(w)).toBe(30)
    expect(w.find('[data-test="outcome"]').text()).toContain('Winning: €10')
  })

  it('runs twice as fast at 2×', async () => {
    const w = mountWithApp(ScratchReplay, { props: { ticket, play: handPlay() } })
    const r = (w.vm as unknown as { replay: { speed: { value: number } } }).replay
    r.speed.value = 2
    await w.get('[data-test="toggle"]').trigger('click')
    vi.advanceTimersByTime(LEAD_IN_MS / 2 + 300)
    await nextTick()
    expect(revealed(w)).toBe(6)
  })

  it("starts the next ticket's play from the beginning at 1×, whatever the last one was left at", async () => {
    const w = mountWithApp(ScratchReplay, { props: { ticket, play: handPlay() } })
    const r = (w.vm as unknown as { replay: { speed: { value: number }; eventsShown: { value: number } } }).replay
    r.speed.value = 4
    for (let i = 0; i < 3; i++) await w.get('[data-test="step-forward"]').trigger('click')
    expect(r.eventsShown.value).toBe(3)
    await w.setProps({ play: handPlay(10) })
    expect(r.speed.value).toBe(1)
    expect(r.eventsShown.value).toBe(0)
    expect(revealed(w)).toBe(0)
  })

  it('steps one reveal at a time, forward and back, and pauses', async () => {
    const w = mountWithApp(ScratchReplay, { props: { ticket, play: handPlay() } })
    for (let i = 0; i < 7; i++) await w.get('[data-test="step-forward"]').trigger('click')
    expect(revealed(w)).toBe(7)
    expect(w.get('[data-test="count"]').text()).toBe('7 / 30 reveals')
    await w.get('[data-test="step-back"]').trigger('click')
    await w.get('[data-test="step-back"]').trigger('click')
    expect(revealed(w)).toBe(5)
    // The drag is drawn over the grid once a drag reveal is shown.
    expect(w.findAll('.drag-path')).toHaveLength(0)
    for (let i = 0; i < 3; i++) await w.get('[data-test="step-forward"]').trigger('click')
    expect(w.findAll('.drag-path')).toHaveLength(1)
    vi.advanceTimersByTime(5000)
    await nextTick()
    expect(revealed(w)).toBe(8)
  })

  it('scrubs the timeline to any moment', async () => {
    const w = mountWithApp(ScratchReplay, { props: { ticket, play: handPlay() } })
    const r = (w.vm as unknown as { replay: { seek(c: number): void } }).replay
    r.seek(LEAD_IN_MS + 1000 + 5 * 50)
    await nextTick()
    expect(revealed(w)).toBe(6 + 6)
    r.seek(0)
    await nextTick()
    expect(revealed(w)).toBe(0)
    expect(w.find('[data-test="outcome"]').exists()).toBe(false)
  })

  it('shows an interrupted play as it happened, then the outcome', async () => {
    const w = mountWithApp(ScratchReplay, { props: { ticket, play: handPlay(10), autoplay: true } })
    vi.advanceTimersByTime(LEAD_IN_MS + 2000 + TAIL_MS)
    await nextTick()
    expect(revealed(w)).toBe(16)
    expect(w.find('[data-test="outcome"]').text()).toContain('Winning: €10')
    expect(w.find('[data-test="interrupted"]').text()).toContain('did not see 14 cells')
  })
})

describe('ScratchReplay keyboard', () => {
  it('steps with the arrow keys and plays with space', async () => {
    vi.useFakeTimers({ toFake: ['requestAnimationFrame', 'cancelAnimationFrame', 'performance'] })
    const w = mountWithApp(ScratchReplay, { props: { ticket, play: handPlay() } })
    await w.get('.replay').trigger('keydown', { key: 'ArrowRight' })
    await w.get('.replay').trigger('keydown', { key: 'ArrowRight' })
    expect(revealed(w)).toBe(2)
    await w.get('.replay').trigger('keydown', { key: 'ArrowLeft' })
    expect(revealed(w)).toBe(1)
    await w.get('.replay').trigger('keydown', { key: ' ' })
    vi.advanceTimersByTime(10_000)
    await nextTick()
    expect(revealed(w)).toBe(30)
    vi.useRealTimers()
  })
  it('leaves a focused control its own keys: space presses the button, not play', async () => {
    const w = mountWithApp(ScratchReplay, { props: { ticket, play: handPlay() } })
    const next = w.get('[data-test="step-forward"]')
    await next.trigger('keydown', { key: ' ' })
    await next.trigger('keydown', { key: 'ArrowRight' })
    expect(revealed(w)).toBe(0) // neither played nor stepped by the region's shortcuts
    await next.trigger('click')
    expect(revealed(w)).toBe(1)
  })
})
