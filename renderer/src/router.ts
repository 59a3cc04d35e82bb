import { createRouter, createWebHashHistory, type RouteLocationRaw, type RouteRecordRaw } from 'vue-router'
import type { ChannelName, Role } from '../../electron/contract'
import { useAuthStore } from './stores/auth'
import type { IconName } from './icons'
// A new window opens on one of these two: part of the first load (preloaded with the entry)
// rather than fetched after the session check. The signed-in screens load on demand.
import LoginView from './views/login/LoginView.vue'
import SetupView from './views/login/SetupView.vue'

declare module 'vue-router' {
  interface RouteMeta {
    /** Reachable without a session. */
    public?: boolean
    /** The channel the screen needs: the route exists for a role only if the contract lets it call this. */
    channel?: ChannelName
    /** Shown in the side menu under this label key and icon. */
    menu?: { label: string; icon: IconName }
  }
}

const routes: RouteRecordRaw[] = [
  { path: '/login', name: 'login', component: LoginView, meta: { public: true } },
  { path: '/setup', name: 'setup', component: SetupView, meta: { public: true } },
  {
    path: '/',
    component: () => import('./layout/AppLayout.vue'),
    children: [
      { path: '', name: 'home', component: { render: () => null } },
      {
        path: 'todo',
        name: 'todo',
        component: () => import('./views/todo/TodoView.vue'),
        meta: { channel: 'todo:list', menu: { label: 'todo.menu', icon: 'todo' } },
      },
      {
        path: 'emissions',
        name: 'emissions',
        component: () => import('./views/emissions/EmissionsView.vue'),
        meta: { channel: 'emissions:list', menu: { label: 'menu.emissions', icon: 'emissions' } },
      },
      {
        path: 'emissions/:emission',
        name: 'emission',
        component: () => import('./views/emissions/EmissionView.vue'),
        meta: { channel: 'emissions:get' },
      },
      {
        path: 'emissions/:emission/certificate',
        name: 'certificate',
        component: () => import('./views/certificate/CertificateView.vue'),
        meta: { channel: 'emissions:certificate' },
      },
      {
        path: 'emissions/:emission/verification/:verification?',
        name: 'verification',
        component: () => import('./views/verification/VerificationView.vue'),
        meta: { channel: 'verifications:report' },
      },
      {
        path: 'emissions/:emission/blocks/:block',
        name: 'block',
        component: () => import('./views/block/BlockView.vue'),
        meta: { channel: 'blocks:get' },
      },
      {
        path: 'tickets/:serial?',
        name: 'tickets',
        component: () => import('./views/tickets/TicketView.vue'),
        meta: { channel: 'tickets:get', menu: { label: 'menu.tickets', icon: 'tickets' } },
      },
      {
        path: 'tickets/:serial/replay',
        name: 'replay',
        component: () => import('./views/tickets/ReplayView.vue'),
        meta: { channel: 'tickets:get' },
      },
      {
        path: 'support',
        name: 'support',
        component: () => import('./views/support/SupportView.vue'),
        meta: { channel: 'players:last', menu: { label: 'menu.support', icon: 'support' } },
      },
      {
        path: 'claims',
        name: 'claims',
        component: () => import('./views/claims/ClaimsView.vue'),
        meta: { channel: 'claims:list', menu: { label: 'menu.claims', icon: 'claims' } },
      },
      {
        path: 'claims/:serial',
        name: 'claim',
        component: () => import('./views/claims/ClaimView.vue'),
        meta: { channel: 'claims:get' },
      },
      {
        path: 'claims/:serial/receipt',
        name: 'claim-receipt',
        component: () => import('./views/claims/ClaimReceiptView.vue'),
        meta: { channel: 'claims:get' },
      },
      {
        path: 'watch',
        name: 'watch',
        component: () => import('./views/watch/WatchView.vue'),
        meta: { channel: 'claims:flags', menu: { label: 'watch.title', icon: 'watch' } },
      },
      {
        path: 'parties',
        name: 'parties',
        component: () => import('./views/parties/PartiesView.vue'),
        meta: { channel: 'parties:list', menu: { label: 'parties.title', icon: 'parties' } },
      },
      {
        path: 'dashboard',
        name: 'dashboard',
        component: () => import('./views/dashboard/DashboardView.vue'),
        meta: { channel: 'reports:dashboard', menu: { label: 'menu.dashboard', icon: 'dashboard' } },
      },
      {
        path: 'liability',
        name: 'liability',
        component: () => import('./views/liability/LiabilityView.vue'),
        meta: { channel: 'reports:liability', menu: { label: 'liability.menu', icon: 'liability' } },
      },
      {
        path: 'users',
        name: 'users',
        component: () => import('./views/users/UsersView.vue'),
        meta: { channel: 'users:list', menu: { label: 'menu.users', icon: 'users' } },
      },
      {
        path: 'audit',
        name: 'audit',
        component: () => import('./views/audit/AuditView.vue'),
        meta: { channel: 'audit:list', menu: { label: 'menu.audit', icon: 'audit' } },
      },
      {
        path: 'ledger',
        name: 'ledger',
        component: () => import('./views/ledger/LedgerView.vue'),
        meta: { channel: 'ledger:status', menu: { label: 'ledger.title', icon: 'shield' } },
      },
      {
        path: 'vault',
        name: 'vault',
        component: () => import('./views/vault/VaultView.vue'),
        meta: { channel: 'vault:status', menu: { label: 'vault.menu', icon: 'vault' } },
      },
      {
        path: 'ledger/setting',
        name: 'ledgerSetting',
        component: () => import('./views/ledger-setting/LedgerSettingView.vue'),
        meta: { channel: 'settings:ledger', menu: { label: 'ledgerSetting.menu', icon: 'database' } },
      },
    ],
  },
  { path: '/:rest(.*)*', redirect: { name: 'home' } },
]

/** Each role lands on the screen it uses most. */
export function homeFor(role: Role | null): RouteLocationRaw {
  if (role === 'manager') return { name: 'dashboard' }
  if (role === 'support') return { name: 'support' }
  if (role === 'regulator') return { name: 'vault' }
  return { name: 'emissions' }
}

export function menuRoutes(): RouteRecordRaw[] {
  return routes.find((r) => r.path === '/')?.children?.filter((r) => r.meta?.menu) ?? []
}

export function createAppRouter() {
  // Hash history: the same build works from file:// in Electron and from the browser host.
  const router = createRouter({ history: createWebHashHistory(), routes })

  router.beforeEach(async (to) => {
    const auth = useAuthStore()
    if (!auth.ready) {
      try {
        await auth.init()
      } catch {
        // The server is unreachable: the sign-in screen says so and offers to retry.
        return to.name === 'login' ? true : { name: 'login' }
      }
    }
    if (auth.needsSetup) return to.name === 'setup' ? true : { name: 'setup' }
    if (to.meta.public) return auth.user ? homeFor(auth.role) : to.name === 'setup' ? { name: 'login' } : true
    if (!auth.user) return { name: 'login', query: to.name === 'home' ? {} : { redirect: to.fullPath } }
    if (to.name === 'home') return homeFor(auth.role)
    if (to.meta.channel && !auth.can(to.meta.channel)) return homeFor(auth.role)
    return true
  })

  return router
}
