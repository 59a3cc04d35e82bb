/**
 * The words of the office form of the CSV exports (csv.ts), in the interface's two languages:
 * column headers, and the labels of the first line (software, as-of time, filters). They live
 * here, beside the writer, because the backend writes the files (the app's exports and the
 * command line alike); the machine form uses the ids themselves (English, snake_case).
 */
import type { ClaimStatus, IdentityDocument } from '../contract/claims-types'

export const CSV_COLUMN_IDS = [
  'day', 'emission', 'block', 'demo_emission', 'units_sold', 'units_total', 'sales_cents', 'winning_units', 'prizes_won_cents',
  'realised_payout', 'theoretical_payout', 'amount_cents', 'initial', 'sold', 'remaining', 'expected_remaining', 'share_won',
  'as_of', 'seq', 'at', 'actor', 'action', 'object', 'details', 'hash',
  // claims (claims-csv.ts)
  'serial', 'player', 'prize_cents', 'sold_at', 'status', 'related', 'document', 'document_ref', 'verified_by', 'verified_at',
  'approved_by', 'approved_at', 'signed_off_by', 'signed_off_at', 'paid_by', 'paid_at', 'payment_ref', 'rejected_by', 'rejected_at',
  'rejected_from', 'reject_reason',
] as const
export type CsvColumnId = (typeof CSV_COLUMN_IDS)[number]

export const CSV_FILTER_IDS = ['emission', 'block', 'from', 'to', 'include_demo', 'actor', 'action', 'object', 'status', 'player'] as const
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
      serial: 'Numéro de série', player: 'Joueur', prize_cents: 'Lot (€)', sold_at: 'Vendu le', status: 'Statut', related: 'Personne liée',
      document: "Pièce d'identité", document_ref: 'N° de pièce', verified_by: 'Vérifié par', verified_at: 'Vérifié le',
      approved_by: 'Approuvé par', approved_at: 'Approuvé le', signed_off_by: 'Visé par (auditeur)', signed_off_at: 'Visé le',
      paid_by: 'Payé par', paid_at: 'Payé le', payment_ref: 'Référence du paiement', rejected_by: 'Rejeté par', rejected_at: 'Rejeté le',
      rejected_from: 'Statut au rejet', reject_reason: 'Motif du rejet',
    },
    filters: {
      emission: 'Émission', block: 'Bloc', from: 'Du', to: 'Au', include_demo: 'Émissions de démonstration', actor: 'Utilisateur', action: 'Action', object: 'Objet',
      status: 'Statut', player: 'Joueur',
    },
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
      serial: 'Serial', player: 'Player', prize_cents: 'Prize (€)', sold_at: 'Sold at', status: 'Status', related: 'Related party',
      document: 'Identity document', document_ref: 'Document no.', verified_by: 'Verified by', verified_at: 'Verified at',
      approved_by: 'Approved by', approved_at: 'Approved at', signed_off_by: 'Signed off by (auditor)', signed_off_at: 'Signed off at',
      paid_by: 'Paid by', paid_at: 'Paid at', payment_ref: 'Payment reference', rejected_by: 'Rejected by', rejected_at: 'Rejected at',
      rejected_from: 'Status when rejected', reject_reason: 'Reason for rejection',
    },
    filters: {
      emission: 'Emission', block: 'Block', from: 'From', to: 'To', include_demo: 'Demonstration emissions', actor: 'User', action: 'Action', object: 'Object',
      status: 'Status', player: 'Player',
    },
    software: 'Software',
    asOf: 'As of',
    noActivity: 'No activity',
    yes: 'yes',
    no: 'no',
    colon: ': ',
  },
}

/** The office form's words for a claim's status and identity document (the machine form keeps the ids). */
export const CLAIM_CSV_WORDS: Record<'fr' | 'en', { status: Record<ClaimStatus, string>; document: Record<IdentityDocument, string> }> = {
  fr: {
    status: { pending: 'en attente', verified: 'vérifié', approved: 'approuvé', paid: 'payé', rejected: 'rejeté' },
    document: { 'id-card': "carte d'identité", passport: 'passeport', 'residence-permit': 'titre de séjour' },
  },
  en: {
    status: { pending: 'pending', verified: 'verified', approved: 'approved', paid: 'paid', rejected: 'rejected' },
    document: { 'id-card': 'identity card', passport: 'passport', 'residence-permit': 'residence permit' },
  },
}
