// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { flushPromises } from '@vue/test-utils'
import { createMemoryHistory, createRouter } from 'vue-router'
import SetupView from './SetupView.vue'
import { mountWithApp } from '../../testing'
import { useAuthStore } from '../../stores/auth'

const router = createRouter({
  history: createMemoryHistory(),
  routes: [{ path: '/:any(.*)*', name: 'emissions', component: { render: () => null } }],
})

describe('the set-up form', () => {
  it('checks its fields before creating the administrator, and says why it refuses', async () => {
    const w = mountWithApp(SetupView, { global: { plugins: [router] } })
    const setup = vi.fn(async () => {})
    useAuthStore().setup = setup
    const [, password, again] = w.findAll('input')

    await password.setValue('short')
    await again.setValue('short')
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(setup).not.toHaveBeenCalled()
    expect(w.text()).toContain('At least 8 characters.')

    await password.setValue('long enough')
    await again.setValue('long enough')
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(setup).toHaveBeenCalledWith('admin', 'long enough')
  })
})
