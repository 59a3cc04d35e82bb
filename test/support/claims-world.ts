/**
 * A services world for claims: the emissions, sales, players, register and claims services over
 * one ledger of its own (service-world.ts), with a demonstration emission of the small test game
 * (10,000 units a block, 100 units of 100 € each) open for sale, its claim threshold 100 €.
 */
import { verifyBlock } from '../../game-core/verify'
import { createAlertsService } from '../../electron/services/alerts'
import {
  createClaimFigures,
  createClaimsService,
  type ClaimsService,
  createRelatedParties,
  type RelatedPartiesService,
} from '../../electron/services/claims'
import { createPlayersService, type PlayersService } from '../../electron/services/players'
import { createSalesService, type SalesService } from '../../electron/services/sales'
import type { UsersService } from '../../electron/services/staff'
import { STAFF, staffAccounts } from './staff-accounts'
import { nodePrimitives } from '../../electron/crypto/node-primitives'
import { smallDefinition } from './game-fixtures'
import { useServiceWorlds, type ServiceWorld } from './service-world'

export { STAFF, STAFF_PASSWORD, staffAccounts } from './staff-accounts'
export const CLAIMS_T0 = Date.parse('2026-05-04T08:00:00Z')
export const SMALL_THRESHOLD_CENTS = 10_000

export interface ClaimsWorld extends ServiceWorld {
  sales: SalesService
  players: PlayersService
  parties: RelatedPartiesService
  claims: ClaimsService
  /** The staff's accounts (STAFF, and mia and ava), all confirmed, password STAFF_PASSWORD. */
  users: UsersService
  emission: number
  /** The world's clock: a second later at each call. */
  clock: () => Date
  /** Sells `count` units, one player each in turn from `players`, a second apart. */
  sell(count: number, players: string[]): void
  /** Moves the world's clock `ms` ahead (days pass). */
  advance(ms: number): void
}

/** Call at the top of a test file: returns the function that makes a world. */
export function useClaimsWorlds(
  prefix: string,
): (opts?: { thresholdCents?: number; claimDays?: number }) => Promise<ClaimsWorld> {
  const serviceWorld = useServiceWorlds(prefix)
  return async ({ thresholdCents = SMALL_THRESHOLD_CENTS, claimDays } = {}) => {
    let now = CLAIMS_T0
    const clock = () => new Date((now += 1000))
    const w = serviceWorld({
      clock,
      definition: smallDefinition(),
      verifyBlock: async (d, ref) => verifyBlock(d, nodePrimitives, ref, { commitmentVersion: ref.commitmentVersion }),
    })
    const alerts = createAlertsService({ db: w.db, clock, audit: w.audit, catalog: w.catalog })
    const sales = createSalesService({ db: w.db, clock, catalog: w.catalog, alerts })
    const players = createPlayersService({ db: w.db, catalog: w.catalog })
    const parties = createRelatedParties({ db: w.db, audit: w.audit, clock })
    const claims = createClaimsService({
      db: w.db,
      clock,
      catalog: w.catalog,
      audit: w.audit,
      players,
      parties,
      figures: createClaimFigures({ db: w.db, catalog: w.catalog }),
    })
    const users = staffAccounts(w, clock)
    const emission = w.emissions.create(STAFF.operator, {
      blocks: 2,
      demo: true,
      claimThresholdCents: thresholdCents,
      claimDays,
    }).emission
    for (const step of ['generate', 'verify'] as const) {
      const end = await w.jobs.wait(w.emissions[step](STAFF.operator, emission).id)
      if (end.state !== 'done') throw new Error(`${step}: ${end.message}`)
    }
    w.emissions.open(STAFF.operator, emission)
    let sold = 0
    const sell = (count: number, names: string[]) => {
      const batch = Array.from({ length: count }, (_, i) => ({
        emission,
        player: names[(sold + i) % names.length],
        soldAt: (now += 1000),
      }))
      const r = sales.sellBatch(batch)
      if (!r.ok) throw new Error(JSON.stringify(r.errors.slice(0, 3)))
      sold += count
    }
    const advance = (ms: number) => void (now += ms)
    return { ...w, clock, users, sales, players, parties, claims, emission, sell, advance }
  }
}
