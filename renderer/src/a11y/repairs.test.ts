// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { repairAll, watchRepairs } from './repairs'

function html(markup: string): HTMLElement {
  const root = document.createElement('div')
  root.innerHTML = markup
  document.body.replaceChildren(root)
  return root
}

const card = (title: string, inner = '') =>
  `<div class="n-card"><div class="n-card-header" role="heading"><div class="n-card-header__main" role="heading">${title}</div><div class="n-card-header__extra"><button>x</button></div></div><div class="n-card-content">${inner}</div></div>`

describe('repairs of what Naive UI renders', () => {
  it('gives card headings one heading each, with its level by nesting', () => {
    const root = html(card('Outer', card('Inner')))
    repairAll(root)
    const headings = [...root.querySelectorAll('[role="heading"]')]
    expect(headings.map((h) => [h.textContent, h.getAttribute('aria-level')])).toEqual([
      ['Outer', '2'],
      ['Inner', '3'],
    ])
    expect([...root.querySelectorAll('.n-card-header')].every((h) => h.getAttribute('role') === 'none')).toBe(true)
  })

  it('names a slider handle from its slider', () => {
    const root = html(
      '<div class="n-slider" data-a11y-label="Position" data-a11y-valuetext="0:03 / 0:10"><div role="slider" tabindex="0"></div></div>',
    )
    repairAll(root)
    const handle = root.querySelector('[role="slider"]')!
    expect([handle.getAttribute('aria-label'), handle.getAttribute('aria-valuetext')]).toEqual([
      'Position',
      '0:03 / 0:10',
    ])
  })

  it('makes a table’s scrolling body a named region the keyboard reaches', () => {
    const root = html(
      '<div class="n-data-table" data-a11y-scroll="Audit log"><div class="n-data-table-base-table-body"><div class="n-scrollbar-container"></div></div></div>',
    )
    repairAll(root)
    const body = root.querySelector('.n-scrollbar-container')!
    expect([body.getAttribute('tabindex'), body.getAttribute('role'), body.getAttribute('aria-label')]).toEqual([
      '0',
      'region',
      'Audit log',
    ])
  })

  it('ties a form item’s error to its field, and unties it once the error is gone', async () => {
    const item = (error: boolean) =>
      `<div class="n-form-item"><label>Name</label><div class="n-form-item-blank${error ? ' n-form-item-blank--error' : ''}"><input></div>` +
      `<div class="n-form-item-feedback-wrapper">${error ? '<div>Type your user name.</div>' : ''}</div></div>`
    const root = html(item(true))
    const stop = watchRepairs(document)
    const input = root.querySelector('input')!
    const message = document.getElementById(input.getAttribute('aria-describedby') ?? '')
    expect(message?.textContent).toBe('Type your user name.')
    expect(input.getAttribute('aria-invalid')).toBe('true')
    expect(message?.getAttribute('aria-live')).toBe('polite')
    // the error is fixed: the item re-renders without it
    root.querySelector('.n-form-item-blank')!.className = 'n-form-item-blank'
    root.querySelector('.n-form-item-feedback-wrapper')!.replaceChildren()
    await new Promise((r) => setTimeout(r, 0))
    expect(input.hasAttribute('aria-invalid')).toBe(false)
    expect(input.hasAttribute('aria-describedby')).toBe(false)
    stop()
  })

  it('leaves a field that ties its own message alone', () => {
    const root = html(
      '<div class="n-form-item"><div class="n-form-item-blank n-form-item-blank--error"><input aria-describedby="own"></div><div class="n-form-item-feedback-wrapper"><div>Bad</div></div></div>',
    )
    repairAll(root)
    expect(root.querySelector('input')!.getAttribute('aria-describedby')).toBe('own')
    expect(root.querySelector('input')!.hasAttribute('aria-invalid')).toBe(false)
  })
})
