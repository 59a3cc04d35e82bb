import { createApp } from 'vue'
import { createPinia } from 'pinia'
import App from './App.vue'
import { createAppI18n } from './i18n'
import { createAppRouter } from './router'
import { usePrefsStore } from './stores/prefs'
import './styles.css'
import { watchRepairs } from './a11y/repairs'

const app = createApp(App)
const pinia = createPinia()
app.use(pinia)
app.use(createAppI18n(usePrefsStore(pinia).locale))
app.use(createAppRouter())
app.mount('#app')
watchRepairs()
