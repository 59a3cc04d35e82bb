/**
 * The statements schema/engines.test.ts runs against a SQLite ledger and a PostgreSQL one alike: a few rows
 * that every rule accepts, then, for each trigger, each CHECK and a few keys, one statement that
 * breaks that rule alone. Written once, in SQL both engines read (`?` parameters for bytes).
 */

/** Rows every rule accepts: one open emission with a generated and a pending block, one sale, one claim… */
export const FIXTURE: readonly { sql: string; params?: unknown[] }[] = [
  {
    sql: "INSERT INTO emissions (emission, code, status, blocks, definition, definition_digest, created_at) VALUES (1, 'E1', 'open', 2, '{}', 'd', 't')",
  },
  {
    sql: "INSERT INTO blocks (emission, block, status, secret, commitment) VALUES (1, 1, 'generated', ?, 'c1')",
    params: [Buffer.from([1, 2])],
  },
  { sql: 'INSERT INTO blocks (emission, block) VALUES (1, 2)' },
  { sql: 'INSERT INTO block_tiers (emission, block, tier) VALUES (1, 1, 0)' },
  { sql: "INSERT INTO players (name) VALUES ('P1')" },
  {
    sql: "INSERT INTO sales (unit_key, sale_id, player_id, sold_at, stake_cents, prize_cents, play, events) VALUES (10010000000, 'S1', 1, 1000, 200, 600000, 0, ?)",
    params: [Buffer.from([7])],
  },
  {
    sql: "INSERT INTO users (name, role, password_hash, password_salt, created_at) VALUES ('Alice', 'admin', ?, ?, 't')",
    params: [Buffer.from([3]), Buffer.from([4])],
  },
  {
    sql: "INSERT INTO audit (seq, at, actor, action, object, details, prev_hash, hash) VALUES (1, 't', 'Alice', 'a', 'o', '{}', '', 'h')",
  },
  {
    sql: "INSERT INTO verifications (emission, actor, role, software, blocks, started_at) VALUES (1, 'Alice', 'auditor', 'carats', 2, 't')",
  },
  {
    sql: "INSERT INTO verifications (emission, actor, role, software, blocks, started_at, ended_at, outcome) VALUES (1, 'Alice', 'auditor', 'carats', 2, 't', 't', 'sound')",
  },
  { sql: verdict(1) },
  {
    sql: "INSERT INTO key_ceremonies (emission, server_share, server_hash, started_by, started_at) VALUES (1, ?, 'h', 'Alice', 't')",
    params: [Buffer.from([5])],
  },
  {
    sql: 'INSERT INTO claims (unit_key, emission, player_id, sold_at, prize_cents) VALUES (10010000000, 1, 1, 1000, 600000)',
  },
  {
    sql: "INSERT INTO related_parties (player, relation, linked_to, reason, added_by, added_at) VALUES ('P1', 'staff', 'Bob', 'works here', 'Alice', 't')",
  },
  { sql: "INSERT INTO sign_in_throttle (name, window_start, last_at) VALUES ('Alice', 0, 0)" },
  {
    sql: "INSERT INTO alerts (kind, emission, block, amount_cents, message, at) VALUES ('top-prizes-sold-out', 1, NULL, 100, 'm', 't')",
  },
]

/** A verdict of verification 1, with one column changed from a sound one. */
function verdict(block: number, column?: string, value?: number): string {
  const row: Record<string, number | string> = {
    verification: 1,
    block,
    sound: 1,
    units_checked: 10,
    units_total: 10,
    units_failed: 0,
    prize_table_exact: 1,
    tiers: "'[]'",
    losing_found: 5,
    losing_expected: 5,
    prize_total_cents: 0,
    problems: "'[]'",
    started_at: "'t'",
    ended_at: "'t'",
    ms: 3,
  }
  if (column) row[column] = value!
  return `INSERT INTO verification_blocks (${Object.keys(row).join(', ')}) VALUES (${Object.values(row).join(', ')})`
}

export interface Refusal {
  /** The rule broken: a trigger's name, or the PostgreSQL name of the constraint or unique index. */
  rule: string
  kind: 'trigger' | 'check' | 'unique' | 'foreign key'
  sql: string
  /** SQLite's message; null for a rule SQLite has no counterpart of (TRUNCATE). */
  sqlite: string | null
  /** For a trigger: PostgreSQL's message (SQLite's, when SQLite has the trigger). */
  message?: string
}

