/** Mounting helpers for component tests: the same plugins as the app, in English for readable assertions. */
import { mount, type ComponentMountingOptions } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import type { Component } from 'vue'
import { createAppI18n } from './i18n'
import { usePrefsStore } from './stores/prefs'

export function mountWithApp<C extends Component>(
  component: C,
  options: ComponentMountingOptions<C> = {} as ComponentMountingOptions<C>,
) {
  const pinia = createPinia()
  setActivePinia(pinia)
  usePrefsStore(pinia).locale = 'en'
  return mount(component, {
    ...options,
    global: { ...(options.global ?? {}), plugins: [pinia, createAppI18n('en'), ...(options.global?.plugins ?? [])] },
  } as ComponentMountingOptions<C>)
}
