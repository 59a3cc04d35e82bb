// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import TicketGrid from './TicketGrid.vue'
import { mountWithApp } from '../testing'

const winning = [3, 17, 22, 31, 40, 48]
const numbers = [17, 1, 2, 4, 6, 7, 8, 9, 11, 12, 13, 14, 16, 18, 19, 20, 21, 23, 24, 25, 26, 40, 27, 28]
const amountsCents = numbers.map((_, i) => (i === 0 ? 1000 : i === 21 ? 500 : 5000))
const matches = [0, 21]

const cell = (w: ReturnType<typeof mountWithApp>, id: string) => w.get(`[data-cell="${id}"]`)

describe('TicketGrid', () => {
  it('draws 6 diamonds and 24 gems with numbers and amounts', () => {
    const w = mountWithApp(TicketGrid, { props: { winning, numbers, amountsCents, matches } })
    expect(w.findAll('.diamond')).toHaveLength(6)
    expect(w.findAll('.gem')).toHaveLength(24)
    expect(cell(w, 'winning-1').text()).toBe('17')
    expect(cell(w, 'yours-0').text()).toContain('17')
    expect(cell(w, 'yours-0').text()).toContain('€10')
    expect(cell(w, 'yours-2').text()).toContain('€50')
  })

  it('highlights the matching gems and the winning numbers they match, nothing else', () => {
    const w = mountWithApp(TicketGrid, { props: { winning, numbers, amountsCents, matches } })
    const lit = w.findAll('.match').map((x) => x.attributes('data-cell'))
    expect(lit.sort()).toEqual(['winning-1', 'winning-4', 'yours-0', 'yours-21'])
  })

  it('keeps hidden cells covered and lights a match only once both of its cells are revealed', () => {
    const revealedWinning = [true, true, true, true, true, true]
    const revealedYours = numbers.map((_, i) => i === 0)
    const w = mountWithApp(TicketGrid, {
      props: { winning, numbers, amountsCents, matches, revealedWinning, revealedYours },
    })
    expect(cell(w, 'yours-21').classes()).toContain('hidden')
    expect(cell(w, 'yours-21').text()).toBe('')
    expect(cell(w, 'yours-0').classes()).toContain('match')
    expect(cell(w, 'winning-1').classes()).toContain('match')
    // 40 is a winning number, but its matching gem is still covered.
    expect(cell(w, 'winning-4').classes()).not.toContain('match')
  })

  it('shows what the player never saw faintly when asked', () => {
    const revealedYours = numbers.map(() => false)
    const w = mountWithApp(TicketGrid, {
      props: { winning, numbers, amountsCents, matches, revealedYours, ghost: true },
    })
    expect(cell(w, 'yours-3').classes()).toContain('ghost')
    expect(cell(w, 'yours-3').text()).toContain('4')
  })
})