const AUDIT_CHANGED = 'the audit log is append-only: entries cannot be changed'
const AUDIT_DELETED = 'the audit log is append-only: entries cannot be deleted'
const META_CHANGED = "the ledger's facts are written once: they cannot be changed"
const META_DELETED = "the ledger's facts are written once: they cannot be deleted"
const VERDICT_CHANGED = "a block's verdict is history: it cannot be changed"
const VERDICT_DELETED = "a block's verdict is history: it cannot be deleted"
const RUN_CLOSED = 'a verification is history: only its end is written, once'
const RUN_DELETED = 'a verification is history: it cannot be deleted'
const CLAIM_DELETED = 'a claim is history: it cannot be deleted'
const CLAIM_FINAL = "a paid, rejected or expired claim is final, and a claim's unit, player and prize never change"
const PARTY_DELETED = 'the register of related parties keeps every entry: remove one with a reason instead'
const PARTY_REMOVED = 'an entry of the register is only removed, once, with who, when and why'

function trigger(rule: string, sql: string, message: string, sqliteHasIt = true): Refusal {
  return { rule, kind: 'trigger', sql, sqlite: sqliteHasIt ? message : null, message }
}

const TRIGGERS: Refusal[] = [
  trigger('audit_no_update', "UPDATE audit SET actor = 'x' WHERE seq = 1", AUDIT_CHANGED),
  trigger('audit_no_delete', 'DELETE FROM audit WHERE seq = 1', AUDIT_DELETED),
  trigger('ledger_meta_no_update', "UPDATE ledger_meta SET value = 'x' WHERE name = 'ledger_id'", META_CHANGED),
  trigger('ledger_meta_no_delete', "DELETE FROM ledger_meta WHERE name = 'ledger_id'", META_DELETED),
  trigger('verification_blocks_no_update', 'UPDATE verification_blocks SET ms = 4', VERDICT_CHANGED),
  trigger('verification_blocks_no_delete', 'DELETE FROM verification_blocks', VERDICT_DELETED),
  trigger('verifications_closed_once', "UPDATE verifications SET error = 'late' WHERE id = 2", RUN_CLOSED),
  trigger('verifications_no_delete', 'DELETE FROM verifications WHERE id = 2', RUN_DELETED),
  trigger('claims_no_delete', 'DELETE FROM claims', CLAIM_DELETED),
  trigger('claims_final', 'UPDATE claims SET prize_cents = 700000', CLAIM_FINAL),
  trigger('related_parties_no_delete', 'DELETE FROM related_parties', PARTY_DELETED),
  trigger('related_parties_removed_once', "UPDATE related_parties SET reason = 'other'", PARTY_REMOVED),
  // TRUNCATE skips row triggers on PostgreSQL; SQLite has no TRUNCATE
  trigger('audit_no_truncate', 'TRUNCATE audit', AUDIT_DELETED, false),
  trigger('ledger_meta_no_truncate', 'TRUNCATE ledger_meta', META_DELETED, false),
  trigger('verifications_no_truncate', 'TRUNCATE verifications, verification_blocks', RUN_DELETED, false),
  trigger('verification_blocks_no_truncate', 'TRUNCATE verification_blocks, verifications', VERDICT_DELETED, false),
  trigger('claims_no_truncate', 'TRUNCATE claims', CLAIM_DELETED, false),
  trigger('related_parties_no_truncate', 'TRUNCATE related_parties', PARTY_DELETED, false),
]

function check(rule: string, sql: string, expression: string): Refusal {
  return { rule, kind: 'check', sql, sqlite: `CHECK constraint failed: ${expression}` }
}

const E = 'UPDATE emissions SET'
const B1 = 'WHERE emission = 1 AND block = 1'
const RUN =
  "INSERT INTO verifications (emission, actor, role, software, blocks, started_at, ended_at, outcome) VALUES (1, 'A', 'auditor', 'c',"
const C = 'UPDATE claims SET'
const VERIFIED = "verified_by = 'Bob', verified_at = 't', document_ref = 'X1'"
const PARTY = "INSERT INTO related_parties (player, relation, linked_to, reason, added_by, added_at) VALUES ('P2',"

/** Migration 14's rule of a key ceremony's commitment (a protocol 1 ceremony has none). */
const CEREMONY_COMMIT = `(committed_by IS NULL) = (custodian_commit IS NULL) AND (committed_by IS NULL) = (committed_at IS NULL)
    AND (server_share IS NULL) = (server_hash IS NULL)
    AND (protocol <> 2 AND server_share IS NOT NULL AND committed_by IS NULL
      OR protocol = 2 AND (committed_by IS NULL) = (server_share IS NULL) AND (custodian IS NULL OR custodian_hash = custodian_commit))`

