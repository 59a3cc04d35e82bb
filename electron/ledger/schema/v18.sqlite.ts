/** Migration 18 of a SQLite ledger (steps.sqlite.ts): claims as finance and support need them. */
// The winner's identity as the claim needs it (name, date of birth, beside the document already
// kept), how the prize was paid (transfer or cheque), and who the claim is assigned to. New
// columns, NULL on the claims made before: no table made again. A claim's seal covers each once set.
export const V18 = /* sql */ `
ALTER TABLE claims ADD COLUMN winner_name TEXT;
ALTER TABLE claims ADD COLUMN winner_birth_date TEXT;
ALTER TABLE claims ADD COLUMN payment_method TEXT CHECK (payment_method IN ('transfer', 'cheque'));
ALTER TABLE claims ADD COLUMN assigned_to TEXT;
ALTER TABLE claims ADD COLUMN assigned_at TEXT;
`
