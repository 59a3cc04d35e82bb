/**
 * A SQLite ledger's schema: numbered migrations, each in its own file (vNN.sqlite.ts, beside its
 * PostgreSQL step vNN.pg.ts from 10 on). `PRAGMA user_version` holds the number of the last one
 * applied. Never edit a migration that has shipped: add the next one, on both engines (docs/ledger.md,
 * "The next migration"). Tables are described in README.md beside this file.
 */
import type { Migration } from './migration'
import { V1 } from './v01.sqlite'
import { V2 } from './v02.sqlite'
import { V3 } from './v03.sqlite'
import { V4 } from './v04.sqlite'
import { V5 } from './v05.sqlite'
import { V6 } from './v06.sqlite'
import { V7 } from './v07.sqlite'
import { V8 } from './v08.sqlite'
import { V9 } from './v09.sqlite'
import { V10 } from './v10.sqlite'
import { V11 } from './v11.sqlite'
import { V12 } from './v12.sqlite'
import { V13 } from './v13.sqlite'
import { V14 } from './v14.sqlite'
import { V15 } from './v15.sqlite'
import { V16 } from './v16.sqlite'
import { V17 } from './v17.sqlite'
import { V18 } from './v18.sqlite'
import { V19 } from './v19.sqlite'

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, description: 'the whole ledger', sql: V1 },
  { version: 2, description: 'leases of long tasks', sql: V2 },
  { version: 3, description: "the ledger's id, key fingerprint and keyed audit chain", sql: V3 },
  { version: 4, description: 'demonstration emissions, last sign-in, sign-in throttle', sql: V4 },
  { version: 5, description: "players' sales chained in the order of sale", sql: V5 },
  { version: 6, description: 'verdicts of block verifications', sql: V6 },
  { version: 7, description: 'players found ignoring case; the audit log filtered and sorted on indexes', sql: V7 },
  { version: 8, description: "blocks' commitment version and proof batch roots", sql: V8 },
  { version: 9, description: 'key ceremonies, how each block was seeded, publication', sql: V9 },
  { version: 10, description: 'prize claims, claim thresholds, the register of related parties', sql: V10 },
  { version: 11, description: 'leases of long jobs across workstations', sql: V11 },
  { version: 12, description: "players' totals read through one view (a team ledger's appended totals)", sql: V12 },
  {
    version: 13,
    description: 'rows sealed to the audit log; accounts compared by skeleton and confirmed by a second person',
    sql: V13,
  },
  { version: 14, description: 'the commit-first key ceremony; abandoned ceremonies', sql: V14 },
  {
    version: 15,
    description: "players' sales found by player and time of sale on an index, no longer chained",
    sql: V15,
  },
  { version: 16, description: "the regulator's read-only role", sql: V16 },
  { version: 17, description: 'claim deadlines and expired claims', sql: V17 },
  { version: 18, description: "claims: the winner's identity, the payment's method, the assignee", sql: V18 },
  { version: 19, description: 'claims read per block and per status on indexes', sql: V19 },
]

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version