const CHECKS: Refusal[] = [
  check(
    'emissions_emission_check',
    "INSERT INTO emissions (emission, code, blocks, definition, definition_digest, created_at) VALUES (10000, 'E2', 1, '{}', 'd', 't')",
    'emission BETWEEN 1 AND 9999',
  ),
  check(
    'emissions_status_check',
    `${E} status = 'sold'`,
    "status IN ('created','generating','generated','verified','open','closed','withdrawn')",
  ),
  check('emissions_blocks_check', `${E} blocks = 0`, 'blocks BETWEEN 1 AND 999'),
  check('emissions_demo_check', `${E} demo = 2`, 'demo IN (0, 1)'),
  check('emissions_claim_threshold_cents_check', `${E} claim_threshold_cents = 0`, 'claim_threshold_cents > 0'),
  check('emissions_claim_days_check', `${E} claim_days = 0`, 'claim_days BETWEEN 1 AND 3650'),
  check('emissions_check', `${E} withdrawn_reason = 'x'`, "(status = 'withdrawn') = (withdrawn_reason IS NOT NULL)"),
  check('blocks_block_check', 'UPDATE blocks SET block = 1000 WHERE block = 2', 'block BETWEEN 1 AND 999'),
  check(
    'blocks_status_check',
    `UPDATE blocks SET status = 'lost' ${B1}`,
    "status IN ('pending','generated','verified','failed')",
  ),
  check('blocks_check', `UPDATE blocks SET status = 'pending' ${B1}`, "(status = 'pending') = (secret IS NULL)"),
  check('blocks_check1', `UPDATE blocks SET commitment = NULL ${B1}`, '(secret IS NULL) = (commitment IS NULL)'),
  check('blocks_check2', 'UPDATE blocks SET units_sold = 1 WHERE block = 2', "units_sold = 0 OR status <> 'pending'"),
  check('blocks_units_sold_check', `UPDATE blocks SET units_sold = -1 ${B1}`, 'units_sold >= 0'),
  check(
    'blocks_commitment_version_check',
    `UPDATE blocks SET commitment_version = 3 ${B1}`,
    'commitment_version IN (1, 2)',
  ),
  check('blocks_seeding_check', `UPDATE blocks SET seeding = 'three' ${B1}`, "seeding IN ('single', 'two-person')"),
  check('block_tiers_sold_check', 'UPDATE block_tiers SET sold = -1', 'sold >= 0'),
  check(
    'row_seals_kind_check',
    "INSERT INTO row_seals (kind, key, seq, mac) VALUES ('blocks', '1', 1, 'm')",
    "kind IN ('user', 'claim', 'party', 'emission', 'ceremony')",
  ),
  check('sales_check', 'UPDATE sales SET events = NULL', '(play IS NULL) = (events IS NULL)'),
  check('sales_play_check', 'UPDATE sales SET play = 4', 'play BETWEEN 0 AND 3'),
  check('sales_prize_cents_check', 'UPDATE sales SET prize_cents = -1', 'prize_cents >= 0'),
  check('sales_stake_cents_check', 'UPDATE sales SET stake_cents = 0', 'stake_cents > 0'),
  check('users_active_check', 'UPDATE users SET active = 2', 'active IN (0, 1)'),
  check(
    'users_role_check',
    "UPDATE users SET role = 'root'",
    "role IN ('admin','operator','support','manager','auditor','regulator')",
  ),
  check('verifications_blocks_check', `${RUN} 0, 't', NULL, NULL)`, 'blocks >= 1'),
  check('verifications_check', `${RUN} 1, 't', 't', NULL)`, '(ended_at IS NULL) = (outcome IS NULL)'),
  check(
    'verifications_outcome_check',
    `${RUN} 1, 't', 't', 'great')`,
    "outcome IN ('sound', 'unsound', 'cancelled', 'failed')",
  ),
  check('verification_blocks_block_check', verdict(1000), 'block BETWEEN 1 AND 999'),
  check('verification_blocks_sound_check', verdict(2, 'sound', 2), 'sound IN (0, 1)'),
  check('verification_blocks_units_checked_check', verdict(2, 'units_checked', -1), 'units_checked >= 0'),
  check('verification_blocks_units_total_check', verdict(2, 'units_total', 0), 'units_total >= 1'),
  check('verification_blocks_units_failed_check', verdict(2, 'units_failed', -1), 'units_failed >= 0'),
  check(
    'verification_blocks_prize_table_exact_check',
    verdict(2, 'prize_table_exact', 2),
    'prize_table_exact IN (0, 1)',
  ),
  check('verification_blocks_ms_check', verdict(2, 'ms', -1), 'ms >= 0'),
  check(
    'key_ceremonies_check',
    "UPDATE key_ceremonies SET custodian = 'Bob'",
    '(custodian IS NULL) = (custodian_share IS NULL) AND (custodian IS NULL) = (contributed_at IS NULL)',
  ),
  check(
    'key_ceremonies_custodian_source_check',
    "UPDATE key_ceremonies SET custodian_source = 'coin'",
    "custodian_source IN ('random', 'dice')",
  ),
  check('key_ceremonies_protocol_check', 'UPDATE key_ceremonies SET protocol = 3', 'protocol IN (1, 2)'),
  check(
    'key_ceremonies_commit_check',
    "UPDATE key_ceremonies SET committed_by = 'Bob', custodian_commit = 'c', committed_at = 't'",
    CEREMONY_COMMIT,
  ),
  ...claimChecks(),
  check(
    'related_parties_relation_check',
    `${PARTY} 'friend', 'Bob', 'r', 'Alice', 't')`,
    "relation IN ('staff', 'retailer', 'family', 'other')",
  ),
  check(
    'related_parties_check',
    "UPDATE related_parties SET removed_by = 'Bob'",
    '(removed_by IS NULL) = (removed_at IS NULL) AND (removed_by IS NULL) = (removed_reason IS NULL)',
  ),
]

