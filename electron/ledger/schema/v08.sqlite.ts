/** Migration 8 of a SQLite ledger (steps.sqlite.ts): blocks' commitment version and proof batch roots. */
// Commitment versions (game-core/DERIVATION.md §6, §7): the blocks committed so far are version 1;
// blocks generated from now on are version 2, with their proof batches' roots kept for unit proofs.
export const V8 = /* sql */ `
ALTER TABLE blocks ADD COLUMN commitment_version INTEGER NOT NULL DEFAULT 1 CHECK (commitment_version IN (1, 2));
ALTER TABLE blocks ADD COLUMN proof_roots BLOB;
`
