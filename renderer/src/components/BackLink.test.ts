// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { flushPromises } from '@vue/test-utils'
import { h } from 'vue'
import { createMemoryHistory, createRouter } from 'vue-router'
import BackLink from './BackLink.vue'
import { mountWithApp } from '../testing'

describe('back link', () => {
  it('goes to its parent screen, or leaves the click to the caller', async () => {
    const router = createRouter({
      history: createMemoryHistory(),
      routes: [
        { path: '/', component: { render: () => null } },
        { path: '/emissions', name: 'emissions', component: { render: () => null } },
      ],
    })
    const w = mountWithApp(BackLink, {
      props: { to: { name: 'emissions' } },
      slots: { default: () => 'Emissions' },
      global: { plugins: [router] },
    })
    expect(w.text()).toBe('← Emissions')
    await w.get('button').trigger('click')
    await flushPromises()
    expect(router.currentRoute.value.name).toBe('emissions')

    const onClick = vi.fn()
    const own = mountWithApp(
      { render: () => h(BackLink, { onClick }, () => 'Back') },
      { global: { plugins: [router] } },
    )
    await own.get('button').trigger('click')
    expect(onClick).toHaveBeenCalledOnce()
  })
})
