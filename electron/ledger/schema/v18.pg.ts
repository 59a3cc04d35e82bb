/** Step 18 on PostgreSQL: v18.sqlite.ts, the winner's identity, the payment's method, the claim's assignee. */
export const PG_V18 = /* sql */ `
ALTER TABLE claims ADD COLUMN winner_name TEXT COLLATE "C";
ALTER TABLE claims ADD COLUMN winner_birth_date TEXT COLLATE "C";
ALTER TABLE claims ADD COLUMN payment_method TEXT COLLATE "C" CHECK (payment_method IN ('transfer', 'cheque'));
ALTER TABLE claims ADD COLUMN assigned_to TEXT COLLATE "C";
ALTER TABLE claims ADD COLUMN assigned_at TEXT COLLATE "C";
`