/** The pending claim, moved each time so that one rule alone is broken. */
function claimChecks(): Refusal[] {
  return [
    check(
      'claims_prize_cents_check',
      'INSERT INTO claims (unit_key, emission, player_id, sold_at, prize_cents) VALUES (10010000001, 1, 1, 1, 0)',
      'prize_cents > 0',
    ),
    check(
      'claims_status_check',
      `${C} status = 'lost'`,
      "status IN ('pending', 'verified', 'approved', 'paid', 'rejected', 'expired')",
    ),
    check(
      'claims_document_check',
      `${C} status = 'verified', ${VERIFIED}, document = 'licence'`,
      "document IN ('id-card', 'passport', 'residence-permit')",
    ),
    check(
      'claims_rejected_from_check',
      `${C} status = 'rejected', rejected_by = 'Bob', rejected_at = 't', reject_reason = 'r', rejected_from = 'paid'`,
      "rejected_from IN ('pending', 'verified', 'approved')",
    ),
    check(
      'claims_check',
      `${C} status = 'verified', verified_by = 'Bob'`,
      '(verified_by IS NULL) = (verified_at IS NULL) AND (verified_by IS NULL) = (document IS NULL) AND (document IS NULL) = (document_ref IS NULL)',
    ),
    check(
      'claims_check1',
      `${C} approved_at = 't'`,
      '(approved_by IS NULL) = (approved_at IS NULL) AND (approved_by IS NULL OR verified_by IS NOT NULL)',
    ),
    check(
      'claims_check2',
      `${C} signed_off_at = 't'`,
      '(signed_off_by IS NULL) = (signed_off_at IS NULL) AND (signed_off_by IS NULL OR verified_by IS NOT NULL)',
    ),
    check(
      'claims_check3',
      `${C} payment_ref = 'p'`,
      '(paid_by IS NULL) = (paid_at IS NULL) AND (paid_by IS NULL) = (payment_ref IS NULL) AND (paid_by IS NULL OR approved_by IS NOT NULL)',
    ),
    check(
      'claims_check4',
      `${C} reject_reason = 'r'`,
      '(rejected_by IS NULL) = (rejected_at IS NULL) AND (rejected_by IS NULL) = (reject_reason IS NULL) AND (rejected_by IS NULL) = (rejected_from IS NULL)',
    ),
    check(
      'claims_check5',
      `${C} status = 'paid'`,
      "(status = 'rejected') = (rejected_by IS NOT NULL) AND (status = 'paid') = (paid_by IS NOT NULL)",
    ),
    check(
      'claims_check6',
      `${C} ${VERIFIED}, document = 'passport'`,
      "status NOT IN ('pending') OR verified_by IS NULL",
    ),
    check(
      'claims_check7',
      `${C} status = 'verified'`,
      "status <> 'verified' OR (verified_by IS NOT NULL AND approved_by IS NULL)",
    ),
    check('claims_check8', `${C} status = 'approved'`, "status <> 'approved' OR approved_by IS NOT NULL"),
    check(
      'claims_check9',
      `${C} status = 'approved', ${VERIFIED}, document = 'passport', approved_by = 'BOB', approved_at = 't'`,
      'approved_by IS NULL OR lower(approved_by) <> lower(verified_by)',
    ),
    check('claims_payment_method_check', `${C} payment_method = 'cash'`, "payment_method IN ('transfer', 'cheque')"),
    check(
      'claims_check10',
      `${C} expired_by = 'system'`,
      "(status = 'expired') = (expired_by IS NOT NULL) AND (expired_by IS NULL) = (expired_at IS NULL)",
    ),
  ]
}

