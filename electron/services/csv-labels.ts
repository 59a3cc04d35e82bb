/**
 * The words of the office form of the CSV exports (csv.ts), in the interface's two languages:
 * column headers, and the labels of the first line (software, as-of time, filters). They live
 * here, beside the writer, because the backend writes the files (the app's exports and the
 * command line alike); the machine form uses the ids themselves (English, snake_case).
 */
export const CSV_COLUMN_IDS = [
  'day', 'emission', 'block', 'demo_emission', 'units_sold', 'units_total', 'sales_cents', 'winning_units', 'prizes_won_cents',
  'realised_payout', 'theoretical_payout', 'amount_cents', 'initial', 'sold', 'remaining', 'expected_remaining', 'share_won',
  'as_of', 'seq', 'at', 'actor', 'action', 'object', 'details', 'hash',
] as const
export type CsvColumnId = (typeof CSV_COLUMN_IDS)[number]

export const CSV_FILTER_IDS = ['emission', 'block', 'from', 'to', 'include_demo', 'actor', 'action', 'object'] as const
export type CsvFilterId = (typeof CSV_FILTER_IDS)[number]

export interface CsvWords {
  columns: Record<CsvColumnId, string>
  filters: Record<CsvFilterId, string>
  software: string
  asOf: string
  noActivity: string
  yes: string
  no: string
  /** Between a label and its value: French puts a no-break space before the colon. */
  colon: string
}

export const CSV_WORDS: Record<'fr' | 'en', CsvWords> = {
  fr: {
    columns: {
      day: 'Jour', emission: 'Émission', block: 'Bloc', demo_emission: 'Démonstration', units_sold: 'Unités vendues', units_total: 'Unités émises',
      sales_cents: 'Ventes (€)', winning_units: 'Unités gagnantes', prizes_won_cents: 'Lots gagnés (€)',
      realised_payout: 'Taux de retour réalisé (%)', theoretical_payout: 'Taux de retour théorique (%)',
      amount_cents: 'Lot (€)', initial: 'Lots émis', sold: 'Lots gagnés', remaining: 'Lots restants', expected_remaining: 'Restants attendus',
      share_won: 'Part gagnée (%)', as_of: 'Données au', seq: 'N°', at: 'Date et heure', actor: 'Utilisateur', action: 'Action', object: 'Objet',
      details: 'Détails', hash: 'Empreinte',
    },
    filters: { emission: 'Émission', block: 'Bloc', from: 'Du', to: 'Au', include_demo: 'Émissions de démonstration', actor: 'Utilisateur', action: 'Action', object: 'Objet' },
    software: 'Logiciel',
    asOf: 'Données au',
    noActivity: 'Aucune activité',
    yes: 'oui',
    no: 'non',
    colon: '\u00a0: ',
  },
  en: {
    columns: {
      day: 'Day', emission: 'Emission', block: 'Block', demo_emission: 'Demonstration', units_sold: 'Units sold', units_total: 'Units issued',
      sales_cents: 'Sales (€)', winning_units: 'Winning units', prizes_won_cents: 'Prizes won (€)',
      realised_payout: 'Realised payout (%)', theoretical_payout: 'Theoretical payout (%)',
      amount_cents: 'Prize (€)', initial: 'Prizes issued', sold: 'Prizes won', remaining: 'Prizes remaining', expected_remaining: 'Expected remaining',
      share_won: 'Share won (%)', as_of: 'As of', seq: 'No.', at: 'Date and time', actor: 'User', action: 'Action', object: 'Object',
      details: 'Details', hash: 'Hash',
    },
    filters: { emission: 'Emission', block: 'Block', from: 'From', to: 'To', include_demo: 'Demonstration emissions', actor: 'User', action: 'Action', object: 'Object' },
    software: 'Software',
    asOf: 'As of',
    noActivity: 'No activity',
    yes: 'yes',
    no: 'no',
    colon: ': ',
  },
}
