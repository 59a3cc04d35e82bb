/** The regulator's vault's channels (electron/services/vault), spread into the contract (index.ts). */
import { z } from 'zod'
import { channel } from './define'
import { cleanText } from './text-schema'
import { isoDay } from './day-schema'
import { FEED_MAX_BYTES } from './feed'
import type * as T from './types'

/** A folder as the workstation names it: one line of text, an absolute path or one from the current folder. */
const folder = cleanText(z.string().trim().min(1, 'name a folder').max(1024), { what: 'a folder' })

export const vaultChannels = {
  /** Where the vault is, what it holds, how far behind the ledger it is. */
  'vault:status': channel<T.VaultStatus>()({
    ledger: 'reads',
    args: z.object({}).strict(),
    access: ['admin', 'auditor', 'manager', 'regulator'],
  }),
  /** Gives the ledger its vault (once, audited): the folder is made or found. */
  'vault:attach': channel<T.VaultStatus>()({
    args: z.object({ folder }).strict(),
    access: ['admin'],
  }),
  /** A day's sales held three ways (the ledger, the vault, the platform's feed if given); the result sealed. */
  'vault:reconcile': channel<T.ReconciliationReport>()({
    args: z
      .object({
        day: isoDay,
        feed: z
          .object({ content: z.string().max(FEED_MAX_BYTES), fileName: z.string().max(260).nullable().default(null) })
          .strict()
          .optional(),
      })
      .strict(),
    access: ['admin', 'auditor'],
  }),
  /** The vault checked from its files and its key, as `carats vault verify` does. */
  'vault:verify': channel<T.VaultVerification>()({
    ledger: 'reads',
    args: z.object({}).strict(),
    access: ['admin', 'auditor', 'regulator'],
  }),
  /** The events the vault received on a day: the regulator's query. */
  'vault:events': channel<T.Page<T.VaultEventView>>()({
    ledger: 'reads',
    args: z
      .object({
        day: isoDay,
        type: z.enum(['sales', 'audit']).optional(),
        text: cleanText(z.string().trim().max(100), { what: 'a search' }).optional(),
        page: z.number().int().min(1).default(1),
        pageSize: z.number().int().min(1).max(500).default(50),
      })
      .strict(),
    access: ['admin', 'auditor', 'regulator'],
  }),
  /** Days of the vault as one JSON-lines file (the command line exports the verifiable folder). */
  'vault:export': channel<T.CsvFile>()({
    args: z
      .object({ from: isoDay, to: isoDay })
      .strict()
      .refine((a) => a.from <= a.to, { error: 'the first day must be on or before the last', path: ['to'] }),
    access: ['admin', 'auditor', 'regulator'],
  }),
} as const
