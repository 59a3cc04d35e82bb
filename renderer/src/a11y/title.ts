import { blockNo, emissionNo } from '../format'

type Translate = (key: string, params?: Record<string, unknown>) => string
type RouteParams = Record<string, string | string[] | undefined>

/** Each screen's own heading, by route name: the window's title says where the user is. */
const SCREEN_TITLES: Record<string, string> = {
  login: 'auth.signInTitle',
  setup: 'auth.setupTitle',
  emissions: 'emissions.title',
  emission: 'emission.title',
  certificate: 'certificate.title',
  verification: 'verification.title',
  block: 'block.title',
  tickets: 'ticket.title',
  replay: 'replay.title',
  support: 'support.title',
  dashboard: 'dashboard.title',
  liability: 'liability.title',
  users: 'users.title',
  audit: 'audit.title',
  ledger: 'ledger.title',
  claims: 'claims.title',
  claim: 'claims.claimTitle',
  watch: 'watch.title',
  parties: 'parties.title',
  todo: 'todo.title',
}

function one(v: string | string[] | undefined): number {
  return Number(Array.isArray(v) ? v[0] : v)
}

/** "<screen> — <app name>", in the interface's language; the app's name alone for any other route. */
export function screenTitle(route: { name?: unknown; params: RouteParams }, t: Translate): string {
  const app = t('app.name')
  const key = SCREEN_TITLES[String(route.name ?? '')]
  if (!key) return app
  const screen = t(key, {
    n: emissionNo(one(route.params.emission)),
    emission: emissionNo(one(route.params.emission)),
    block: blockNo(one(route.params.block)),
    serial: String(route.params.serial ?? ''),
  })
  return `${screen} — ${app}`
}
