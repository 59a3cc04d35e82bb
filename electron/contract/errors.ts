/** Errors that cross the boundary: a stable code, a sentence for people, and the field at fault. */

export const ERROR_CODES = [
  'BAD_ARGUMENTS', // the arguments do not match the channel's schema
  'UNKNOWN_CHANNEL',
  'NOT_SIGNED_IN',
  'SETUP_REQUIRED', // no admin account yet
  'BAD_CREDENTIALS',
  'FORBIDDEN', // the caller's role may not do this
  'NOT_FOUND',
  'CONFLICT', // already exists, already done, same id with other content
  'ILLEGAL_STATE', // the object's state does not allow this step
  'INVALID_SERIAL',
  'REASON_REQUIRED',
  'IMPORT_REJECTED',
  'SOLD_OUT',
  'CANCELLED',
  'DATABASE', // the ledger file is unreadable, corrupt or from a newer version
  'KEY', // the ledger's key file is missing, wrong, readable by others or damaged
  'INTERNAL',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

/**
 * Why a step was refused, as a stable key and its values, for the screens to say in the user's
 * language; the error's message says the same in English (command line, logs). Values named
 * `status` are an emission's or block's status, `action` one of ERROR_ACTIONS, `kind` a task's
 * kind, `hint` one of ERROR_HINTS.
 */
export const ERROR_REASON_KEYS = [
  'SESSION_ENDED', // {}
  'ROLE_FORBIDDEN', // {role, channel}
  'EMISSION_NOT_FOUND', // {emission}
  'BLOCK_NOT_FOUND', // {emission, block, blocks}
  'BLOCK_NOT_GENERATED', // {emission, block}
  'EMISSION_BUSY', // {emission, action, kind}
  'EMISSION_STEP', // {emission, action, status, hint?, blocks?}
  'BLOCKS_RANGE', // {blocks}
  'DATE_INVALID', // {date}
  'EMISSIONS_FULL', // {}
  'EMISSION_CODE_TAKEN', // {code}
  'WITHDRAW_REASON', // {}
  'USER_NAME_TAKEN', // {name, existing}
  'ADMIN_EXISTS', // {}
  'SETUP_FIRST', // {}
  'ACCOUNT_DEACTIVATED', // {}
  'WRONG_CREDENTIALS', // {}
  'SIGN_IN_LOCKED', // {until}: an ISO time; too many failed sign-ins with this name, whatever the password
  'CURRENT_PASSWORD_WRONG', // {}: a password change whose current password is wrong
  'PASSWORD_UNCHANGED', // {}: the new password is the current one
  'USER_NOT_FOUND', // {userId}
  'LAST_ADMIN', // {name}
  'SERIAL', // {serial}: not a serial (the screens say why from the serial itself)
  'UNIT_BEYOND', // {unit, size}
  'UNSOLD_SECRET', // {serial}
  'UNSOLD_REASON', // {serial}
  'PROOF_VERSION', // {emission, block, version}: a block committed under a version without unit proofs
  'TASK_NOT_FOUND', // {}
  'TASK_ENDED', // {state}
  'TASK_CANCELLED', // {}
  'SIM_PLAYERS_RANGE', // {max}
  'SIM_SALES_MIN', // {}
  'SIM_SEED', // {}
  'SIM_NOT_OPEN', // {emission, status}
  'SIM_SOLD_OUT', // {emission}
  'SIM_TOO_MANY', // {emission, unsold, sales}
  'PLAYER_NOT_FOUND', // {player}
  'PLAYER_AMBIGUOUS', // {player, count, accounts}: ids that differ only by case, none of them the id as typed (accounts: comma-separated)
  'VERIFY_FAILED', // {blocks}: the blocks whose verification failed
  'FEED_NOT_UTF8', // {line, byte, offset}: where a sales feed stops being UTF-8 (byte: its place in the line from 1; offset: in the file from 0)
  'FEED_EMPTY', // {}: a sales feed without a non-blank line
  'FEED_TOO_LARGE', // {mib, maxMib}: a sales feed larger than an import takes (contract FEED_MAX_BYTES), in MiB rounded up
  'FEED_HASH_MISMATCH', // {announced, actual}: the SHA-256 a feed was sent with is not its bytes' (changed or cut on its way)
  'FEED_CONTENT_TYPE', // {type}: a feed's bytes sent to the host with another content type than application/octet-stream
  'SIM_REAL_EMISSION', // {emission}: simulated sales only go to demonstration emissions
  'KEY_MISSING', // {path, fingerprint}: the key file is gone; the ledger was sealed under that key
  'KEY_FILE_REQUIRED', // {}: a team ledger on PostgreSQL was opened without its key file (--key-file, CARATS_KEY_FILE)
  'KEY_WRONG', // {path, fingerprint, expected}: the key file holds another ledger's key
  'KEY_UNSAFE', // {path}: others may read the key file
  'KEY_DAMAGED', // {path}
  'NEVER_VERIFIED', // {emission}: no verification of the emission has given a verdict yet
  'VERIFICATION_NOT_FOUND', // {emission, verification}: no such verification of this emission
  'CEREMONY_EXISTS', // {emission}: the emission's key ceremony was started already (one per emission)
  'CEREMONY_NOT_STARTED', // {emission}: no key ceremony to contribute to
  'CEREMONY_COMPLETE', // {emission, custodian}: the custodian's share is already in
  'CEREMONY_SAME_PERSON', // {name}: the custodian must be another person than who started the ceremony
  'CEREMONY_TOO_LATE', // {emission, status}: the emission's blocks are generated already
  'CEREMONY_REQUIRED', // {emission}: a real emission is generated only from a complete key ceremony
  'DICE_NOT_A_ROLL', // {char}: typed dice rolls with a character other than 1 to 6
  'DICE_TOO_FEW', // {count, min}: fewer rolls than a 32-byte share needs
  'PUBLISH_NOT_OVER', // {emission, status}: an emission is published only once closed or withdrawn
  'PUBLISH_DIR_NOT_EMPTY', // {dir}: a publication goes into a new or empty folder
  'CLAIM_THRESHOLD_RANGE', // {cents, maxCents}: a claim threshold is whole euros from 1 € to the top prize
  'CLAIM_DAYS_RANGE', // {days, max}: a claim deadline is 1 to max whole days after the emission's close
  'CLAIM_MINOR', // {serial, birthDate}: the winner's date of birth makes them under 18: a minor cannot win
  'CLAIM_ASSIGNEE', // {serial, name}: a claim is assigned to an active staff account of support, a manager or an admin
  'CLAIM_EXPIRED', // {serial, deadline}: the claim was still open at its emission's claim deadline: it is no longer paid
  'CLAIM_NONE', // {serial, why, prizeCents, thresholdCents}: no claim on this unit; why: 'unsold' | 'losing' | 'below'
  'CLAIM_STEP', // {serial, status, step}: the claim's status does not allow this step (step: verify|approve|signOff|pay|reject)
  'CLAIM_SAME_PERSON', // {serial, name, step, earlier}: the step must be taken by another person than who took `earlier`
  'CLAIM_SIGN_OFF', // {serial, player}: a related party's claim is paid only after an auditor's sign-off
  'CLAIM_NOT_RELATED', // {serial, player}: a sign-off is for related parties' claims only
  'CLAIM_CONFLICT', // {serial, name, player}: the register links the claim's player to the person acting
  'PAYMENT_REF_USED', // {reference, serial}: the payment reference was recorded for another claim
  'PARTY_NOT_FOUND', // {id}
  'PARTY_EXISTS', // {player, linkedTo}: the register already links this account to this person
  'PARTY_REMOVED', // {id}: the entry was removed already
  'LEASE_HELD', // {kind, subject, host, pid, since, heard}: another workstation runs this long task (leases.ts)
  'LEASE_LOST', // {kind, subject}: another workstation took the task's lease over after its heartbeat went stale
  'LEDGER_BUSY', // {}: a write waited its whole time for another program's long write on the ledger: nothing changed, try again
  'LEDGER_UNAVAILABLE', // {}: the team ledger's server cannot be reached, or its connection was lost during the call: nothing of it was written, try again
  'LEDGER_COMMIT_UNKNOWN', // {}: the team ledger's connection was lost as the change was committed: it is there whole or not at all, look before doing it again
  'SIGN_IN_BUSY', // {}: too many sign-ins with one name are being checked at once (staff/sign-in-slots.ts): try again, nothing counted
  'REQUEST_TOO_LARGE', // {kib, maxKib}: a request to the browser host larger than its channel takes (host-api.ts), in KiB rounded up
  'CEREMONY_NOT_COMMITTED', // {emission}: the custodian reveals a share only after committing to its hash (DERIVATION.md §1.1)
  'CEREMONY_COMMITTED', // {emission, custodian}: the ceremony has its custodian's commitment already
  'USER_NAME_LOOKALIKE', // {name, existing}: the name looks like an existing account's (same skeleton, people.ts)
  'ACCOUNT_NOT_SOUND', // {name}: the account's row does not match its seal or the audit log (audit/seals.ts): it cannot sign in
  'ACCOUNT_UNKNOWN', // {name}: a two-person step by a name that is no staff account
  'ACCOUNT_UNCONFIRMED', // {name, role, grantedBy}: a privileged account takes no two-person step until a second person confirms it
  'CONFIRM_SELF', // {name}: nobody confirms their own account
  'CONFIRM_GRANTER', // {name, confirmer, role}: who granted the role does not confirm it
  'CONFIRM_UNCONFIRMED', // {name, confirmer}: the confirmer's own privileged role is not confirmed yet
  'CONFIRM_NOT_NEEDED', // {name}: the account is confirmed already, or holds no privileged role
  'CONFIRM_INACTIVE', // {name}: a deactivated account is not confirmed
  'PARTY_SELF', // {id, name}: a staff member does not remove a register entry that names them
  'CEREMONY_NOT_CUSTODIAN', // {name, custodian}: only who committed reveals the share
  'CEREMONY_REVEAL_MISMATCH', // {emission, commitment, hash}: the share revealed is not the one committed to
  'CEREMONY_OLD_PROTOCOL', // {emission}: a ceremony begun the old way (backend's share first) is abandoned and opened again
  'CEREMONY_CUSTODIAN_ABANDONED', // {name, emission}: who committed to an abandoned ceremony of the emission is not its custodian again
  'CEREMONY_SIGN_IN', // {}: the command line's ceremony steps are taken by a staff account (--user, --password-stdin)
  'TEXT_REFUSED', // {field, char, position, problem}: a text holds a character the ledger refuses (contract/text.ts); problem: TEXT_PROBLEM_KINDS
  'AUDIT_TEXT_REFUSED', // {field, char, position}: an audit entry's actor or object that no ledger would store as sealed (lone surrogate, NUL)
  'VAULT_UNREACHABLE', // {folder}: the vault cannot be written now; the events wait in the ledger
  'VAULT_UNREADABLE', // {folder}: the folder holds no readable vault description
  'VAULT_OTHER_LEDGER', // {folder, ledger}: the folder is another ledger's vault
  'VAULT_NOT_EMPTY', // {folder}: a vault starts in an empty folder
  'VAULT_ATTACHED', // {folder}: the ledger has its vault already (never detached nor moved)
  'VAULT_NONE', // {}: the ledger has no vault yet
  'VAULT_EXPORT_TOO_LARGE', // {from, to, bytes}: more days than a screen downloads
  'VAULT_RETENTION', // {before, keepFrom}: vault data younger than six years is never purged
  'VAULT_NOTHING_TO_RESUME', // the ledger's log extends what the vault received
  'VAULT_STATE', // {folder}: the writer's state.json missing, unreadable or older than the checkpoint
  'VAULT_WRITTEN_ELSEWHERE', // another process holds the vault's writer lock
] as const
export type ErrorReasonKey = (typeof ERROR_REASON_KEYS)[number]
/** The steps named by EMISSION_BUSY and EMISSION_STEP. */
export const ERROR_ACTIONS = ['generate', 'verify', 'open', 'close', 'withdraw', 'simulate'] as const
export type ErrorAction = (typeof ERROR_ACTIONS)[number]
/** What to do, added to EMISSION_STEP. */
export const ERROR_HINTS = [
  'generatedOnce',
  'generateFirst',
  'blocksNotGenerated',
  'verifyFirst',
  'blocksNotVerified',
  'onlyOpenCloses',
  'final',
] as const
export type ErrorHint = (typeof ERROR_HINTS)[number]

export interface ErrorReason {
  key: ErrorReasonKey
  params: Record<string, string | number>
}

export interface ApiErrorData {
  code: ErrorCode
  message: string
  /** The argument at fault, as a dotted path (`blocks`, `play.events.3.t`). */
  field?: string
  /** Structured detail, e.g. every bad line of a rejected import. */
  details?: unknown
  /** Why, for the screens to say in the user's language. */
  reason?: ErrorReason
}

/** An error's reason, as AppError's extras take it. */
export const because = (key: ErrorReasonKey, params: ErrorReason['params'] = {}): { reason: ErrorReason } => ({
  reason: { key, params },
})

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras: { field?: string; details?: unknown; reason?: ErrorReason } = {},
  ) {
    super(message)
    this.name = 'AppError'
  }

  toData(): ApiErrorData {
    return { code: this.code, message: this.message, ...this.extras }
  }
}

export type Envelope<R> = { ok: true; result: R } | { ok: false; error: ApiErrorData }
