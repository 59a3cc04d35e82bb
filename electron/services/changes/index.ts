/**
 * The change feed (README.md beside this file): what changed in the ledger, read from the audit
 * log, for the hosts to push to open screens. The only entrance from outside the folder.
 */
export { auditHead, changesAfter, collapse, touchesOf } from './feed'
