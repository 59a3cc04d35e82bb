// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { nextTick } from 'vue'
import ChartCanvas from './ChartCanvas.vue'
import { mountWithApp } from '../testing'

describe('a chart’s text alternative', () => {
  it('names the canvas and gives its figures as a table, hidden until asked for', async () => {
    // happy-dom draws nothing: chart.js says so on the console, the table does not depend on it
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const figures = {
      columns: ['Day', 'Sales', 'Prizes'],
      rows: [
        ['1 Mar', '15 €', '5 €'],
        ['2 Mar', '20 €', '0 €'],
      ],
    }
    const w = mountWithApp(ChartCanvas, {
      props: { config: { type: 'bar', data: { labels: [], datasets: [] } }, label: 'Sales per day', figures },
    })
    const canvas = w.get('canvas')
    expect(canvas.attributes('role')).toBe('img')
    expect(canvas.attributes('aria-label')).toBe('Sales per day')
    const table = w.get('[data-test="chart-data"]')
    expect(canvas.attributes('aria-describedby')).toBe(table.attributes('id'))
    expect(table.get('caption').text()).toBe('Data of the chart “Sales per day”')
    expect(table.findAll('thead th').map((th) => th.text())).toEqual(['Day', 'Sales', 'Prizes'])
    expect(table.findAll('tbody tr').map((tr) => tr.findAll('th, td').map((c) => c.text()))).toEqual(figures.rows)
    expect(table.findAll('tbody th').every((th) => th.attributes('scope') === 'row')).toBe(true)
    // read by a screen reader, not shown, until "Show the data"
    expect(table.classes()).toContain('visually-hidden')
    const toggle = w.get('[data-test="chart-data-toggle"]')
    expect(toggle.text()).toBe('Show the data')
    expect(toggle.attributes('aria-expanded')).toBe('false')
    await toggle.trigger('click')
    await nextTick()
    expect(table.classes()).not.toContain('visually-hidden')
    expect(toggle.attributes('aria-expanded')).toBe('true')
    expect(toggle.text()).toBe('Hide the data')
  })
})
