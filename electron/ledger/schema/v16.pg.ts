/** Step 16 on PostgreSQL: v16.sqlite.ts, the regulator's read-only role in the users' CHECK. */
export const PG_V16 = /* sql */ `
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check
  CHECK (role IN ('admin','operator','support','manager','auditor','regulator'));
`