const KEYS: Refusal[] = [
  {
    rule: 'users_name_key',
    kind: 'unique',
    sql: "INSERT INTO users (name, role, password_hash, password_salt, created_at) SELECT 'ALICE', role, password_hash, password_salt, 't' FROM users",
    sqlite: 'UNIQUE constraint failed: users.name',
  },
  {
    rule: 'sign_in_throttle_pkey',
    kind: 'unique',
    sql: "INSERT INTO sign_in_throttle (name, window_start, last_at) VALUES ('aLiCe', 0, 0)",
    sqlite: 'UNIQUE constraint failed: sign_in_throttle.name',
  },
  {
    rule: 'players_name_key',
    kind: 'unique',
    sql: "INSERT INTO players (name) VALUES ('P1')",
    sqlite: 'UNIQUE constraint failed: players.name',
  },
  {
    rule: 'alerts_once',
    kind: 'unique',
    sql: "INSERT INTO alerts (kind, emission, block, amount_cents, message, at) VALUES ('top-prizes-sold-out', 1, NULL, 100, 'again', 't')",
    sqlite: "UNIQUE constraint failed: index 'alerts_once'",
  },
  {
    rule: 'sales_by_sale_id',
    kind: 'unique',
    sql: "INSERT INTO sales (unit_key, sale_id, player_id, sold_at, stake_cents, prize_cents) VALUES (10010000001, 'S1', 1, 1, 200, 0)",
    sqlite: 'UNIQUE constraint failed: sales.sale_id',
  },
  {
    rule: 'sales_player_id_fkey',
    kind: 'foreign key',
    sql: 'INSERT INTO sales (unit_key, player_id, sold_at, stake_cents, prize_cents) VALUES (10010000001, 99, 1, 200, 0)',
    sqlite: 'FOREIGN KEY constraint failed',
  },
  {
    rule: 'player_deltas_player_id_fkey',
    kind: 'foreign key',
    sql: 'INSERT INTO player_deltas (player_id, units, staked_cents, won_cents, first_sale_at, last_sale_at, last_key) VALUES (99, 1, 200, 0, 1, 1, 10010000000)',
    // a team ledger's own table (schema/v12.pg.ts)
    sqlite: null,
  },
]

export const REFUSALS: readonly Refusal[] = [...TRIGGERS, ...CHECKS, ...KEYS]

/** What the rules let through, after the refusals: each must pass on both engines. */
export const ALLOWED: readonly string[] = [
  "INSERT INTO players (name) VALUES ('p1')", // players' names are unique in their exact case
  "UPDATE verifications SET ended_at = 't2', outcome = 'sound' WHERE id = 1", // a verification's end, once
  `${C} status = 'verified', ${VERIFIED}, document = 'passport'`,
  `${C} status = 'approved', approved_by = 'Carol', approved_at = 't'`,
  "UPDATE related_parties SET removed_by = 'Bob', removed_at = 't', removed_reason = 'left'",
  "INSERT INTO alerts (kind, emission, block, amount_cents, message, at) VALUES ('top-prizes-sold-out', 1, 1, 100, 'block 1', 't')",
  'INSERT INTO sales (unit_key, player_id, sold_at, stake_cents, prize_cents) VALUES (10010000001, 1, 1, 200, 0)',
  'INSERT INTO sales (unit_key, player_id, sold_at, stake_cents, prize_cents) VALUES (10010000002, 1, 1, 200, 0)', // NULL sale ids are not unique
]
